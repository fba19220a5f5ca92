import Foundation
import Testing
import TestSupport
@testable import Traces

/// What independent tools say of each real trace (Fixtures/real-traces/make_expected.py).
struct Expected: Decodable, Sendable {
    let tracks: Int
    let segments: Int
    let pointsPerSegment: [Int]
    let routes: Int
    let routePoints: Int
    let waypoints: Int
    let timedPoints: Int
    let firstTime: String?
    let lastTime: String?
    let length_m: Double
    let rejectedLines: [Int]

    static let all: [String: Expected] = {
        guard let data = FileManager.default.contents(atPath: fixture("real-traces/expected.json")) else { return [:] }
        return (try? JSONDecoder().decode([String: Expected].self, from: data)) ?? [:]
    }()
}

@Suite("Real traces read as independent tools read them")
struct RealTraceTests {
    static let files = Expected.all.keys.sorted()

    @Test("the expectations cover every real trace")
    func coverage() throws {
        #expect(Self.files.count == 17)
    }

    @Test("counts, times, lengths and rejections agree", arguments: files)
    func agrees(file: String) throws {
        let expected = try #require(Expected.all[file])
        let trace = try TraceReader.read(fixture("real-traces/" + file))
        let stats = TraceStatistics(trace)
        #expect(stats.tracks == expected.tracks)
        #expect(stats.segments == expected.segments)
        #expect(stats.pointsPerSegment == expected.pointsPerSegment)
        #expect(stats.routes == expected.routes)
        #expect(stats.routePoints == expected.routePoints)
        #expect(stats.waypoints == expected.waypoints)
        #expect(trace.tracks.flatMap(\.segments).flatMap(\.fixes).filter { $0.time != nil }.count == expected.timedPoints)
        #expect(abs(stats.length - expected.length_m) < 1e-6, "\(stats.length) vs \(expected.length_m)")
        func seconds(_ s: String?) -> Double? { s.flatMap { ISO8601Time.parse($0)?.seconds } }
        if let want = seconds(expected.firstTime), let got = stats.firstTime {
            #expect(abs(want - got) <= 0.001)
        } else {
            #expect(stats.firstTime == nil && expected.firstTime == nil)
        }
        if let want = seconds(expected.lastTime), let got = stats.lastTime {
            #expect(abs(want - got) <= 0.001)
        } else {
            #expect(stats.lastTime == nil && expected.lastTime == nil)
        }
        #expect(stats.rejected.map(\.line) == expected.rejectedLines)
    }

    @Test("streamed statistics equal those of the trace loaded whole", arguments: files)
    func streamedStatistics(file: String) throws {
        let path = fixture("real-traces/" + file)
        var streamed = try TraceStatistics.read(path)
        let whole = TraceStatistics(try TraceReader.read(path))
        // A reversed file sums its length in the other order: equal to rounding.
        #expect(abs(streamed.length - whole.length) < 1e-6)
        streamed.length = whole.length
        #expect(abs((streamed.movingTime ?? 0) - (whole.movingTime ?? 0)) < 1e-6)
        streamed.movingTime = whole.movingTime
        #expect(streamed == whole)
    }

    @Test("bad.gpx: every point is rejected with its line and why")
    func badGPX() throws {
        let trace = try TraceReader.read(fixture("real-traces/togeojson/bad.gpx"))
        #expect(trace.rejected == [
            Rejection(line: 5, reason: "latitude \"undefined\" is not a number"),
            Rejection(line: 8, reason: "latitude \"undefined\" is not a number"),
            Rejection(line: 13, reason: "latitude \"undefined\" is not a number"),
            Rejection(line: 14, reason: "latitude \"y\" is not a number"),
            Rejection(line: 18, reason: "latitude \"undefined\" is not a number"),
        ])
        #expect(trace.replaySegments.isEmpty)
    }

    @Test("an empty segment is kept as empty, not an error")
    func emptySegment() throws {
        let trace = try TraceReader.read(fixture("real-traces/gpxpy/track-with-empty-segment.gpx"))
        #expect(trace.tracks[0].segments.map(\.fixes.count) == [9, 0])
        #expect(trace.rejected.isEmpty)
        let empty = try TraceReader.read(fixture("real-traces/togeojson/empty_trk.gpx"))
        #expect(empty.tracks.count == 1 && empty.tracks[0].segments.count == 1 && empty.tracks[0].segments[0].fixes.isEmpty)
    }

    @Test("osm.gpx keeps its points without times")
    func osmUntimed() throws {
        let trace = try TraceReader.read(fixture("real-traces/togeojson/osm.gpx"))
        let fixes = trace.tracks.flatMap(\.segments).flatMap(\.fixes)
        #expect(fixes.count == 420)
        #expect(fixes.filter { $0.time == nil }.count == 245)
    }

    @Test("Apple Health extensions give speed, course and accuracies")
    func appleHealth() throws {
        let trace = try TraceReader.read(fixture("real-traces/togeojson/apple_watch_route.gpx"))
        let first = try #require(trace.tracks.first?.segments.first?.fixes.first)
        #expect(first.coordinate.latitude == 32.064999 && first.coordinate.longitude == -81.097216)
        #expect(first.elevation == 14.601502)
        #expect(first.speed == 1.310662)
        #expect(first.course == 101.747269)
        #expect(first.horizontalAccuracy == 1.801682)
        #expect(first.verticalAccuracy == 1.189247)
        #expect(first.time.map(ISO8601Time.format) == "2019-12-15T20:19:55Z")
        #expect(first.line == 9)
    }

    @Test("GPX 1.0 fields: speed, course, hdop, vdop, pdop, sat, fix")
    func gpx10Fields() throws {
        let trace = try TraceReader.read(fixture("real-traces/gpxpy/gpx1.0_with_all_fields.gpx"))
        let wpt = trace.waypoints[0]
        #expect(wpt.elevation == 75.1 && wpt.hdop == 6 && wpt.vdop == 7 && wpt.pdop == 8 && wpt.satellites == 5 && wpt.fixType == "2d")
        #expect(wpt.name == "example name")
        let trkpt = try #require(trace.tracks.first?.segments.first?.fixes.first)
        #expect(trkpt.fixType == "3d" && trkpt.satellites == 100 && trkpt.hdop == 101 && trkpt.vdop == 102 && trkpt.pdop == 103)
        #expect(trkpt.elevation == 11.1 && trkpt.name == "example name t")
        // <time>2013-01-01T12:00:04</time> has no zone: read as UTC and flagged.
        #expect(trkpt.timeWasZoneless && trkpt.time.map(ISO8601Time.format) == "2013-01-01T12:00:04Z")
        #expect(trace.name == "example name" && trace.description == "example description")
        #expect(trace.routes.map(\.name) == ["example name", "second route"])
        #expect(trace.tracks[0].name == "example name t")
    }

    @Test("a UTF-8 byte-order mark, no namespace, a tenth of a second")
    func bom() throws {
        let trace = try TraceReader.read(fixture("real-traces/gpxpy/unicode_with_bom.gpx"))
        #expect(trace.waypoints.count == 1)
        #expect(trace.waypoints[0].name == "test")
        #expect(trace.waypoints[0].time.map(ISO8601Time.format) == "2016-05-27T10:08:47.8Z")
        #expect(trace.waypoints[0].elevation == -14.6 && trace.waypoints[0].fixType == nil)
    }

    @Test("the Google location-history CSV (newest first) is reversed with a note")
    func googleCSV() throws {
        let trace = try TraceReader.read(fixture("real-traces/trackintel/google_trajectory.csv"))
        let fixes = trace.tracks[0].segments[0].fixes
        #expect(fixes.count == 416)
        #expect(trace.rejected.isEmpty)
        #expect(trace.notes.contains { $0.contains("reversed") })
        #expect(fixes.first?.line == 417 && fixes.last?.line == 2)
        #expect(fixes.last?.coordinate.latitude == 47.3766094)
        #expect(fixes.last?.horizontalAccuracy == 20)
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { ($0.time ?? 0) <= ($1.time ?? 0) })
    }

    @Test("the POSMO CSV: longitude first, nanosecond zone-less times, backward rows rejected")
    func posmoCSV() throws {
        let trace = try TraceReader.read(fixture("real-traces/trackintel/posmo_trajectory.csv"))
        let fixes = trace.tracks[0].segments[0].fixes
        #expect(fixes.first?.coordinate.longitude == 7.0389004 && fixes.first?.coordinate.latitude == 47.0516249)
        #expect(fixes.first?.timeWasZoneless == true)
        #expect(fixes.first?.horizontalAccuracy == nil, "accuracy 0.0 means unknown")
        #expect(trace.notes.contains { $0.contains("UTC") })
        #expect(trace.rejected.first == Rejection(line: 61, reason: "time 2019-01-25T20:03:25.865Z is before the previous row's 2019-01-25T20:03:26Z"))
    }
}
