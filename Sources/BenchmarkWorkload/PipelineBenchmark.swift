#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
        // Each update's parts: the replay's own (ReplayTimings), then encoding and writing.
        let names = ["simulator", "rankings", "map", "events", "encoding", "writing"]
        var parts = [[Double]](repeating: [], count: names.count)
        for k in parts.indices { parts[k].reserveCapacity(updates + 100) }
        var sums = [UInt64](repeating: 0, count: names.count)
        var out = JSONBytes(capacity: 1 << 16)
        let sink = open("/dev/null", O_WRONLY)
        defer { if sink >= 0 { close(sink) } }
        var bytes = 0
        var current: UInt64 = 0
        var inUpdate = false
        replay.timings = ReplayTimings()
        /// Writes the update's lines where `stroll replay` would (here /dev/null) and keeps its samples.
        func finishUpdate() {
            let w0 = BenchmarkWorkload.now()
            bytes += out.bytes.count
            out.bytes.withUnsafeBytes { _ = write(sink, $0.baseAddress, $0.count) }
            out.removeAll()
            let w = BenchmarkWorkload.now() - w0
            current += w
            sums[5] += w
            samples.append(Double(current) / 1000)
            for k in parts.indices { parts[k].append(Double(sums[k]) / 1000) }
        }
        while samples.count < updates {
            let before = replay.timings ?? ReplayTimings()
            let t0 = BenchmarkWorkload.now()
            guard let event = replay.next() else {
                if inUpdate { finishUpdate() }
                inUpdate = false
                current = 0
                sums = sums.map { _ in 0 }
                replay = try Replay(trace: walk, places: places, configuration: configuration)
                replay.timings = ReplayTimings()
                continue
            }
            let t1 = BenchmarkWorkload.now()
            if case .location = event {
                if inUpdate { finishUpdate() }
                inUpdate = true
                current = 0
                sums = sums.map { _ in 0 }
                progress(samples.count, updates, samples)
            }
            let t2 = BenchmarkWorkload.now()
            event.writeJSONLine(to: &out)
            out.byte(10)
            let t3 = BenchmarkWorkload.now()
            let after = replay.timings ?? ReplayTimings()
            sums[0] += after.simulator - before.simulator
            sums[1] += after.rankings - before.rankings
            sums[2] += after.map - before.map
            sums[3] += after.events - before.events
            sums[4] += t3 - t2
            current += (t1 - t0) + (t3 - t2)
        }
        var result = BenchmarkSamples(samples: samples, buildMs: buildMs, bytesPerPlace: 0, checksum: Double(bytes))
        result.parts = zip(names, parts).map { ($0, $1) }
        return result

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
