import Foundation
import Testing
import TestSupport
@testable import Traces

/// Fixes compared without the source line, which a rewrite changes.
func sameFixes(_ a: [Fix], _ b: [Fix]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { x, y in
        var x = x, y = y
        x.line = 0
        y.line = 0
        return x == y
    }
}

@Suite("Writers: read, write, read gives an equal trace")
struct RoundTripTests {
    static let gpxFiles = [
        "togeojson/apple_watch_route.gpx", "togeojson/Friday-Evening-Run.gpx", "togeojson/osm.gpx", "togeojson/wpt.gpx",
        "togeojson/trek.gpx", "gpxpy/gpx1.0_with_all_fields.gpx", "gpxpy/korita-zbevnica.gpx", "gpxpy/track-with-empty-segment.gpx",
    ]

    @Test("GPX 1.1", arguments: gpxFiles)
    func gpx(file: String) throws {
        let first = try TraceReader.read(fixture("real-traces/" + file))
        let second = try readGPX(TraceWriter.gpx(first))
        #expect(second.tracks.count == first.tracks.count)
        for (a, b) in zip(first.tracks, second.tracks) {
            #expect(a.name == b.name)
            #expect(a.segments.count == b.segments.count)
            for (s, t) in zip(a.segments, b.segments) { #expect(sameFixes(s.fixes, t.fixes)) }
        }
        #expect(first.routes.map(\.name) == second.routes.map(\.name))
        #expect(sameFixes(first.routes.flatMap(\.points), second.routes.flatMap(\.points)))
        #expect(sameFixes(first.waypoints, second.waypoints))
        #expect(first.name == second.name)
    }

    @Test("CSV", arguments: ["trackintel/google_trajectory.csv", "trackintel/posmo_trajectory.csv", "togeojson/apple_watch_route.gpx"])
    func csv(file: String) throws {
        let first = try TraceReader.read(fixture("real-traces/" + file))
        let second = try readCSV(TraceWriter.csv(first))
        var expected = first.replaySegments.flatMap(\.fixes)
        // CSV carries no DOP, satellite or fix-type columns.
        for i in expected.indices { expected[i].hdop = nil; expected[i].vdop = nil; expected[i].pdop = nil; expected[i].satellites = nil; expected[i].fixType = nil }
        #expect(sameFixes(expected, second.replaySegments.flatMap(\.fixes)))
        #expect(second.rejected.isEmpty)
    }

    @Test("times survive to the microsecond")
    func times() throws {
        for text in ["2019-01-25T20:00:16.178999Z", "2025-05-02T15:51:15.692Z", "1999-12-31T23:59:59Z", "2016-05-27T10:08:47.8Z"] {
            let t = try #require(ISO8601Time.parse(text))
            #expect(ISO8601Time.format(t.seconds) == text)
            #expect(ISO8601Time.parse(ISO8601Time.format(t.seconds))?.seconds == t.seconds)
        }
    }

    @Test("names with markup are escaped")
    func escaping() throws {
        var trace = Trace(format: .gpx, name: "Tom & Jerry's <walk>")
        trace.waypoints = [Fix(coordinate: try .init(latitude: 1, longitude: 2), name: "a \"quoted\" <name> & more")]
        let back = try readGPX(TraceWriter.gpx(trace))
        #expect(back.name == trace.name && back.waypoints.first?.name == trace.waypoints.first?.name)
    }
}
