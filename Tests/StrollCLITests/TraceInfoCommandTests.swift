import Foundation
import TestSupport
import Testing


func temporaryFile(_ text: String, suffix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-cli-\(UUID().uuidString)\(suffix)").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite("stroll trace info")
struct TraceInfoCommandTests {
    static let keys: Set<String> = ["format", "tracks", "segments", "pointsPerSegment", "points", "routes", "routePoints", "waypoints",
                                    "length_m", "duration_s", "movingTime_s", "bounds", "firstTime", "lastTime", "rejected",
                                    "replays", "replayedPoints", "replayedLength_m"]

    @Test("--json prints one object with the contract's keys and values")
    func json() async throws {
        let run = try await StrollBinary.run(["trace", "info", fixture("real-traces/togeojson/apple_watch_route.gpx"), "--json"])
        #expect(run.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == Self.keys)
        #expect(object["format"] as? String == "gpx")
        #expect(object["points"] as? Int == 44)
        #expect(object["pointsPerSegment"] as? [Int] == [44])
        #expect(object["duration_s"] as? Double == 43)
        #expect(object["firstTime"] as? String == "2019-12-15T20:19:55Z")
        let bounds = try #require(object["bounds"] as? [String: Double])
        #expect(bounds["minLat"] == 32.064856 && bounds["maxLon"] == -81.09652)
    }

    @Test("rejected points come with line and reason")
    func rejected() async throws {
        let run = try await StrollBinary.run(["trace", "info", fixture("real-traces/togeojson/bad.gpx"), "--json"])
        #expect(run.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let rejected = try #require(object["rejected"] as? [[String: Any]])
        #expect(rejected.map { $0["line"] as? Int } == [5, 8, 13, 14, 18])
        #expect(rejected.first?["reason"] as? String == "latitude \"undefined\" is not a number")
    }

    @Test("a well-formed file with no points reports zeros")
    func empty() async throws {
        let path = try temporaryFile("<?xml version=\"1.0\"?><gpx version=\"1.1\"></gpx>", suffix: ".gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await StrollBinary.run(["trace", "info", path, "--json"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("\"points\":0") && run.stdout.contains("\"length_m\":0") && run.stdout.contains("\"bounds\":null"))
    }

    @Test("truncated XML exits 65 with FILE:LINE:COLUMN on stderr")
    func truncated() async throws {
        let path = try temporaryFile("<gpx version='1.1'>\n<trk><trkseg><trkpt lat='53.4' lon='-2.9'>", suffix: ".gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await StrollBinary.run(["trace", "info", path, "--json"])
        #expect(run.status == 65)
        #expect(run.stderr.hasPrefix("error: \(path):2:"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test("a missing file or a directory exits 66")
    func missing() async throws {
        #expect(try await StrollBinary.run(["trace", "info", "/nonexistent/trace.gpx", "--json"]).status == 66)
        #expect(try await StrollBinary.run(["trace", "info", NSTemporaryDirectory()]).status == 66)
    }

    @Test("the table names what the file holds")
    func table() async throws {
        let run = try await StrollBinary.run(["trace", "info", fixture("real-traces/gpxpy/korita-zbevnica.gpx")])
        #expect(run.status == 0)
        #expect(run.stdout.contains("tracks      4 (4 segments: 0, 358, 176, 337 points)"))
    }
}
