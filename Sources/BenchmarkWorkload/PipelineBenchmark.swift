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
/// group's ranking, the map model) each made into its JSON line and written
/// to /dev/null (``PipelineStepper``). The walk plays in loops until
/// `updates` fixes are measured.
///
/// Two passes over the same updates: the first times each update whole,
/// with a clock reading either side of it, and gives the samples; the second reads
/// it around every part of every event (`ReplayTimings`, the encoding, the
/// writing) and gives the parts. The parts' clock readings (six or more an
/// event, 20-25 ns each here) are kept out of the whole update's figure.
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
        let configuration = PipelineStepper.configuration(groups: groups)
        let buildStart = BenchmarkWorkload.now()
        var stepper = try PipelineStepper(walk: walk, places: places, groups: groups)
        let buildMs = Double(BenchmarkWorkload.now() - buildStart) / 1e6

        // Pass 1: each update whole, one clock reading either side of it.
        var samples: [Double] = []
        samples.reserveCapacity(updates)
        while samples.count < updates {
            let t0 = BenchmarkWorkload.now()
            guard stepper.update() > 0 else { break }
            samples.append(Double(BenchmarkWorkload.now() - t0) / 1000)
            progress(samples.count, updates, samples)
        }

        // Pass 2: the parts, the replay's own (ReplayTimings), then encoding and writing.
        let sink = open("/dev/null", O_WRONLY)
        defer { if sink >= 0 { close(sink) } }
        var out = JSONBytes(capacity: 1 << 16)
        let names = ["simulator", "rankings", "map", "events", "encoding", "writing"]
        var parts = [[Double]](repeating: [], count: names.count)
        for k in parts.indices { parts[k].reserveCapacity(updates) }
        var sums = [UInt64](repeating: 0, count: names.count)
        var replay = try Replay(trace: walk, places: places, configuration: configuration)
        replay.timings = ReplayTimings()
        var inUpdate = false
        var measured = 0
        func finishUpdate() {
            let w0 = BenchmarkWorkload.now()
            _ = flush(&out, to: sink)
            sums[5] += BenchmarkWorkload.now() - w0
            for k in parts.indices { parts[k].append(Double(sums[k]) / 1000) }
            measured += 1
        }
        while measured < samples.count {
            let before = replay.timings ?? ReplayTimings()
            guard let event = replay.next() else { break }
            if case .location = event {
                if inUpdate { finishUpdate() }
                inUpdate = true
                sums = sums.map { _ in 0 }
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
        }
        var result = BenchmarkSamples(samples: samples, buildMs: buildMs, bytesPerPlace: 0, checksum: Double(stepper.bytes))
        result.parts = zip(names, parts).map { ($0, $1) }
        return result
    }

    /// Writes the lines in `out` where `stroll replay` would (here /dev/null)
    /// and empties it; the bytes written.
    private static func flush(_ out: inout JSONBytes, to sink: Int32) -> Int {
        let count = out.count
        out.withUnsafeBytes { _ = write(sink, $0.baseAddress, $0.count) }
        out.removeAll()
        return count
    }

    /// The pipeline over files: the walk at `tracePath` and the places of
    /// `placeFiles` in their own groups, or with `count` the generated places
    /// of ``places(count:seed:)``. A file that cannot be read, or a walk that
    /// cannot drive the benchmark, is an error naming it.
    /// With `lines`, the JSON lines of one replay of the walk (the lines the
    /// benchmark encodes, every event's) are also written there: what
    /// Benchmarks/pipeline-floor formats in C for the same updates.
    public static func run(tracePath: String, placeFiles: [String], groups: [String], count: Int?, seed: UInt64,
                           lines: String? = nil,
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
            // The stepper plays the walk in loops until the next delivered fix:
            // a walk that delivers fewer than two fixes would never give one.
            var probe = try Replay(trace: walk, places: set, configuration: {
                var c = PipelineStepper.configuration(groups: groups)
                c.replay.loops = 1
                return c
            }())
            var delivered = 0
            while delivered < 2, let event = probe.next() {
                if case .location = event { delivered += 1 }
            }
            guard delivered >= 2 else {
                throw BenchmarkWorkload.WalkError(description: "\(tracePath): the walk delivers fewer than two fixes", unreadable: false)
            }
            let result = try run(walk: walk, places: set, groups: groups, progress: progress)
            if let lines {
                let text = try Self.lines(walk: walk, places: set, groups: groups)
                do {
                    try TraceWriter.writeAtomically(text, to: lines)
                } catch {
                    throw BenchmarkWorkload.WalkError(description: "error: cannot write \(lines): \(error)", unreadable: false)
                }
            }
            return result
        } catch let error as ReplaySetupError {
            throw BenchmarkWorkload.WalkError(description: "error: \(error.description)", unreadable: false)
        } catch let error as BenchmarkWorkload.WalkError {
            throw error
        } catch {
            throw BenchmarkWorkload.WalkError(description: "error: \(error)", unreadable: false)
        }
    }

    /// Every JSON line of one replay of `walk`, as the benchmark encodes them.
    public static func lines(walk: Trace, places: PlaceSet, groups: [String]) throws(ReplaySetupError) -> String {
        var configuration = ReplayConfiguration()
        configuration.groups = groups
        configuration.follow = true
        var replay = try Replay(trace: walk, places: places, configuration: configuration)
        var out = JSONBytes(capacity: 1 << 16)
        while let event = replay.next() {
            event.writeJSONLine(to: &out)
            out.byte(10)
        }
        return out.text
    }
}
