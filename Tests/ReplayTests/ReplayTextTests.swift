import Foundation
import LocationSimulation
import Proximity
import Replay
import Testing
import TestSupport
import Traces

/// What `stroll replay` prints for people, made without the command line.
@Suite("ReplayText: a replay as text")
struct ReplayTextTests {
    func replay() throws -> Replay {
        var places = try PlaceSet.load(fixture("CityCycleRideLocations.plist"))
        places.merge(try PlaceSet.load(fixture("lecture-theatres.json")))
        var configuration = ReplayConfiguration()
        configuration.groups = ["liverpool", "lecture-theatres"]
        return try Replay(trace: try TraceReader.read(path("traces/lime-street-to-campus.gpx")), places: places, configuration: configuration)
    }

    @Test("each changed list once, headed by its time and group; moved rows marked; the nearest starred; the summary at the end")
    func lines() throws {
        var replay = try replay()
        var text = ReplayText(groups: ["liverpool", "lecture-theatres"], realtime: false, redraw: false)
        #expect(text.begin(trace: "walk.gpx", places: replay.places.count, notes: ["a note"])
                == "Replaying walk.gpx against \(replay.places.count) places (liverpool, lecture-theatres)\n  note: a note")
        var lists: [String] = [], changed = 0, last = ""
        while let event = replay.next() {
            let out = text.render(event)
            #expect(out.standardError == nil)
            if case .ranking(let u, _, _) = event {
                if u.changed { changed += 1 }
                #expect((out.standardOutput != nil) == u.changed)
                if let list = out.standardOutput { lists.append(list) }
            }
            if case .summary = event { last = out.standardOutput ?? "" }
        }
        #expect(lists.count == changed && changed > 2)
        let first = lists[0].split(separator: "\n")
        #expect(first[0].hasPrefix("00:00") && first[0].hasSuffix("liverpool"))
        #expect(first.dropFirst().allSatisfy { !$0.contains("▲") && !$0.contains("▼") })
        #expect(first.filter { $0.hasPrefix("  *") }.count == 1)
        #expect(lists.dropFirst().contains { $0.contains("▲") } && lists.dropFirst().contains { $0.contains("▼") })
        #expect(last.contains("Summary: read") && last.contains("\(replay.rankingChanges) order changes."))
    }

    @Test("redrawn: the screen cleared and drawn once per fix after the last group's list, with the walk's progress")
    func redraw() throws {
        var replay = try replay()
        var text = ReplayText(groups: ["liverpool", "lecture-theatres"], realtime: true, redraw: true)
        text.startTime = replay.startTime
        text.duration = replay.endTime - replay.startTime
        var screens: [String] = [], fixes = 0
        while let event = replay.next() {
            if case .location = event { fixes += 1 }
            if case .summary = event { break }
            if let out = text.render(event).standardOutput { screens.append(out) }
        }
        #expect(screens.count == fixes)
        #expect(screens.allSatisfy { $0.hasPrefix("\u{1B}[H\u{1B}[2J") && $0.contains("liverpool") && $0.contains("lecture-theatres") })
        #expect(screens.last?.hasSuffix("\(fixes) fixes delivered") == true)
        // The groups in the replay's order, as the lists are printed without redrawing and as the HTML page lists them.
        #expect(screens.allSatisfy { screen in
            guard let a = screen.range(of: "  liverpool"), let b = screen.range(of: "  lecture-theatres") else { return false }
            return a.lowerBound < b.lowerBound
        })
    }

    @Test("visits: a line at the arrival and one at the departure; redrawn, the screen keeps the last visit line above the progress")
    func visits() throws {
        var configuration = ReplayConfiguration()
        configuration.groups = ["liverpool"]
        configuration.settings.distanceFilter = distanceFilterNone
        configuration.visits = VisitSettings()
        let places = try PlaceSet.load(fixture("CityCycleRideLocations.plist"))
        let trace = try TraceReader.read(path("traces/bold-street-long-stop.gpx"))
        for redraw in [false, true] {
            var replay = try Replay(trace: trace, places: places, configuration: configuration)
            var text = ReplayText(groups: ["liverpool"], realtime: redraw, redraw: redraw)
            text.startTime = replay.startTime
            var shown: [String] = []
            while let event = replay.next() {
                guard case .visit = event, let out = text.render(event).standardOutput else { _ = text.render(event); continue }
                shown.append(out)
            }
            try #require(shown.count == 2)
            #expect(shown[0].contains("visit arrived 53.4") && !shown[0].contains("left"))
            #expect(shown[1].contains("visit departed 53.4") && shown[1].contains(", left 2024-05-01T"))
            #expect(shown.allSatisfy { $0.contains("since 2024-05-01T") && $0.contains(" m), ") })
            if redraw { #expect(shown.allSatisfy { $0.hasPrefix("\u{1B}[H\u{1B}[2J") && $0.contains("fixes delivered") }) }
        }
    }
}
