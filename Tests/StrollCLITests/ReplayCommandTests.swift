import Foundation
import Testing
import TestSupport

func jsonLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { throw CocoaError(.coderReadCorrupt) }
        return object
    }
}

@Suite("stroll replay")
struct ReplayCommandTests {
    let walk = packageRoot.appendingPathComponent("traces/lime-street-to-campus.gpx").path
    let plist = fixture("CityCycleRideLocations.plist")

    @Test("JSON Lines events carry the contract's keys, in order, ending with the summary")
    func jsonl() async throws {
        let run = try await StrollBinary.run(["replay", walk, "--places", plist, "--group", "liverpool", "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let events = try jsonLines(run.stdout)
        let keys: [String: Set<String>] = [
            "location": ["t", "timestamp", "lat", "lon", "horizontalAccuracy", "altitude", "verticalAccuracy", "course", "speed"],
            "filtered": ["t", "lat", "lon", "reason", "distance"],
            "ranking": ["t", "group", "order", "names", "distances", "moves", "inserted", "deleted", "nearest", "changed"],
            "map": ["t", "region", "visible", "selected"],
            "summary": ["read", "rejected", "delivered", "filtered", "rankingChanges"],
        ]
        for e in events {
            let type = try #require(e["type"] as? String)
            if let want = keys[type] { #expect(want.isSubset(of: Set(e.keys)), "\(type)") }
        }
        #expect(events.last?["type"] as? String == "summary")
        #expect(events.first?["type"] as? String == "location")
        #expect(events[1]["type"] as? String == "ranking", "a ranking follows its location")
        let summary = try #require(events.last)
        #expect(summary["read"] as? Int == 190)
        #expect(summary["delivered"] as? Int == events.filter { $0["type"] as? String == "location" }.count)
        #expect(summary["filtered"] as? Int == events.filter { $0["type"] as? String == "filtered" }.count)
        let maps = events.filter { $0["type"] as? String == "map" }
        #expect(!maps.isEmpty)
        let first = events.first { $0["type"] as? String == "location" }
        let region = try #require(maps.first?["region"] as? [String: Any])
        let centre = try #require(region["center"] as? [String: Double])
        #expect(centre["lat"] == first?["lat"] as? Double && centre["lon"] == first?["lon"] as? Double, "the first map event centres on the first fix")
    }

    @Test("--visits: an arrival (departure null) then a departure after the fixes that show them; the same lines without it, but for the visits")
    func visits() async throws {
        let stop = packageRoot.appendingPathComponent("traces/bold-street-long-stop.gpx").path
        let base = ["replay", stop, "--places", plist, "--group", "liverpool", "--format", "jsonl", "--distance-filter", "none"]
        let plain = try await StrollBinary.run(base)
        let run = try await StrollBinary.run(base + ["--visits", "--visit-radius", "100", "--visit-minutes", "5"])
        #expect(run.status == 0 && plain.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.filter { !$0.hasPrefix("{\"type\":\"visit\"") } == plain.stdout.split(separator: "\n"))
        let visits = try jsonLines(run.stdout).filter { $0["type"] as? String == "visit" }
        try #require(visits.count == 2)
        for v in visits { #expect(Set(v.keys) == ["type", "t", "lat", "lon", "arrival", "departure", "horizontalAccuracy"]) }
        #expect(visits[0]["departure"] is NSNull && visits[1]["departure"] as? String == "2024-05-01T15:17:54Z")
        #expect(visits[0]["arrival"] as? String == visits[1]["arrival"] as? String)
        let table = try await StrollBinary.run(["replay", stop, "--group", "liverpool", "--visits", "--distance-filter", "none"])
        #expect(table.stdout.contains("visit arrived 53.4") && table.stdout.contains("visit departed 53.4"))
        let bad = try await StrollBinary.run(["replay", stop, "--visits", "--visit-radius", "0"])
        #expect(bad.status == 64 && bad.stderr.contains("--visit-radius"))
    }

    @Test("with --realtime the table shows the walk's time, as without it, not the wall clock's")
    func realtimeShowsWalkTime() async throws {
        func headers(_ extra: [String]) async throws -> [String] {
            let run = try await StrollBinary.run(["replay", "traces/campus-loop.gpx"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            // "HH:MM:SS  lat, lon  group": the time and the position of every list shown.
            return run.stdout.split(separator: "\n").map(String.init).filter { $0.range(of: #"^\d\d:\d\d:\d\d  -?\d"#, options: .regularExpression) != nil }
        }
        let virtual = try await headers([])
        let paced = try await headers(["--realtime", "--speed", "20000"])
        #expect(virtual.count > 3)
        #expect(paced == virtual)
        // The walk lasts minutes; at 20 000x the wall clock never reaches a second.
        #expect(virtual.last?.hasPrefix("00:00:00") == false)
    }

    @Test("the same seed gives byte-identical output, another seed does not")
    func seeds() async throws {
        let a = try await StrollBinary.run(["replay", walk, "--noise", "gaussian", "--seed", "1", "--format", "jsonl"])
        let b = try await StrollBinary.run(["replay", walk, "--noise", "gaussian", "--seed", "1", "--format", "jsonl"])
        let c = try await StrollBinary.run(["replay", walk, "--noise", "gaussian", "--seed", "2", "--format", "jsonl"])
        #expect(a.stdout == b.stdout)
        #expect(a.stdout != c.stdout)
    }

    @Test("--select selects the pin at the first ranking and recentres the map keeping the span")
    func select() async throws {
        let run = try await StrollBinary.run(["replay", walk, "--places", plist, "--group", "liverpool", "--select", "Leaf", "--format", "jsonl"])
        #expect(run.status == 0)
        let maps = try jsonLines(run.stdout).filter { $0["type"] as? String == "map" }
        let selected = try #require(maps.first { $0["selected"] as? String == "liverpool-4" })
        let region = try #require(selected["region"] as? [String: Any])
        let centre = try #require(region["center"] as? [String: Double])
        #expect(centre["lat"] == 53.403198 && centre["lon"] == -2.978942)
        let spans = maps.compactMap { ($0["region"] as? [String: Any])?["span"] as? [String: Double] }
        #expect(Set(spans.map { $0["latDelta"] ?? 0 }).count == 1, "the span never changes")
    }

    @Test("usage errors exit 64 with the candidates; missing input 66; bad input 65")
    func exitCodes() async throws {
        let unknown = try await StrollBinary.run(["replay", walk, "--places", plist, "--group", "nowhere"])
        #expect(unknown.status == 64 && unknown.stderr.contains("liverpool, cupertino"))
        let ambiguous = try await StrollBinary.run(["replay", walk, "--places", plist, "--group", "cupertino", "--select", "Starbucks"])
        #expect(ambiguous.status == 64 && ambiguous.stderr.contains("cupertino-"))
        #expect(try await StrollBinary.run(["replay", "/nonexistent.gpx"]).status == 66)
        #expect(try await StrollBinary.run(["replay", walk, "--places", "/nonexistent.json"]).status == 66)
        let bad = try await StrollBinary.run(["replay", fixture("real-traces/togeojson/bad.gpx"), "--format", "jsonl"])
        #expect(bad.status == 65)
        #expect(bad.stdout.contains("\"type\":\"error\"") && bad.stdout.contains("badInput"))
        #expect(try await StrollBinary.run(["replay", walk, "--format", "xml"]).status == 64)
    }

    @Test("--record then --verify passes; a changed walk fails with exit 1 and names the first divergence")
    func golden() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-golden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let golden = dir.appendingPathComponent("golden.json").path
        #expect(try await StrollBinary.run(["replay", walk, "--record", golden, "--format", "jsonl"]).status == 0)
        let ok = try await StrollBinary.run(["replay", walk, "--verify", golden, "--format", "jsonl"])
        #expect(ok.status == 0 && ok.stderr.contains("match"))
        let other = try await StrollBinary.run(["replay", packageRoot.appendingPathComponent("traces/campus-loop.gpx").path, "--verify", golden, "--format", "jsonl"])
        #expect(other.status == 1)
        #expect(other.stderr.contains("verify:") && other.stderr.contains("should be"))
    }

    @Test("--geojson and --gpx write files that parse; the table ends with a summary")
    func outputs() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let geo = dir.appendingPathComponent("run.geojson").path, gpx = dir.appendingPathComponent("run.gpx").path
        let run = try await StrollBinary.run(["replay", walk, "--geojson", geo, "--gpx", gpx])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Summary:"))
        let object = try #require(try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: geo))) as? [String: Any])
        let features = try #require(object["features"] as? [[String: Any]])
        let kinds = Set(features.compactMap { ($0["properties"] as? [String: Any])?["kind"] as? String })
        #expect(kinds == ["trace", "fix", "place", "nearest-change"])
        let gpxText = try String(contentsOfFile: gpx, encoding: .utf8)
        #expect(gpxText.components(separatedBy: "<trkpt").count - 1 == 49)
    }

    @Test("--state remembers the selection across runs; a corrupt state file warns and starts fresh")
    func state() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let state = dir.appendingPathComponent("state.json").path
        _ = try await StrollBinary.run(["replay", walk, "--select", "Tabac", "--state", state, "--format", "jsonl"])
        let again = try await StrollBinary.run(["replay", walk, "--state", state, "--format", "jsonl"])
        #expect(try jsonLines(again.stdout).contains { $0["type"] as? String == "map" && $0["selected"] as? String == "liverpool-7" })
        try Data("{corrupt".utf8).write(to: URL(fileURLWithPath: state))
        let fresh = try await StrollBinary.run(["replay", walk, "--state", state, "--format", "jsonl"])
        #expect(fresh.status == 0 && fresh.stderr.contains("warning"))
    }

    @Test("regions from GeoJSON give enter and exit events")
    func regions() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-regions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("regions.geojson").path
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-2.9738644,53.4075]},"properties":{"id":"copperas","radius":60}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        let run = try await StrollBinary.run(["replay", walk, "--regions", file, "--format", "jsonl"])
        let regionEvents = try jsonLines(run.stdout).filter { $0["type"] as? String == "region" }
        #expect(regionEvents.map { $0["event"] as? String } == ["enter", "exit"])
    }

    @Test("stroll with no arguments replays the bundled walk")
    func noArguments() async throws {
        let run = try await StrollBinary.run([])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("Replaying lime-street-to-campus.gpx against 24 places (liverpool, lecture-theatres)"))
    }

    @Test("--noise gauss-markov with --debug-truth: each location event carries the error applied, the same for the same seed; bad noise options are usage errors")
    func gaussMarkov() async throws {
        let args = ["replay", "--noise", "gauss-markov", "--noise-tau", "30", "--seed", "5", "--debug-truth", "--distance-filter", "none", "--format", "jsonl"]
        let run = try await StrollBinary.run(args)
        #expect(run.status == 0, "\(run.stderr)")
        let locations = try run.stdout.split(separator: "\n").compactMap { line -> [String: Any]? in
            let e = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return e?["type"] as? String == "location" ? e : nil
        }
        #expect(!locations.isEmpty && locations.allSatisfy { $0["errorEast"] is Double && $0["errorNorth"] is Double })
        // Correlated: consecutive fixes a second apart have almost the same error (τ 30 s).
        let east = locations.compactMap { $0["errorEast"] as? Double }
        let steps = zip(east, east.dropFirst()).map { abs($1 - $0) }
        let spread = (east.max() ?? 0) - (east.min() ?? 0)
        #expect(spread > 0 && (steps.max() ?? 0) < spread / 2, "steps \(steps.max() ?? 0) m within a spread of \(spread) m")
        #expect(try await StrollBinary.run(args).stdout == run.stdout)
        let plain = try await StrollBinary.run(["replay", "--noise", "gauss-markov", "--format", "jsonl"])
        #expect(!plain.stdout.contains("errorEast"), "without --debug-truth the events are as before")
        for bad in [["--noise-tau", "30"], ["--noise", "gauss-markov", "--noise-tau", "0"], ["--noise", "pink"]] {
            let r = try await StrollBinary.run(["replay"] + bad)
            #expect(r.status == 64 && r.stderr.contains("--noise"), "\(bad): \(r.stderr)")
        }
    }

    @Test("--environment: accuracy, outages and warm-up in the events and the summary, the same bytes for the same seed; --environments from a GeoJSON file; bad environment options and files are refused before any replay")
    func environments() async throws {
        let args = ["replay", "--environment", "urban-canyon", "--seed", "7", "--debug-truth", "--distance-filter", "none", "--format", "jsonl"]
        let run = try await StrollBinary.run(args)
        #expect(run.status == 0, "\(run.stderr)")
        let events = try run.stdout.split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let locations = events.filter { $0["type"] as? String == "location" }
        let accuracies = locations.compactMap { $0["horizontalAccuracy"] as? Double }
        // Warm-up first (a cell fix, then Wi-Fi), then the canyon's accuracy, changing as it goes.
        #expect(accuracies.prefix(3).allSatisfy { $0 == 1414 } && accuracies[3] == 65)
        #expect(Set(accuracies.dropFirst(20)).count > 20)
        #expect(locations.contains { $0["multipath"] as? Bool == true })
        let lost = events.filter { $0["type"] as? String == "error" && $0["code"] as? String == "locationUnknown" }
        let summary = try #require(events.last)
        #expect(summary["outages"] as? Int == lost.count && lost.count > 0)
        #expect((summary["outageFixes"] as? Int ?? 0) >= lost.count)
        #expect(try await StrollBinary.run(args).stdout == run.stdout)
        // The table's summary says what was lost.
        let table = try await StrollBinary.run(["replay", "--environment", "urban-canyon", "--seed", "7"])
        #expect(table.stdout.contains("lost to outages: \(summary["outageFixes"] as? Int ?? -1) fixes in \(lost.count) outages"))

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // The whole bundled walk inside one indoor polygon: the warm-up, then Wi-Fi-like accuracy.
        let good = dir.appendingPathComponent("areas.geojson").path
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"environment":"indoor"},"geometry":{"type":"Polygon","coordinates":[[[-3.0,53.39],[-2.9,53.39],[-2.9,53.42],[-3.0,53.42],[-3.0,53.39]]]}}]}"#.utf8).write(to: URL(fileURLWithPath: good))
        let indoor = try await StrollBinary.run(["replay", "--environments", good, "--seed", "2", "--warm-up", "none", "--distance-filter", "none", "--format", "jsonl"])
        #expect(indoor.status == 0, "\(indoor.stderr)")
        let indoorAccuracy = try indoor.stdout.split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "location" }.compactMap { $0["horizontalAccuracy"] as? Double }
        #expect(!indoorAccuracy.isEmpty && indoorAccuracy.allSatisfy { $0 > 25 && $0 < 200 })

        // The bundled Liverpool areas: the Bold Street walk's coffee stop is inside a café, so every fix
        // delivered while standing there says Wi-Fi-like accuracy, and the walk before it does not.
        let cafe = try await StrollBinary.run(["replay", "traces/bold-street-long-stop.gpx", "--environments", "Fixtures/environments/liverpool.geojson",
                                               "--seed", "7", "--warm-up", "none", "--format", "jsonl"])
        #expect(cafe.status == 0, "\(cafe.stderr)")
        let cafeLocations = try cafe.stdout.split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "location" }
        let standing = cafeLocations.filter { ($0["speed"] as? Double ?? -1) == 0 }.compactMap { $0["horizontalAccuracy"] as? Double }
        let walking = cafeLocations.filter { ($0["speed"] as? Double ?? 0) > 0 }.compactMap { $0["horizontalAccuracy"] as? Double }.sorted()
        #expect(standing.count > 3 && standing.allSatisfy { $0 > 30 }, "\(standing)")
        #expect(walking.count > 10 && walking[walking.count / 2] < 35, "\(walking)")

        let notGeoJSON = dir.appendingPathComponent("bad.geojson").path
        try Data("{\"type\":\"FeatureCollection\"".utf8).write(to: URL(fileURLWithPath: notGeoJSON))
        let noPolygons = dir.appendingPathComponent("empty.geojson").path
        try Data(#"{"type":"FeatureCollection","features":[]}"#.utf8).write(to: URL(fileURLWithPath: noPolygons))
        for (bad, status, says) in [(["--environment", "forest"], 64, "--environment"), (["--environment", "tunnel"], 64, "--environment"),
                                    (["--warm-up", "slow"], 64, "--warm-up"), (["--environment", "urban", "--noise-tau", "-3"], 64, "--noise-tau"),
                                    (["--environment", "urban", "--noise", "gaussian", "--noise-tau", "20"], 64, "--noise-tau"),
                                    (["--environments", notGeoJSON], 65, "not GeoJSON"), (["--environments", noPolygons], 65, "holds no polygons"),
                                    (["--environments", dir.appendingPathComponent("missing.geojson").path], 66, "no such file")] {
            let r = try await StrollBinary.run(["replay", "--format", "jsonl"] + bad)
            #expect(r.status == Int32(status) && r.stderr.contains(says), "\(bad): \(r.status) \(r.stderr)")
            #expect(!r.stdout.contains("\"location\""), "\(bad): nothing replayed")
        }
    }
}
