import Foundation
import Geodesy
import LocationSimulation
import Proximity
import Replay
import Testing
import TestSupport
import Traces

@Suite("The Replay library is what the command runs")
struct ReplayLibraryTests {
    let walk = path("traces/pier-head-to-guild.gpx")

    func bundledPlaces() throws -> PlaceSet {
        var places = try PlaceSet.load(fixture("CityCycleRideLocations.plist"))
        places.merge(try PlaceSet.load(fixture("lecture-theatres.json")))
        return places
    }

    @Test("a Replay gives exactly the JSON lines `stroll replay --format jsonl` prints, options included")
    func sameLines() async throws {
        var configuration = ReplayConfiguration()
        configuration.groups = ["liverpool", "lecture-theatres"]
        configuration.select = "Leaf"
        configuration.follow = true
        configuration.sensor = SensorOptions(noise: .gaussian, seed: 7)
        var replay = try Replay(trace: try TraceReader.read(walk), places: try bundledPlaces(), configuration: configuration)
        let lines = replay.run().map(\.jsonLine)
        let run = try await StrollBinary.run(["replay", walk, "--select", "Leaf", "--follow", "--noise", "gaussian", "--seed", "7", "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let printed = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == printed.count)
        #expect(lines == printed)
    }

    @Test("--sort name lists places alphabetically on every fix; the nearest is still reported")
    func sortByName() async throws {
        let run = try await StrollBinary.run(["replay", walk, "--group", "liverpool", "--sort", "name", "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let rankings = try jsonLines(run.stdout).filter { $0["type"] as? String == "ranking" }
        #expect(!rankings.isEmpty)
        for r in rankings {
            let names = try #require(r["names"] as? [String])
            let ids = try #require(r["order"] as? [String])
            let sorted = zip(names, ids).sorted { ProximityEngine.scalarLess($0.0, $1.0) || ($0.0 == $1.0 && ProximityEngine.scalarLess($0.1, $1.1)) }
            #expect(sorted.map(\.1) == ids)
            #expect(r["nearest"] is String)
        }
        // Alphabetical order does not depend on the walker: only the first ranking changes the list.
        #expect(rankings.filter { $0["changed"] as? Bool == true }.count == 1)
        let byDistance = try jsonLines(try await StrollBinary.run(["replay", walk, "--group", "liverpool", "--format", "jsonl"]).stdout)
        let nearest = { (events: [[String: Any]]) in events.filter { $0["type"] as? String == "ranking" }.compactMap { $0["nearest"] as? String } }
        #expect(nearest(rankings) == nearest(byDistance))
    }

    @Test("--sort is remembered by --state, and an explicit --sort wins over it")
    func sortRemembered() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-state-\(UUID().uuidString).json").path
        #expect(try await StrollBinary.run(["replay", walk, "--sort", "name", "--state", state, "--format", "jsonl"]).status == 0)
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) as? [String: Any])
        #expect(saved["sortMode"] as? String == "name")
        func firstNames(_ arguments: [String]) async throws -> [String] {
            let run = try await StrollBinary.run(["replay", walk, "--group", "liverpool", "--format", "jsonl"] + arguments)
            return try #require(try jsonLines(run.stdout).first { $0["type"] as? String == "ranking" }?["names"] as? [String])
        }
        let remembered = try await firstNames(["--state", state])
        #expect(remembered == remembered.sorted { ProximityEngine.scalarLess($0, $1) })
        let overridden = try await firstNames(["--state", state, "--sort", "distance"])
        #expect(overridden != remembered)
        #expect(try await StrollBinary.run(["replay", walk, "--sort", "height"]).status == 64)
    }

    @Test("--within keeps only places within the radius: those that leave are deleted, those that come back inserted")
    func within() async throws {
        let run = try await StrollBinary.run(["replay", walk, "--group", "liverpool", "--within", "500", "--format", "jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        var listed: Set<String> = []
        var deletions = 0, insertions = 0
        for r in try jsonLines(run.stdout) where r["type"] as? String == "ranking" {
            let distances = try #require(r["distances"] as? [Double])
            #expect(distances.allSatisfy { $0 <= 500 })
            let inserted = Set(try #require(r["inserted"] as? [String])), deleted = Set(try #require(r["deleted"] as? [String]))
            if !listed.isEmpty { (deletions, insertions) = (deletions + deleted.count, insertions + inserted.count) }
            listed = listed.subtracting(deleted).union(inserted)
            #expect(listed == Set(try #require(r["order"] as? [String])))
        }
        #expect(deletions > 0 && insertions > 0)
        #expect(try await StrollBinary.run(["replay", walk, "--within", "-3"]).status == 64)
    }
}
