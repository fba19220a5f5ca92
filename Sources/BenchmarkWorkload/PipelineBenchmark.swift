import Proximity
import Replay
import Traces

/// The whole pipeline per delivered fix, as `stroll replay --format jsonl`
/// runs it: the replay's events for the fix (the simulator's filters, every
/// group's ranking, the map model) each made into its JSON line, timed from
/// the delivered fix to the last line before the next one. The walk is
/// replayed again (set-up untimed) until at least `updates` fixes are measured.
public enum PipelineBenchmark {
    /// `count` benchmark places in two groups, `cafes` and `theatres`, alternating.
    public static func places(count: Int, seed: UInt64) -> (PlaceSet, groups: [String]) {
        let coordinates = BenchmarkWorkload.places(count: count, seed: seed)
        let set = PlaceSet(places: coordinates.enumerated().map { i, c in
            Place(id: "p\(i)", name: "Place \(i)", coordinate: c, group: i % 2 == 0 ? "cafes" : "theatres")
        }, groups: ["cafes", "theatres"])
        return (set, count > 1 ? ["cafes", "theatres"] : ["cafes"])
    }

    public static func run(walk: Trace, places: PlaceSet, groups: [String], updates: Int = 1000,
                           progress: BenchmarkProgress) throws(ReplaySetupError) -> BenchmarkSamples {
        let buildStart = BenchmarkWorkload.now()
        var configuration = ReplayConfiguration()
        configuration.groups = groups
        configuration.follow = true
        var replay = try Replay(trace: walk, places: places, configuration: configuration)
        let buildMs = Double(BenchmarkWorkload.now() - buildStart) / 1e6
        var samples: [Double] = []
        samples.reserveCapacity(updates + 100)
        var bytes = 0
        var current = 0.0
        var open = false
        while samples.count < updates {
            let t0 = BenchmarkWorkload.now()
            guard let event = replay.next() else {
                if open { samples.append(current) }
                open = false
                current = 0
                replay = try Replay(trace: walk, places: places, configuration: configuration)
                continue
            }
            let line = event.jsonLine
            let took = Double(BenchmarkWorkload.now() - t0) / 1000
            bytes += line.utf8.count
            if case .location = event {
                if open { samples.append(current) }
                open = true
                current = 0
            }
            current += took
            if case .location = event { progress(samples.count, updates, samples) }
        }
        return BenchmarkSamples(samples: samples, buildMs: buildMs, bytesPerPlace: 0, checksum: Double(bytes))
    }

    /// The pipeline over files: the walk at `tracePath` and the places of
    /// `placeFiles` in their own groups, or with `count` the generated places
    /// of ``places(count:seed:)``. A file that cannot be read, or a walk that
    /// cannot drive the benchmark, is an error naming it.
    public static func run(tracePath: String, placeFiles: [String], groups: [String], count: Int?, seed: UInt64,
                           progress: BenchmarkProgress) throws(BenchmarkWorkload.WalkError) -> BenchmarkSamples {
        var set = PlaceSet(), groups = groups
        if let count {
            (set, groups) = places(count: count, seed: seed)
        } else {
            for file in placeFiles {
                do {
                    set.merge(try PlaceSet.load(file))
                } catch {
                    throw BenchmarkWorkload.WalkError(description: error.description, unreadable: true)
                }
            }
        }
        let walk: Trace
        do {
            walk = try TraceReader.read(tracePath)
        } catch {
            throw BenchmarkWorkload.WalkError(description: error.description, unreadable: error.kind == .unreadable)
        }
        do {
            return try run(walk: walk, places: set, groups: groups, progress: progress)
        } catch {
            throw BenchmarkWorkload.WalkError(description: "error: \(error.description)", unreadable: false)
        }
    }
}
