import Foundation
import Testing
import TestSupport

@Suite("stroll bench: the variants' JSON, threads and clusters")
struct BenchCommandTests {
    func json(_ arguments: [String]) async throws -> [String: Any] {
        let run = try await StrollBinary.run(["bench", "--json"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test("pipeline: the bundled 24 places through the replay to JSON lines, at least 1000 delivered fixes timed")
    func pipeline() async throws {
        let out = try await json(["--variant", "pipeline"])
        #expect(out["variant"] as? String == "pipeline" && out["places"] as? Int == 24)
        #expect((out["updates"] as? Int ?? 0) >= 1000)
        #expect((out["p50_us"] as? Double ?? 0) > 0 && (out["p99_us"] as? Double ?? 0) >= (out["p50_us"] as? Double ?? 0))
        // The checksum is the JSON bytes made: a ranking line per group and a location line per fix at least.
        #expect((out["checksum"] as? Double ?? 0) > 1000 * 200)
    }

    @Test("pipeline: a walk that delivers one fix, or none, is an error naming the file, exit 65, not a benchmark of nothing; --dump-lines writes the lines the updates encode")
    func pipelineWalks() async throws {
        for rows in ["", "2024-05-01T08:40:00Z,53.4,-2.97\n"] {
            let walk = try temporaryFile("time,latitude,longitude\n" + rows, suffix: ".csv")
            let run = try await StrollBinary.run(["bench", "--variant", "pipeline", "--trace", walk])
            #expect(run.status == 65 && run.stderr.contains(walk) && run.stderr.contains("fewer than two fixes"), "\(run.status) \(run.stderr)")
        }
        let lines = try temporaryFile("", suffix: ".jsonl")
        let run = try await StrollBinary.run(["bench", "--variant", "pipeline", "--dump-lines", lines])
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOfFile: lines, encoding: .utf8)
        #expect(text.hasPrefix("{\"type\":\"location\"") && text.components(separatedBy: "{\"type\":\"ranking\"").count > 40)
    }

    @Test("--threads is reported, and used only where the work is split (full order from 100 000 places)")
    func threads() async throws {
        #expect(try await json(["--variant", "topk", "--places", "500", "--threads", "2"])["threads"] as? Int == 1)
        #expect(try await json(["--variant", "full", "--places", "500", "--threads", "2"])["threads"] as? Int == 1)
        let bad = try await StrollBinary.run(["bench", "--threads", "0"])
        #expect(bad.status == 64 && bad.stderr.contains("--threads"))
    }

    @Test("map-pan --cluster: the index alone is timed, and --cluster without a map variant is a usage error")
    func clusters() async throws {
        let out = try await json(["--variant", "map-pan", "--places", "2000", "--cluster"])
        #expect(out["index_ms"] is Double && (out["bytes_per_place"] as? Double ?? 0) > 0)
        let bad = try await StrollBinary.run(["bench", "--variant", "topk", "--cluster"])
        #expect(bad.status == 64 && bad.stderr.contains("--cluster"))
    }
}
