import Foundation
import Testing
import TestSupport
@testable import Traces

@Suite("GPX reader")
struct GPXReaderTests {
    @Test("namespace prefixes, Garmin TrackPointExtension, comments, CDATA, no XML declaration")
    func prefixedAndExtensions() throws {
        let trace = try readGPX("""
        <gpx:gpx xmlns:gpx="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
          <!-- a comment with <trkpt> inside -->
          <gpx:trk><gpx:name><![CDATA[Walk & <talk>]]></gpx:name><gpx:trkseg>
            <gpx:trkpt lat='53.4' lon="-2.97"><gpx:time>2024-05-01T09:00:00+01:00</gpx:time>
              <gpx:extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>1.5</gpxtpx:speed><gpxtpx:course>270</gpxtpx:course></gpxtpx:TrackPointExtension></gpx:extensions>
            </gpx:trkpt>
          </gpx:trkseg></gpx:trk>
        </gpx:gpx>
        """)
        let fix = try #require(trace.tracks.first?.segments.first?.fixes.first)
        #expect(trace.tracks[0].name == "Walk & <talk>")
        #expect(fix.speed == 1.5 && fix.course == 270)
        #expect(fix.time.map(ISO8601Time.format) == "2024-05-01T08:00:00Z")
        #expect(fix.line == 4)
    }

    @Test("GPX 1.0 speed and course elements")
    func gpx10SpeedCourse() throws {
        let trace = try readGPX("""
        <?xml version="1.0"?>
        <gpx version="1.0" xmlns="http://www.topografix.com/GPX/1/0"><trk><trkseg>
        <trkpt lat="1" lon="2"><speed>3.5</speed><course>45.5</course></trkpt>
        </trkseg></trk></gpx>
        """)
        let fix = try #require(trace.tracks.first?.segments.first?.fixes.first)
        #expect(fix.speed == 3.5 && fix.course == 45.5)
    }

    @Test("a file declared ISO-8859-1 is transcoded")
    func latin1() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx><wpt lat=\"1\" lon=\"2\"><name>Caf".utf8)
        bytes.append(0xE9)
        bytes += Array("</name></wpt></gpx>".utf8)
        let trace = try TraceReader.read(bytes: Data(bytes), name: "latin1.gpx", format: .gpx)
        #expect(trace.waypoints.first?.name == "Café")
    }

    @Test("bad values reject their point with line and reason; the rest reads", arguments: [
        ("lat=\"91.38\" lon=\"0\"", "latitude 91.38 is outside [-90, 90]"),
        ("lat=\"0\" lon=\"180.88\"", "longitude 180.88 is outside [-180, 180]"),
        ("lat=\"NaN\" lon=\"0\"", "latitude \"NaN\" is not a number"),
        ("lat=\"1e309\" lon=\"0\"", "latitude inf is not a finite number"),
        ("lon=\"0\"", "trkpt has no lat attribute"),
        ("lat=\"1\" lon=\"2\"><time>yesterday</time", "time \"yesterday\" is not an ISO 8601 date-time"),
        ("lat=\"1\" lon=\"2\"><ele>bad data</ele", "ele \"bad data\" is not a number"),
        ("lat=\"1\" lon=\"2\"><time>2024-02-30T00:00:00Z</time", "time \"2024-02-30T00:00:00Z\" is not an ISO 8601 date-time"),
    ])
    func rejectsPoint(attributes: String, reason: String) throws {
        let trace = try readGPX("""
        <gpx><trk><trkseg>
        <trkpt lat="53.4" lon="-2.9"/>
        <trkpt \(attributes)></trkpt>
        <trkpt lat="53.5" lon="-2.9"/>
        </trkseg></trk></gpx>
        """)
        #expect(trace.rejected == [Rejection(line: 3, reason: reason)])
        #expect(trace.tracks[0].segments[0].fixes.map(\.line) == [2, 4])
    }

    @Test("a backward time rejects its point; equal times are kept; years 0 and 9999 read")
    func backwardTimes() throws {
        let trace = try readGPX("""
        <gpx><trk><trkseg>
        <trkpt lat="1" lon="1"><time>2024-01-01T00:00:10Z</time></trkpt>
        <trkpt lat="1" lon="1"><time>2024-01-01T00:00:10Z</time></trkpt>
        <trkpt lat="1" lon="1"><time>2024-01-01T00:00:05Z</time></trkpt>
        <trkpt lat="1" lon="1"><time>9999-12-31T23:59:59Z</time></trkpt>
        </trkseg></trk><wpt lat="0" lon="0"><time>0000-01-01T00:00:00Z</time></wpt></gpx>
        """)
        #expect(trace.tracks[0].segments[0].fixes.map(\.line) == [2, 3, 5])
        #expect(trace.rejected.map(\.line) == [4])
        #expect(trace.rejected[0].reason.contains("before the previous point"))
        #expect(trace.waypoints[0].time.map(ISO8601Time.format) == "0000-01-01T00:00:00Z")
    }

    @Test("malformed files name file, line and column", arguments: [
        ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\">", 1, "ends before"),
        ("<gpx>\n<trk></trkseg></gpx>", 2, "does not match"),
        ("this is not xml", 1, "not XML"),
        ("{\"type\": \"FeatureCollection\"}", 1, "not XML"),
        ("<kml></kml>", 1, "not a GPX file"),
        ("<gpx><wpt lat=1 lon=2/></gpx>", 1, "not quoted"),
        ("<gpx>&nbsp;</gpx>", 1, "undefined entity"),
        ("<gpx></gpx><gpx></gpx>", 1, "after the end"),
        ("", 1, "no XML element"),
    ])
    func malformed(text: String, line: Int, fragment: String) {
        let error = readError { () throws(TraceError) in try readGPX(text, name: "bad.gpx") }
        #expect(error?.file == "bad.gpx")
        #expect(error?.line == line)
        #expect(error?.column ?? 0 >= 1)
        #expect(error?.reason.contains(fragment) == true, "\(String(describing: error))")
        #expect(error?.kind == .malformed)
    }

    @Test("invalid UTF-8 and NUL bytes are errors at their line and column")
    func invalidBytes() {
        var bytes = Array("<gpx>\n<wpt lat=\"1\" lon=\"2\"><name>ab".utf8)
        bytes.append(0xFF)
        bytes += Array("</name></wpt></gpx>".utf8)
        let error = readError { () throws(TraceError) in try TraceReader.read(bytes: Data(bytes), name: "u.gpx", format: .gpx) }
        #expect(error?.description == "u.gpx:2:30: invalid UTF-8 byte 0xFF")
        let nul = readError { () throws(TraceError) in try readGPX("<gpx>\u{0}</gpx>") }
        #expect(nul?.reason.contains("NUL") == true && nul?.column == 6)
    }

    @Test("billion laughs and external entities are refused before anything is expanded or read")
    func entities() {
        let laughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
         <!ENTITY lol "lol">
         <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
         <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
        ]>
        <gpx><wpt lat="1" lon="2"><name>&lol3;</name></wpt></gpx>
        """
        let e1 = readError { () throws(TraceError) in try readGPX(laughs) }
        #expect(e1?.line == 3 && e1?.reason.contains("entity declarations are refused") == true)
        let external = """
        <?xml version="1.0"?>
        <!DOCTYPE gpx [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
        <gpx><wpt lat="1" lon="2"><name>&xxe;</name></wpt></gpx>
        """
        let e2 = readError { () throws(TraceError) in try readGPX(external) }
        #expect(e2?.line == 2 && e2?.reason.contains("entity declarations are refused") == true)
        // A DOCTYPE without declarations is harmless and skipped.
        #expect(throws: Never.self) { try readGPX("<!DOCTYPE gpx>\n<gpx><wpt lat=\"1\" lon=\"2\"/></gpx>") }
    }

    @Test("deep nesting is refused, not recursed into")
    func deepNesting() {
        let text = "<gpx>" + String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000) + "</gpx>"
        let error = readError { () throws(TraceError) in try readGPX(text) }
        #expect(error?.reason.contains("nested deeper") == true)
    }

    @Test("a well-formed file with no points reads as empty")
    func emptyGPX() throws {
        let trace = try readGPX("<?xml version=\"1.0\"?><gpx version=\"1.1\"/>")
        #expect(trace.tracks.isEmpty && trace.routes.isEmpty && trace.waypoints.isEmpty && trace.rejected.isEmpty)
        #expect(trace.replaySegments.isEmpty)
    }

    @Test("missing files and directories are unreadable, not malformed")
    func unreadable() {
        let missing = readError { () throws(TraceError) in try TraceReader.read("/nonexistent/walk.gpx") }
        #expect(missing?.kind == .unreadable && missing?.reason == "no such file")
        let directory = readError { () throws(TraceError) in try TraceReader.read(NSTemporaryDirectory()) }
        #expect(directory?.kind == .unreadable && directory?.reason.contains("directory") == true)
    }

    @Test("streaming yields the same points as loading whole")
    func streamingMatchesLoading() throws {
        let path = fixture("real-traces/gpxpy/korita-zbevnica.gpx")
        var stream = try TraceReader.stream(path)
        var streamed: [Fix] = []
        while let event = try stream.next() {
            if case .trackPoint(let fix) = event { streamed.append(fix) }
        }
        let loaded = try TraceReader.read(path).tracks.flatMap(\.segments).flatMap(\.fixes)
        #expect(streamed == loaded)
        #expect(streamed.count == 871)
    }
}
