import ChildProcess
import Foundation
import Testing
import TestSupport
import Batches

@Suite("stroll batch", .serialized)
struct BatchCommandTests {
    func directory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `count` walks of 20 000 fixes each in `dir`, long enough to interrupt a batch of them.
    func longWalks(_ count: Int, in dir: URL) throws -> [String] {
        var gpx = "<gpx><trk><trkseg>\n"
        for i in 0..<20_000 {
            gpx += "<trkpt lat=\"\(53.4 + Double(i) * 0.00002)\" lon=\"-2.97\"><time>2024-05-01T\(String(format: "%02d:%02d:%02d", 8 + i / 3600, (i / 60) % 60, i % 60))Z</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        return try (0..<count).map { k in
            let p = dir.appendingPathComponent("walk\(k).gpx").path
            try Data(gpx.utf8).write(to: URL(fileURLWithPath: p))
            return p
        }
    }

    /// Runs `stroll batch` on `traces` with two jobs and sends `signal` to it (and,
    /// with `toGroup`, to its replays) once one of the traces has `status`.
    func batch(_ traces: [String], out: URL, signal: Int32, toGroup: Bool = false, once status: String) async throws -> ChildRun {
        try await StrollBinary.run(["batch"] + traces + ["--jobs", "2", "--out", out.path]) { pid in
            while true {
                let now = (try? statuses(out)) ?? []
                if now.contains(status) { break }
                if !now.isEmpty && now.allSatisfy({ ["done", "failed", "cancelled"].contains($0) }) { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            if toGroup {
                // The replays lead process groups of their own.
                for replay in children(of: pid) { kill(replay, signal) }
            }
            kill(pid, signal)
        }
    }

    func statuses(_ dir: URL) throws -> [String] {
        let data = try Data(contentsOf: dir.appendingPathComponent("status.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (object["traces"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
    }

    @Test("the bundled traces with --jobs 3 all finish done; a bad trace fails with its reason and exit 1")
    func bundled() async throws {
        let out = try directory()
        let traces = ["lime-street-to-campus", "pier-head-to-guild", "campus-loop", "bold-street-long-stop"].map { packageRoot.appendingPathComponent("traces/\($0).gpx").path }
        let run = try await StrollBinary.run(["batch"] + traces + ["--jobs", "3", "--out", out.path])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(try statuses(out) == ["done", "done", "done", "done"])
        for stem in ["lime-street-to-campus", "campus-loop"] {
            for ext in ["jsonl", "geojson", "svg"] {
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("\(stem).\(ext)").path))
            }
        }
        let bad = try await StrollBinary.run(["batch", fixture("real-traces/togeojson/bad.gpx"), "--out", out.path])
        #expect(bad.status == 1 && bad.stdout.contains("[failed]") && bad.stdout.contains("no usable fix"))
    }

    @Test("every replay option applies to every walk: the same events as separate stroll replay runs")
    func replayOptions() async throws {
        let out = try directory()
        let walks = ["traces/campus-loop.gpx", "traces/pier-head-to-guild.gpx", "traces/lime-street-to-campus.csv"].map { packageRoot.appendingPathComponent($0).path }
        let options = ["--places", fixture("lecture-theatres.json"), "--noise", "gaussian", "--seed", "7", "--rate", "2", "--follow", "--within", "900", "--sort", "distance"]
        let run = try await StrollBinary.run(["batch"] + walks + ["--jobs", "2", "--out", out.path] + options)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        for walk in walks {
            let alone = try await StrollBinary.run(["replay", walk, "--format", "jsonl"] + options)
            let stem = ((walk as NSString).lastPathComponent as NSString).deletingPathExtension
            let batched = try String(contentsOf: out.appendingPathComponent("\(stem).jsonl"), encoding: .utf8)
            #expect(batched == alone.stdout, "\(walk)")
            #expect(batched.contains("\"group\":\"lecture-theatres\"") && !batched.contains("\"group\":\"liverpool\""))
        }
    }

    @Test("goldens per walk: --record-dir, then --verify-dir passes; moved places make exactly the walks whose own --verify fails diverge, in the exit code and the JUnit file")
    func goldens() async throws {
        let dir = try directory()
        let goldens = dir.appendingPathComponent("goldens").path
        let walks = ["traces/campus-loop.gpx", "traces/pier-head-to-guild.gpx", "traces/lime-street-to-campus.csv", "traces/lime-street-to-campus.gpx"]
            .map { packageRoot.appendingPathComponent($0).path }
        let places = fixture("lecture-theatres.json")
        let recorded = try await StrollBinary.run(["batch"] + walks + ["--out", dir.appendingPathComponent("a").path, "--places", places, "--record-dir", goldens])
        #expect(recorded.status == 0, "\(recorded.stdout)")
        // walk.gpx and walk.csv keep their own goldens.
        #expect(FileManager.default.fileExists(atPath: goldens + "/lime-street-to-campus.gpx.json") && FileManager.default.fileExists(atPath: goldens + "/lime-street-to-campus.csv.json"))
        let junit = dir.appendingPathComponent("report.xml").path
        let same = try await StrollBinary.run(["batch"] + walks + ["--out", dir.appendingPathComponent("b").path, "--places", places, "--verify-dir", goldens, "--junit", junit])
        #expect(same.status == 0, "\(same.stdout)")
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("tests=\"4\" failures=\"0\" errors=\"0\" skipped=\"0\""))

        // Ashton moved 200 m north: which walks diverge is what each walk's own replay --verify says.
        var moved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: places))) as? [[String: Any]])
        moved[0]["latitude"] = (moved[0]["latitude"] as? Double ?? 0) + 0.0018
        let movedPath = dir.appendingPathComponent("moved.json").path
        try JSONSerialization.data(withJSONObject: moved).write(to: URL(fileURLWithPath: movedPath))
        var expected: [String: Bool] = [:]
        for walk in walks {
            let alone = try await StrollBinary.run(["replay", walk, "--format", "jsonl", "--places", movedPath,
                                                   "--verify", goldens + "/" + (walk as NSString).lastPathComponent + ".json"])
            expected[walk] = alone.status == 1
        }
        #expect(expected.values.contains(true))
        let changed = try await StrollBinary.run(["batch"] + walks + ["--out", dir.appendingPathComponent("c").path, "--places", movedPath, "--verify-dir", goldens, "--junit", junit])
        #expect(changed.status == 1)
        for walk in walks {
            let diverged = changed.stdout.contains("[diverged] \(walk): verify: ")
            #expect(diverged == expected[walk], "\(walk)")
        }
        let report = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(report.contains("failures=\"\(expected.values.filter { $0 }.count)\""))
        #expect(report.components(separatedBy: "<failure ").count - 1 == expected.values.filter { $0 }.count)

        // A walk without a golden fails with its own reason; the others still run.
        let extra = packageRoot.appendingPathComponent("traces/bold-street-long-stop.gpx").path
        let missing = try await StrollBinary.run(["batch", extra, walks[0], "--out", dir.appendingPathComponent("d").path, "--places", places, "--verify-dir", goldens])
        #expect(missing.status == 1 && missing.stdout.contains("[failed] \(extra): no golden timeline"))
        #expect(missing.stdout.contains("[done] \(walks[0])"))
    }

    @Test("a --plan: walks with their own options and goldens, paths beside the plan; a walk's options win over the batch's")
    func plan() async throws {
        let dir = try directory()
        for name in ["campus-loop.gpx", "pier-head-to-guild.gpx"] {
            try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("traces/\(name)").path, toPath: dir.appendingPathComponent(name).path)
        }
        let planPath = dir.appendingPathComponent("plan.json").path
        try Data("""
        {"walks": [
          {"trace": "campus-loop.gpx", "options": ["--noise", "gaussian", "--seed", "3"]},
          {"trace": "pier-head-to-guild.gpx", "golden": "kept/pier.json", "options": ["--group", "lecture-theatres"]}
        ]}
        """.utf8).write(to: URL(fileURLWithPath: planPath))
        let goldens = dir.appendingPathComponent("goldens").path
        let recorded = try await StrollBinary.run(["batch", "--plan", planPath, "--out", dir.appendingPathComponent("a").path, "--record-dir", goldens, "--noise", "none"])
        #expect(recorded.status == 0, "\(recorded.stdout)\(recorded.stderr)")
        #expect(FileManager.default.fileExists(atPath: goldens + "/campus-loop.gpx.json"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("kept/pier.json").path))
        // The walk's own --noise gaussian --seed 3 won over the batch's --noise none.
        let alone = try await StrollBinary.run(["replay", dir.appendingPathComponent("campus-loop.gpx").path, "--format", "jsonl", "--noise", "gaussian", "--seed", "3"])
        #expect(try String(contentsOf: dir.appendingPathComponent("a/campus-loop.jsonl"), encoding: .utf8) == alone.stdout)
        let verified = try await StrollBinary.run(["batch", "--plan", planPath, "--out", dir.appendingPathComponent("b").path, "--verify-dir", goldens, "--noise", "none"])
        #expect(verified.status == 0, "\(verified.stdout)")

        // Bad plans: not JSON (65), a missing walk (66), an option that is not a replay option (64); nothing starts.
        let bad = dir.appendingPathComponent("bad.json").path
        try Data("{ walks: ".utf8).write(to: URL(fileURLWithPath: bad))
        let notJSON = try await StrollBinary.run(["batch", "--plan", bad, "--out", dir.appendingPathComponent("c").path])
        #expect(notJSON.status == 65 && notJSON.stderr.contains("bad.json: not a plan"))
        try Data(#"[{"trace": "nowhere.gpx"}]"#.utf8).write(to: URL(fileURLWithPath: bad))
        let missing = try await StrollBinary.run(["batch", "--plan", bad, "--out", dir.appendingPathComponent("c").path])
        #expect(missing.status == 66 && missing.stderr.contains("nowhere.gpx: no such trace"))
        try Data(#"[{"trace": "campus-loop.gpx", "options": ["--format", "jsonl"]}]"#.utf8).write(to: URL(fileURLWithPath: bad))
        let option = try await StrollBinary.run(["batch", "--plan", bad, "--out", dir.appendingPathComponent("c").path])
        #expect(option.status == 64 && option.stderr.contains("walk") && option.stderr.contains("--format"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("c").path))
    }

    @Test("bad options fail the batch at once, before any replay: exit 64 or 66 with the reason, no output folder")
    func badOptions() async throws {
        let dir = try directory()
        let walk = packageRoot.appendingPathComponent("traces/campus-loop.gpx").path
        let out = dir.appendingPathComponent("never").path
        let both = try await StrollBinary.run(["batch", walk, "--out", out, "--record-dir", dir.path, "--verify-dir", dir.path])
        #expect(both.status == 64 && both.stderr.contains("--record-dir and --verify-dir"))
        let noPlaces = try await StrollBinary.run(["batch", walk, "--out", out, "--places", dir.appendingPathComponent("nope.json").path])
        #expect(noPlaces.status == 66 && noPlaces.stderr.contains("nope.json"))
        let group = try await StrollBinary.run(["batch", walk, "--out", out, "--group", "atlantis"])
        #expect(group.status == 64 && group.stderr.contains("atlantis"))
        let notForBatch = try await StrollBinary.run(["batch", walk, "--out", out, "--format", "jsonl"])
        #expect(notForBatch.status == 64 && notForBatch.stderr.contains("--format"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--ray: the options that go with it are refused without it; a driver that cannot start or a cluster that cannot be reached is exit 69 in seconds, with nothing left behind")
    func rayErrors() async throws {
        let dir = try directory()
        let walk = packageRoot.appendingPathComponent("traces/campus-loop.gpx").path
        let out = dir.appendingPathComponent("never").path
        let alone = try await StrollBinary.run(["batch", walk, "--out", out, "--ray-stroll", "/usr/bin/stroll"])
        #expect(alone.status == 64 && alone.stderr.contains("--ray-stroll goes with --ray"))
        // A Python without the driver: the reason and what to do.
        let noDriver = try await StrollBinary.run(["batch", walk, "--out", out, "--ray", "127.0.0.1:9", "--ray-python", "/usr/bin/python3"])
        #expect(noDriver.status == 69 && noDriver.stderr.contains("No module named stroll_ray") && noDriver.stderr.contains("pip install ./python"))
        #expect(!FileManager.default.fileExists(atPath: out))
        // A Python that is not there.
        let noPython = try await StrollBinary.run(["batch", walk, "--out", out, "--ray", "127.0.0.1:9", "--ray-python", "/nonexistent/python"])
        #expect(noPython.status == 69 && noPython.stderr.contains("/nonexistent/python"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--shard-places: every walk's merged events are byte for byte one replay's over all places (within, follow, name sort); what needs every place in one replay is refused")
    func shardedPlaces() async throws {
        let dir = try directory()
        let walks = ["traces/campus-loop.gpx", "traces/pier-head-to-guild.gpx", "traces/lime-street-to-campus.csv"].map { packageRoot.appendingPathComponent($0).path }
        for options in [["--follow", "--within", "600"], ["--sort", "name", "--rate", "2"]] {
            let out = dir.appendingPathComponent(UUID().uuidString)
            let run = try await StrollBinary.run(["batch"] + walks + ["--out", out.path, "--shard-places", "3"] + options)
            #expect(run.status == 0, "\(run.stdout)")
            for walk in walks {
                let alone = try await StrollBinary.run(["replay", walk, "--format", "jsonl"] + options)
                let stem = ((walk as NSString).lastPathComponent as NSString).deletingPathExtension
                let merged = try String(contentsOf: out.appendingPathComponent("\(stem).jsonl"), encoding: .utf8)
                #expect(merged == alone.stdout, "\(walk) \(options)")
            }
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(".shards").path))
        }
        let out = dir.appendingPathComponent("never").path
        for (extra, expected) in [(["--shard-places", "1"], "--shard-places must be 2 to 64"),
                                  (["--shard-places", "2", "--select", "Leaf"], "--shard-places cannot go with --select"),
                                  (["--shard-places", "2", "--record-dir", dir.path], "--shard-places cannot go with --record-dir")] {
            let refused = try await StrollBinary.run(["batch", walks[0], "--out", out] + extra)
            #expect(refused.status == 64 && refused.stderr.contains(expected), "\(refused.stderr)")
        }
        let plan = dir.appendingPathComponent("plan.json").path
        try Data(#"[{"trace": "\#(walks[0])", "options": ["--places", "x.json"]}]"#.utf8).write(to: URL(fileURLWithPath: plan))
        try Data("[]".utf8).write(to: URL(fileURLWithPath: dir.appendingPathComponent("x.json").path))
        let planned = try await StrollBinary.run(["batch", "--plan", plan, "--out", out, "--shard-places", "2"])
        #expect(planned.status == 64 && planned.stderr.contains("--places cannot go with --shard-places"), "\(planned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--ray: the files a replay reads and writes are found in its command line, in either option form")
    func rayFiles() {
        let (args, inputs, outputs) = RayExecutor.files(in: ["replay", "walk.gpx", "--format", "jsonl", "--geojson", "out/w.geojson", "--svg", "out/w.svg",
                                                             "--places", "a.json", "--places=b.csv", "--group", "a.json", "--regions", "r.geojson",
                                                             "--verify", "g.json", "--record", "h.json", "--seed", "3"])
        #expect(args.count == 22 && args[10] == "--places" && args[11] == "b.csv")
        #expect(inputs.map { args[$0] } == ["walk.gpx", "a.json", "b.csv", "r.geojson", "g.json"])
        #expect(outputs.map { args[$0] } == ["out/w.geojson", "out/w.svg", "h.json"])
        let (more, found, _) = RayExecutor.files(in: ["replay", "walk.gpx", "--places", "postgresql://me@db/gis?table=cafes", "--places", "shops.gpkg#cafes"])
        #expect(found.map { more[$0] } == ["walk.gpx", "shops.gpkg#cafes"], "a database is no file; a layer's file is")
    }

    @Test("interrupted midway and run again, it completes without redoing finished traces")
    func interruptAndResume() async throws {
        let out = try directory()
        let traces = try longWalks(6, in: out)
        let results = out.appendingPathComponent("results")
        let first = try await batch(traces, out: results, signal: SIGINT, once: "done")
        let after = try statuses(results)
        #expect(after.contains("done"))
        #expect(after.contains("cancelled") || first.status == 0)
        #expect(first.status == 130 || first.status == 0, "\(first.reason)")
        let doneFirst = Set(after.enumerated().filter { $0.element == "done" }.map(\.offset))
        let partials = try FileManager.default.contentsOfDirectory(atPath: results.path).filter { $0.hasSuffix(".partial") }
        #expect(partials.isEmpty, "no half-written output is left")
        let again = try await StrollBinary.run(["batch"] + traces + ["--jobs", "2", "--out", results.path])
        #expect(again.status == 0)
        #expect(try statuses(results) == Array(repeating: "done", count: 6))
        for k in doneFirst { #expect(again.stdout.contains("[done] \(traces[k]) (already done)")) }
    }

    @Test("a batch killed with SIGKILL leaves no truncated output or status file, and the next run resumes")
    func killed() async throws {
        let out = try directory()
        let traces = try longWalks(4, in: out)
        let results = out.appendingPathComponent("results")
        // The batch and its replays, as when a whole process group is killed.
        let first = try await batch(traces, out: results, signal: SIGKILL, toGroup: true, once: "running")
        #expect(first.signal == SIGKILL)
        // The status file is whole JSON (written by rename), and every finished output is whole.
        let after = try statuses(results)
        #expect(after.count == 4)
        for name in try FileManager.default.contentsOfDirectory(atPath: results.path) where name.hasSuffix(".jsonl") && !name.hasPrefix(".") {
            let text = try String(contentsOfFile: results.appendingPathComponent(name).path, encoding: .utf8)
            #expect(text.hasSuffix("\n") && text.split(separator: "\n").last?.contains("\"summary\"") == true, "\(name) is complete")
        }
        let again = try await StrollBinary.run(["batch"] + traces + ["--jobs", "2", "--out", results.path])
        #expect(again.status == 0)
        #expect(try statuses(results) == Array(repeating: "done", count: 4))
    }
}

@Suite("stroll batch with replays that hang or are killed", .serialized)
struct BatchFailureTests {
    @Test("a replay that hangs (its trace is a FIFO no one writes) fails at --timeout with the reason; nothing is left running")
    func hangingReplay() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let fifo = dir.appendingPathComponent("never-written.gpx").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let run = try await StrollBinary.run(["batch", fifo, "--timeout", "2", "--out", dir.appendingPathComponent("out").path])
        #expect(run.status == 1, "\(run.reason) \(run.stdout)")
        #expect(run.stdout.contains("[failed] \(fifo): still running after --timeout 2 s; killed"))
        #expect(liveProcesses(containing: fifo).isEmpty)
    }

    @Test("a replay killed by a signal fails with the signal named; the rest finish")
    func killedReplay() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // The first walk is a FIFO no one writes: its replay waits until it is killed, however slow the machine.
        let fifo = dir.appendingPathComponent("waits.gpx").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let walks = [fifo, packageRoot.appendingPathComponent("traces/campus-loop.gpx").path]
        let out = dir.appendingPathComponent("out")
        let run = try await StrollBinary.run(["batch"] + walks + ["--jobs", "1", "--out", out.path]) { pid in
            // The first replay, once it runs.
            while true {
                if let replay = children(of: pid).first {
                    kill(replay, SIGKILL)
                    return
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(run.status == 1, "\(run.reason)")
        #expect(run.stdout.contains("[failed] \(walks[0]): killed by signal 9"))
        #expect(run.stdout.contains("[done] \(walks[1])"))
    }
}
