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

    @Test("route --pairs: the routes between the pairs listed are timed, and a line that is not a pair is an error naming it, exit 65")
    func routePairs() async throws {
        let monaco = fixture("osm/monaco-latest.osm.pbf")
        let pairs = try temporaryFile("43.7396,7.4275\t43.7314,7.4206\n43.7367,7.4216\t43.7396,7.4275\n", suffix: ".tsv")
        let out = try await json(["--variant", "route", "--osm", monaco, "--pairs", pairs])
        #expect(out["queries"] as? Int == 2 && out["routes"] as? Int == 2 && out["unreachable"] as? Int == 0)
        #expect((out["checksum"] as? Double ?? 0) > 1000 && (out["build_ms"] as? Double ?? 0) > 0)
        let bad = try temporaryFile("43.7384,7.4246\t43.7311,7.4197\n43.7384,7.4246\n", suffix: ".tsv")
        let run = try await StrollBinary.run(["bench", "--variant", "route", "--osm", monaco, "--pairs", bad])
        #expect(run.status == 65 && run.stderr.contains("line 2"), "\(run.status) \(run.stderr)")
        let usage = try await StrollBinary.run(["bench", "--variant", "topk", "--pairs", pairs])
        #expect(usage.status == 64 && usage.stderr.contains("--pairs"))
    }
}
