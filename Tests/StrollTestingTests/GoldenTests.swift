import Foundation
import Geodesy
import Proximity
import Replay
import StrollTesting
import Testing
import TestSupport
import Traces

func coffeeHouses() throws -> PlaceSet { try PlaceSet.load(fixture("CityCycleRideLocations.plist")) }

func recording(_ walk: String, places: PlaceSet) throws -> ReplayRecording {
    var configuration = ReplayConfiguration()
    configuration.groups = ["liverpool"]
    return ReplayRecording(try Replay(trace: try TraceReader.read(path(walk)), places: places, configuration: configuration))
}

/// A scratch test file path whose `__Goldens__` folder is empty.
func scratchTestFile() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-golden-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent("WalkTests.swift").path
}

@Suite("StrollTesting: golden timelines and questions about the list")
struct GoldenTests {
    let walk = "traces/lime-street-to-campus.gpx"

    @Test("the Lime Street walk matches its golden timeline, kept beside this test")
    func bundledGolden() throws {
        try expectGolden(try recording(walk, places: try coffeeHouses()), named: "lime-street-to-campus")
    }

    @Test("a missing golden is recorded and the test is told so; then it compares; STROLL_RECORD=1 records anew")
    func recordMode() throws {
        let file = try scratchTestFile()
        let run = try recording(walk, places: try coffeeHouses())
        #expect(throws: GoldenRecorded.self) { try expectGolden(run, named: "walk", filePath: file) }
        try expectGolden(run, named: "walk", filePath: file)
        #expect(throws: GoldenRecorded.self) { try expectGolden(run, named: "walk", filePath: file, environment: ["STROLL_RECORD": "1"]) }
    }

    @Test("one coffee house moved 30 m: the golden fails with the time, the fix and the rows that differ")
    func movedPlace() throws {
        let file = try scratchTestFile()
        var places = try coffeeHouses()
        #expect(throws: GoldenRecorded.self) { try expectGolden(try recording(walk, places: places), named: "walk", filePath: file) }
        let k = try #require(places.places.firstIndex { $0.name == "Tabac" })
        places.places[k].coordinate = Geodesic.wgs84.direct(from: places.places[k].coordinate, azimuth: 90, distance: 30).coordinate
        let moved = try recording(walk, places: places)
        do {
            try expectGolden(moved, named: "walk", filePath: file)
            Issue.record("a moved place went unnoticed")
        } catch let mismatch as GoldenMismatch {
            let text = mismatch.description
            #expect(text.contains("order change") && text.contains("group liverpool") && text.contains("fix 53."))
            #expect(text.contains("expected") && text.contains("actual") && text.contains("≠") && text.contains("Tabac"))
            print(text)
        }
    }

    @Test("questions a test asks: the nearest at a time, every change of the nearest, when one place overtakes another")
    func questions() throws {
        let run = try recording(walk, places: try coffeeHouses())
        let ids = Dictionary(run.names.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(run.nearest(at: 0, group: "liverpool") == ids["Leaf"])
        let changes = run.nearestChanges(group: "liverpool")
        #expect(changes.first?.id == ids["Leaf"] && changes.last?.id == ids["Costa Coffee"])
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.id != $1.id && $0.t < $1.t })
        let costa = try #require(ids["Costa Coffee"]), leaf = try #require(ids["Leaf"])
        let overtakes = try #require(run.firstTime(costa, movesAbove: leaf, group: "liverpool"))
        #expect(run.nearest(at: overtakes, group: "liverpool") != nil)
        let before = try #require(run.rankings(group: "liverpool").last { $0.t < overtakes }).update.order
        let after = try #require(run.rankings(group: "liverpool").first { $0.t == overtakes }).update.order
        #expect(before.firstIndex(of: costa)! > before.firstIndex(of: leaf)! && after.firstIndex(of: costa)! < after.firstIndex(of: leaf)!)
    }
}
