import ChildProcess
import Foundation
import Testing
import TestSupport

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
        let walks = try BatchCommandTests().longWalks(2, in: dir)
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
