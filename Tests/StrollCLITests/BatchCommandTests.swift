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

    /// Starts `stroll batch` on `traces` and returns once one of them has `status`.
    func startBatch(_ traces: [String], out: URL, until status: String) throws -> Process? {
        guard let exe = StrollBinary.url else { return nil }
        let process = Process()
        process.executableURL = exe
        process.arguments = ["batch"] + traces + ["--jobs", "2", "--out", out.path]
        process.standardOutput = Pipe()
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !((try? statuses(out))?.contains(status) ?? false) { usleep(10_000) }
        return process
    }

    func statuses(_ dir: URL) throws -> [String] {
        let data = try Data(contentsOf: dir.appendingPathComponent("status.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (object["traces"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? String }
    }

    @Test("the bundled traces with --jobs 3 all finish done; a bad trace fails with its reason and exit 1")
    func bundled() throws {
        let out = try directory()
        let traces = ["lime-street-to-campus", "pier-head-to-guild", "campus-loop", "bold-street-long-stop"].map { packageRoot.appendingPathComponent("traces/\($0).gpx").path }
        let run = try StrollBinary.run(["batch"] + traces + ["--jobs", "3", "--out", out.path])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(try statuses(out) == ["done", "done", "done", "done"])
        for stem in ["lime-street-to-campus", "campus-loop"] {
            for ext in ["jsonl", "geojson", "svg"] {
                #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("\(stem).\(ext)").path))
            }
        }
        let bad = try StrollBinary.run(["batch", fixture("real-traces/togeojson/bad.gpx"), "--out", out.path])
        #expect(bad.status == 1 && bad.stdout.contains("[failed]") && bad.stdout.contains("no usable fix"))
    }

    @Test("interrupted midway and run again, it completes without redoing finished traces")
    func interruptAndResume() throws {
        let out = try directory()
        let traces = try longWalks(6, in: out)
        let results = out.appendingPathComponent("results")
        guard let process = try startBatch(traces, out: results, until: "done") else {
            Issue.record("no stroll binary")
            return
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let after = try statuses(results)
        #expect(after.contains("done"))
        #expect(after.contains("cancelled") || process.terminationStatus == 0)
        let doneFirst = Set(after.enumerated().filter { $0.element == "done" }.map(\.offset))
        let partials = try FileManager.default.contentsOfDirectory(atPath: results.path).filter { $0.hasSuffix(".partial") }
        #expect(partials.isEmpty, "no half-written output is left")
        let again = try StrollBinary.run(["batch"] + traces + ["--jobs", "2", "--out", results.path])
        #expect(again.status == 0)
        #expect(try statuses(results) == Array(repeating: "done", count: 6))
        for k in doneFirst { #expect(again.stdout.contains("[done] \(traces[k]) (already done)")) }
    }

    @Test("a batch killed with SIGKILL leaves no truncated output or status file, and the next run resumes")
    func killed() throws {
        let out = try directory()
        let traces = try longWalks(4, in: out)
        let results = out.appendingPathComponent("results")
        guard let process = try startBatch(traces, out: results, until: "running") else {
            Issue.record("no stroll binary")
            return
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The status file is whole JSON (written by rename), and every finished output is whole.
        let after = try statuses(results)
        #expect(after.count == 4)
        for name in try FileManager.default.contentsOfDirectory(atPath: results.path) where name.hasSuffix(".jsonl") && !name.hasPrefix(".") {
            let text = try String(contentsOfFile: results.appendingPathComponent(name).path, encoding: .utf8)
            #expect(text.hasSuffix("\n") && text.split(separator: "\n").last?.contains("\"summary\"") == true, "\(name) is complete")
        }
        usleep(500_000)
        let again = try StrollBinary.run(["batch"] + traces + ["--jobs", "2", "--out", results.path])
        #expect(again.status == 0)
        #expect(try statuses(results) == Array(repeating: "done", count: 4))
    }
}
