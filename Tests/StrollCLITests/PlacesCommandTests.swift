import Foundation
@testable import PlacesGeoPackage
import TestSupport
import Testing

@Suite("stroll places info and convert, and OpenStreetMap places on the command line")
struct PlacesCommandTests {
    static let monaco = fixture("osm/monaco-latest.osm.pbf")

    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("places info --json: count, groups per filter value, bounds and skipped with their counts")
    func info() async throws {
        let run = try await StrollBinary.run(["places", "info", Self.monaco, "--osm-filter", "amenity=cafe,restaurant", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let info = try object(run.stdout)
        #expect(Set(info.keys) == ["count", "groups", "bounds", "skipped"])
        #expect(info["count"] as? Int == 97)
        #expect(info["groups"] as? [String: Int] == ["cafe": 19, "restaurant": 78])
        let bounds = try #require(info["bounds"] as? [String: Double])
        let minLat = try #require(bounds["minLat"]), maxLat = try #require(bounds["maxLat"])
        let minLon = try #require(bounds["minLon"]), maxLon = try #require(bounds["maxLon"])
        // Monaco lies within 43.72-43.76 N, 7.40-7.44 E.
        #expect(minLat > 43.71 && maxLat < 43.76 && minLon > 7.40 && maxLon < 7.45 && minLat < maxLat && minLon < maxLon)
        #expect(info["skipped"] as? [Any] != nil)
        let named = try await StrollBinary.run(["places", "info", Self.monaco, "--osm-filter", "amenity=cafe,restaurant", "--group-name", "food", "--json"])
        #expect(try object(named.stdout)["groups"] as? [String: Int] == ["food": 97])
    }

    @Test("places convert to JSON, CSV, GeoJSON and GeoPackage: each reads back to the same places, to the last digit")
    func convert() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-places-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var previous: String?
        for ext in ["json", "csv", "geojson", "gpkg"] {
            let out = "\(dir)/monaco.\(ext)"
            let run = try await StrollBinary.run(["places", "convert", Self.monaco, out, "--osm-filter", "amenity=cafe"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("19 places in 1 group\n") || run.stdout.contains("19 places in 1 group,"), "\(run.stdout)")
            // Converted once more to JSON, every form gives the same bytes.
            let again = "\(dir)/again-\(ext).json"
            #expect(try await StrollBinary.run(["places", "convert", out, again]).status == 0)
            let text = try String(contentsOfFile: again, encoding: .utf8)
            if let previous { #expect(text == previous, "\(ext)") }
            previous = text
            #expect(text.contains("\"id\":\"node/") || text.contains("\"id\": \"node/"))
        }
        let bad = try await StrollBinary.run(["places", "convert", Self.monaco, "\(dir)/x.txt", "--osm-filter", "amenity=cafe"])
        #expect(bad.status == 64 && bad.stderr.contains("--to"))
    }

    @Test("replay takes an OpenStreetMap extract as --places; a missing or malformed filter is a usage error, a broken file bad input")
    func replay() async throws {
        let run = try await StrollBinary.run(["replay", "--places", Self.monaco, "--osm-filter", "amenity=cafe", "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let ranking = try #require(run.stdout.split(separator: "\n").first { $0.contains("\"ranking\"") })
        #expect(ranking.contains("\"group\":\"cafe\"") && ranking.contains("node/"))
        let noFilter = try await StrollBinary.run(["replay", "--places", Self.monaco])
        #expect(noFilter.status == 64 && noFilter.stderr.contains("--osm-filter"))
        let malformed = try await StrollBinary.run(["replay", "--places", Self.monaco, "--osm-filter", "=cafe"])
        #expect(malformed.status == 64)
        // places takes the same options with the same checks: a bad filter beside a good one is not dropped.
        let mixed = try await StrollBinary.run(["places", "info", Self.monaco, "--osm-filter", "amenity=cafe", "--osm-filter", "=bar"])
        #expect(mixed.status == 64 && mixed.stderr.contains("--osm-filter takes"), "\(mixed.stderr)")
        let broken = try temporaryFile("<osm><node id='1' lat='1' lon='1'>", suffix: ".osm")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let truncated = try await StrollBinary.run(["places", "info", broken, "--osm-filter", "amenity"])
        #expect(truncated.status == 65 && truncated.stderr.contains(broken), "\(truncated.stderr)")
        let missing = try await StrollBinary.run(["places", "info", "/nonexistent/x.osm.pbf", "--osm-filter", "amenity"])
        #expect(missing.status == 66)
    }

    @Test("replay --gpkg: the delivered fixes, the places and one row per place per order change, read back as GeoPackage layers")
    func runAsGeoPackage() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-run-\(UUID().uuidString).gpkg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await StrollBinary.run(["replay", "--gpkg", path, "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try run.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let locations = events.filter { $0["type"] as? String == "location" }
        let changes = events.filter { $0["type"] as? String == "ranking" && $0["changed"] as? Bool == true }
        // The fixes layer as places (ids fixes/FID): one per delivered fix, at its position.
        let fixes = try await StrollBinary.run(["places", "convert", path + "#fixes", path + ".json"])
        defer { try? FileManager.default.removeItem(atPath: path + ".json") }
        #expect(fixes.status == 0, "\(fixes.stderr)")
        let points = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + ".json"))) as? [[String: Any]])
        #expect(points.count == locations.count && !points.isEmpty)
        for (p, l) in zip(points, locations) {
            #expect(p["latitude"] as? Double == l["lat"] as? Double && p["longitude"] as? Double == l["lon"] as? Double)
        }
        let places = try await StrollBinary.run(["places", "info", path + "#places", "--json"])
        #expect(places.stderr.isEmpty, "no note for columns called name and group: \(places.stderr)")
        #expect(try object(places.stdout)["count"] as? Int == 24)
        #expect(try object(places.stdout)["groups"] as? [String: Int] == ["liverpool": 15, "lecture-theatres": 9])
        // order_changes holds one row per place per changed ranking.
        let rows = changes.reduce(0) { $0 + (($1["order"] as? [Any])?.count ?? 0) }
        var counted: Int64 = -1
        try SQLite(path: path, mode: .readOnly).rows("SELECT count(*) FROM order_changes") { counted = $0.int(0) }
        #expect(counted == Int64(rows) && rows > 0)
    }
}
