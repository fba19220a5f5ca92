import Foundation
import Geodesy
import Proximity
import Replay
import StrollTesting
import Synchronization
import Testing
import TestSupport
import Traces

func coffeeHouses() throws -> PlaceSet { try PlaceSet.load(fixture("CityCycleRideLocations.plist")) }

func replay(_ walk: String, places: PlaceSet) throws -> Replay {
    var configuration = ReplayConfiguration()
    configuration.groups = ["liverpool"]
    return try Replay(trace: try TraceReader.read(path(walk)), places: places, configuration: configuration)
}

func recording(_ walk: String, places: PlaceSet) throws -> ReplayRecording {
    ReplayRecording(try replay(walk, places: places))
}

/// An empty scratch folder for goldens.
func scratchFolder() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-golden-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.path
}

/// The issues an assertion recorded, caught as known issues and kept for a look.
final class CaughtIssues: Sendable {
    let issues = Mutex<[(line: Int?, text: String)]>([])
    func add(_ issue: Issue) {
        let text = issue.comments.map(\.rawValue).joined(separator: "\n")
        issues.withLock { $0.append((issue.sourceLocation?.line, text)) }
    }
    var all: [(line: Int?, text: String)] { issues.withLock { $0 } }
}

@Suite("StrollTesting: golden timelines as snapshot tests, and questions that cannot miss")
struct GoldenTests {
    let walk = "traces/lime-street-to-campus.gpx"

    @Test("the Lime Street walk matches its golden timeline, kept beside this test")
    func bundledGolden() throws {
        #expect(expectGolden(try recording(walk, places: try coffeeHouses()), named: "lime-street-to-campus", record: .never))
    }

    @Test("the record modes: missing records once then compares, never refuses to write, all always writes, failed writes a mismatch anew")
    func recordModes() throws {
        let folder = try scratchFolder()
        let run = try recording(walk, places: try coffeeHouses())
        let file = folder + "/walk.json"
        #expect(checkGolden(run, named: "walk", record: .never, in: folder) == .missing(path: file))
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(checkGolden(run, named: "walk", record: .missing, in: folder) == .recorded(path: file))
        #expect(checkGolden(run, named: "walk", record: .missing, in: folder) == .matched)
        #expect(checkGolden(run, named: "walk", record: .never, in: folder) == .matched)
        #expect(checkGolden(run, named: "walk", record: .all, in: folder) == .recorded(path: file))
        // A place moved: failed reports the mismatch and writes the new golden, which then matches.
        var places = try coffeeHouses()
        let k = try #require(places.places.firstIndex { $0.name == "Tabac" })
        places.places[k].coordinate = Geodesic.wgs84.direct(from: places.places[k].coordinate, azimuth: 90, distance: 30).coordinate
        let moved = try recording(walk, places: places)
        guard case .mismatched = checkGolden(moved, named: "walk", record: .never, in: folder) else { Issue.record("a moved place went unnoticed"); return }
        guard case .mismatched = checkGolden(moved, named: "walk", record: .failed, in: folder) else { Issue.record("failed did not report"); return }
        #expect(checkGolden(moved, named: "walk", record: .never, in: folder) == .matched)
    }

    @Test("the mode comes from the call, else the trait, else STROLL_RECORD, else missing")
    func modeResolution() {
        #expect(GoldenRecordMode.resolved(nil, environment: [:]) == .missing)
        #expect(GoldenRecordMode.resolved(nil, environment: ["STROLL_RECORD": "failed"]) == .failed)
        #expect(GoldenRecordMode.resolved(nil, environment: ["STROLL_RECORD": "1"]) == .all)
        #expect(GoldenRecordMode.resolved(.never, environment: ["STROLL_RECORD": "all"]) == .never)
        GoldenRecordMode.$scoped.withValue(.all) {
            #expect(GoldenRecordMode.resolved(nil, environment: ["STROLL_RECORD": "never"]) == .all)
        }
    }

    @Test("a suite or test trait sets the mode of every assertion in it", .goldens(record: .never))
    func trait() throws {
        #expect(GoldenRecordMode.resolved(nil, environment: [:]) == .never)
        let folder = try scratchFolder()
        #expect(checkGolden(try recording(walk, places: try coffeeHouses()), named: "walk", in: folder) == .missing(path: folder + "/walk.json"))
    }

    @Test("a mismatch is one issue at the assertion's line, the differing rows side by side with names, ids and times")
    func mismatchIssue() throws {
        let folder = try scratchFolder()
        #expect(checkGolden(try recording(walk, places: try coffeeHouses()), named: "walk", in: folder) == .recorded(path: folder + "/walk.json"))
        var places = try coffeeHouses()
        let k = try #require(places.places.firstIndex { $0.name == "Tabac" })
        places.places[k].coordinate = Geodesic.wgs84.direct(from: places.places[k].coordinate, azimuth: 90, distance: 30).coordinate
        let moved = try recording(walk, places: places)
        let caught = CaughtIssues()
        var line = 0
        var matched = true
        withKnownIssue {
            line = #line + 1
            matched = expectGolden(moved, named: "walk", in: folder)
        } matching: { issue in
            caught.add(issue)
            return true
        }
        #expect(!matched)
        let issues = caught.all
        #expect(issues.count == 1)
        let text = try #require(issues.first?.text)
        #expect(issues.first?.line == line, "the issue stands at the assertion")
        #expect(text.contains("expected: liverpool at t=") && text.contains("actual: liverpool at t="), "\(text)")
        #expect(text.contains("Tabac (liverpool-") && text.contains("≠") && text.contains("fix 53."), "\(text)")
        print(text)
    }

    @Test("a first recording is reported once, saying where it wrote and the exclude: line")
    func firstRecording() throws {
        let folder = try scratchFolder()
        let caught = CaughtIssues()
        let run = try recording(walk, places: try coffeeHouses())
        withKnownIssue {
            expectGolden(run, named: "first", record: .missing, in: folder)
        } matching: { issue in
            caught.add(issue)
            return true
        }
        #expect(caught.all.count == 1)
        let text = caught.all.first?.text ?? ""
        #expect(text.contains("Recorded the golden timeline first at \(folder)/first.json") && text.contains(#"exclude: ["__Goldens__"]"#), "\(text)")
        // The file keeps each change's names beside its ids.
        let written = try GoldenTimeline.read(folder + "/first.json")
        let entry = try #require(written.entries.first)
        #expect(entry.names?.count == entry.order.count)
        #expect(entry.names?.first == "Leaf")
    }

    @Test("requireGolden stops the test at its line; the issue is recorded once, where it stands")
    func require() throws {
        let folder = try scratchFolder()
        let caught = CaughtIssues()
        let run = try recording(walk, places: try coffeeHouses())
        var line = 0
        try withKnownIssue {
            line = #line + 1
            try requireGolden(run, named: "walk", record: .never, in: folder)
            Issue.record("requireGolden did not stop the test")
        } matching: { issue in
            caught.add(issue)
            return true
        }
        #expect(caught.all.count == 1, "\(caught.all)")
        #expect(caught.all.first?.text.contains("No golden timeline walk") == true && caught.all.first?.text.contains("STROLL_RECORD=missing") == true)
        #expect(caught.all.first?.line == line)
    }

    @Test("a corrupt or older golden is an issue naming it and saying to record anew, never a pass")
    func corruptGolden() throws {
        let folder = try scratchFolder()
        let run = try recording(walk, places: try coffeeHouses())
        for text in ["{\"about\": \"x\", \"entries\": [{\"t\": \"soon\"}]}", "not json", "{}"] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/walk.json"))
            let outcome = checkGolden(run, named: "walk", record: .missing, in: folder)
            guard case .unreadable(let path, _) = outcome else { Issue.record("\(text): \(outcome)"); continue }
            #expect(path == folder + "/walk.json")
            #expect(goldenMessage(outcome, named: "walk")?.contains("record it anew with STROLL_RECORD=all") == true)
        }
    }

    @Test("questions with a mistyped group or id are answered with the known names")
    func mistyped() throws {
        let run = try recording(walk, places: try coffeeHouses())
        #expect(throws: RecordingQueryError(description: "no group \"Liverpool\" in this replay; its groups are: liverpool")) {
            try run.nearestChanges(group: "Liverpool")
        }
        do {
            _ = try run.place("liverpool-99")
            Issue.record("an unknown id was answered")
        } catch {
            #expect(error.description.hasPrefix("no place with id \"liverpool-99\" in this replay; its ids are: liverpool-0, liverpool-1"), "\(error)")
        }
        #expect(throws: RecordingQueryError.self) { try run.firstTime("liverpool-1", movesAbove: "liverpool-2", group: "cupertino") }
        #expect(throws: (any Error).self) { try PlaceSet.load(fixture("CityCycleRideLocations.plist")).places(inGroups: ["Liverpool"]) }
    }

    @Test("questions a test asks: the nearest at a time, every change of the nearest, when one place overtakes another")
    func questions() throws {
        let run = try recording(walk, places: try coffeeHouses())
        let leaf = try run.place(named: "Leaf"), costa = try run.place(named: "Costa Coffee")
        #expect(leaf.group == "liverpool")
        #expect(try run.nearest(at: 0, group: "liverpool") == leaf)
        let changes = try run.nearestChanges(group: "liverpool")
        #expect(changes.first?.place == leaf && changes.last?.place == costa)
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.place != $1.place && $0.t < $1.t })
        let overtakes = try #require(try run.firstTime(costa.id, movesAbove: leaf.id, group: "liverpool"))
        #expect(try run.nearest(at: overtakes, group: "liverpool") != nil)
        let before = try #require(try run.rankings(group: "liverpool").last { $0.t < overtakes }).update.order
        let after = try #require(try run.rankings(group: "liverpool").first { $0.t == overtakes }).update.order
        let costaBefore = try #require(before.firstIndex(of: costa.id)), leafBefore = try #require(before.firstIndex(of: leaf.id))
        let costaAfter = try #require(after.firstIndex(of: costa.id)), leafAfter = try #require(after.firstIndex(of: leaf.id))
        #expect(costaBefore > leafBefore && costaAfter < leafAfter)
    }

    @Test("recording a replay in place leaves it as running it would; recording a copy leaves it as made")
    func recordingInPlace() throws {
        var original = try replay(walk, places: try coffeeHouses())
        let copied = ReplayRecording(original)
        #expect(original.rankingChanges == 0)
        let run = ReplayRecording(replaying: &original)
        #expect(original.rankingChanges == run.golden.entries.count)
        #expect(run.summary?.rankingChanges == run.golden.entries.count)
        #expect(copied.golden == run.golden)
        #expect(run.golden.entries.count == 37)
    }
}
