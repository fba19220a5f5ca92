import ChildProcess
import Foundation
import Geodesy
import Synchronization
import Testing
import TestSupport
import Traces

/// The real trace files kept in Fixtures/real-traces (provenance in its README).
func shared(_ name: String) -> String { fixture("real-traces/\(name)") }

/// GPSBabel converts `file` (its format name `format`) to GPX; the track points as GPSBabel reads them.
func gpsbabelTrackPoints(_ file: String, format: String) async throws -> [Fix] {
    let out = try temporaryFile(Data(), suffix: ".gpx")
    let run = try await ChildProcess.run("/usr/bin/gpsbabel", ["-i", format, "-f", file, "-o", "gpx", "-F", out])
    try #require(run.status == 0, "gpsbabel: \(run.reason) \(run.stderr)")
    return try TraceReader.read(out).tracks.flatMap(\.segments).flatMap(\.fixes)
}

func trackPoints(_ trace: Trace) -> [Fix] { trace.tracks.flatMap(\.segments).flatMap(\.fixes) }

/// Same points: count, coordinates to 1e-7 degrees, times to the millisecond.
/// Both sides reading nothing would agree on nothing: unless `empty` says the
/// file holds no such points, GPSBabel must have read some.
func agree(_ mine: [Fix], _ theirs: [Fix], _ label: String, empty: Bool = false) {
    #expect(empty ? theirs.isEmpty : !theirs.isEmpty, "\(label): GPSBabel read \(theirs.count) points; \(empty ? "none" : "some") expected")
    #expect(mine.count == theirs.count, "\(label): \(mine.count) points, GPSBabel \(theirs.count)")
    for (k, (a, b)) in zip(mine, theirs).enumerated() {
        #expect(abs(a.coordinate.latitude - b.coordinate.latitude) <= 1e-7 && abs(a.coordinate.longitude - b.coordinate.longitude) <= 1e-7,
                "\(label) point \(k): \(a.coordinate) vs \(b.coordinate)")
        #expect(a.time.map { ($0 * 1000).rounded() } == b.time.map { ($0 * 1000).rounded() }, "\(label) point \(k): times \(String(describing: a.time)) vs \(String(describing: b.time))")
    }
}

/// The agreement helper shown failing: on GPSBabel's own points of a real
/// file, each wrong result a reader could give is an issue it records.
@Suite("The GPSBabel agreement fails on wrong results")
struct GPSBabelAgreementSelfTests {
    @Test("a point 2 cm off, a time 1 s late, a point dropped, and both sides empty each fail it; the same points pass")
    func failsOnWrongResults() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel"), "gpsbabel is missing: `make test` installs it (Debian's gpsbabel)")
        let file = shared("togeojson/Friday-Evening-Run.gpx")
        let theirs = try await gpsbabelTrackPoints(file, format: "gpx")
        try #require(theirs.count > 10)
        agree(theirs, theirs, "the same points")
        var moved = theirs
        moved[5].coordinate = try Coordinate(latitude: moved[5].coordinate.latitude + 2e-7, longitude: moved[5].coordinate.longitude)
        withKnownIssue("a point 2 cm north") { agree(moved, theirs, "moved") }
        var late = theirs
        late[3].time = late[3].time.map { $0 + 1 }
        withKnownIssue("a time a second late") { agree(late, theirs, "late") }
        withKnownIssue("a point dropped") { agree(Array(theirs.dropLast()), theirs, "dropped") }
        withKnownIssue("nothing read on either side") { agree([], [], "empty") }
    }
}

@Suite("Trace formats agree with GPSBabel on real files", .serialized)
struct GPSBabelAgreementTests {
    init() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsbabel"), "gpsbabel is missing: `make test` installs it (Debian's gpsbabel)")
    }

    @Test("KML: gx:Track, LineString, MultiGeometry, Point, a polygon's ring", arguments: ["gxtrack", "linestring", "multigeometry", "point", "timespan"])
    func kml(_ name: String) async throws {
        let file = shared("togeojson/\(name).kml")
        let trace = try TraceReader.read(file)
        #expect(trace.format == .kml)
        // A Point placemark is a waypoint: that file has no track points on either side.
        agree(trackPoints(trace), try await gpsbabelTrackPoints(file, format: "kml"), name, empty: name == "point")
    }

    @Test("KML waypoints: the Point placemark with its name")
    func kmlPoint() async throws {
        let trace = try TraceReader.read(shared("togeojson/point.kml"))
        let out = try temporaryFile(Data(), suffix: ".gpx")
        _ = try await ChildProcess.run("/usr/bin/gpsbabel", ["-i", "kml", "-f", shared("togeojson/point.kml"), "-o", "gpx", "-F", out])
        let theirs = try TraceReader.read(out).waypoints
        #expect(trace.waypoints.count == theirs.count && trace.waypoints.count == 1)
        #expect(trace.waypoints.first?.name == theirs.first?.name)
        agree(trace.waypoints, theirs, "point.kml waypoints")
    }

    @Test("TCX: Garmin Connect and a sample activity", arguments: ["garmin_connect", "sample"])
    func tcx(_ name: String) async throws {
        let file = shared("togeojson/\(name).tcx")
        let trace = try TraceReader.read(file)
        #expect(trace.format == .tcx)
        agree(trackPoints(trace), try await gpsbabelTrackPoints(file, format: "gtrnctr"), name)
    }

    @Test("GPX: real exports", arguments: ["togeojson/osm.gpx", "togeojson/apple_watch_route.gpx", "gpxpy/korita-zbevnica.gpx"])
    func gpx(_ name: String) async throws {
        let file = shared(name)
        agree(trackPoints(try TraceReader.read(file)), try await gpsbabelTrackPoints(file, format: "gpx"), name)
    }

    /// GPSBabel's NMEA of a real Apple Watch walk (fix type, satellites and HDOP added, which its writer needs to mark a fix valid).
    func nmeaOfTheAppleWatchWalk(_ options: String) async throws -> String {
        let gpx = try String(contentsOfFile: shared("togeojson/apple_watch_route.gpx"), encoding: .utf8)
            .replacingOccurrences(of: "</trkpt>", with: "<fix>3d</fix><sat>8</sat><hdop>1.2</hdop></trkpt>")
        let source = try temporaryFile(Data(gpx.utf8), suffix: ".gpx")
        let nmea = try temporaryFile(Data(), suffix: ".nmea")
        _ = try await ChildProcess.run("/usr/bin/gpsbabel", ["-i", "gpx", "-f", source, "-o", "nmea" + options, "-F", nmea])
        return nmea
    }

    @Test("NMEA: RMC sentences of a real walk read as GPSBabel reads them")
    func nmea() async throws {
        let nmea = try await nmeaOfTheAppleWatchWalk(",gpgga=0,gpgsa=0,gpvtg=0")
        let trace = try TraceReader.read(nmea)
        #expect(trace.format == .nmea)
        agree(trackPoints(trace), try await gpsbabelTrackPoints(nmea, format: "nmea"), "apple_watch_route RMC")
    }

    /// GPSBabel, given RMC before GGA, gives each GGA's position and altitude the
    /// next RMC's time (one epoch late); Stroll joins the sentences of the same
    /// UTC time, as NMEA means, whatever their order.
    @Test("NMEA: RMC, GGA and GSA of one epoch make one fix: the RMC's position and time, the GGA's altitude, HDOP times 5 m")
    func nmeaEpochs() async throws {
        let fullPath = try await nmeaOfTheAppleWatchWalk("")
        let rmcPath = try await nmeaOfTheAppleWatchWalk(",gpgga=0,gpgsa=0,gpvtg=0")
        let merged: [Fix] = trackPoints(try TraceReader.read(fullPath))
        let rmcOnly: [Fix] = trackPoints(try TraceReader.read(rmcPath))
        #expect(merged.count == 44 && merged.count == rmcOnly.count)
        for (a, b) in zip(merged, rmcOnly) {
            #expect(a.coordinate == b.coordinate && a.time == b.time)
            #expect(a.horizontalAccuracy == 1.2 * NMEAStream.hdopMetres && a.satellites == 8 && a.elevation != nil)
        }
    }
}

@Suite("Trace formats: readers, compression, bad input")
struct FormatTests {
    @Test("a .gz of GPX and CSV reads as the plain file, told by content")
    func gzip() async throws {
        for walk in ["traces/campus-loop.gpx", "traces/lime-street-to-campus.csv"] {
            let gz = try temporaryFile(Data(), suffix: ".gz")
            let run = try await ChildProcess.run("/bin/sh", ["-c", "gzip -c \"$0\" > \"$1\"", path(walk), gz])
            try #require(run.status == 0)
            #expect(try TraceReader.read(gz).tracks == TraceReader.read(path(walk)).tracks)
        }
    }

    @Test("progress reports rise to the file's size as stored, chunk by chunk, for plain, .gz and CSV statistics")
    func readProgress() async throws {
        let lines = (0..<15_000).map { "<trkpt lat=\"53.\(400_000 + $0)\" lon=\"-2.\(970_000 + $0)\"><time>2024-05-01T09:00:00Z</time></trkpt>\n" }
        let gpx = try temporaryFile(Data(("<gpx version=\"1.1\"><trk><trkseg>\n" + lines.joined() + "</trkseg></trk></gpx>\n").utf8), suffix: ".gpx")
        let gz = try temporaryFile(Data(), suffix: ".gpx.gz")
        defer { [gpx, gz].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        try #require(try await ChildProcess.run("/bin/sh", ["-c", "gzip -c \"$0\" > \"$1\"", gpx, gz]).status == 0)
        let csv = path("traces/lime-street-to-campus.csv")
        for file in [gpx, gz, csv] {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
            let reports = Mutex<[(Int64, Int64)]>([])
            let observer: ReadProgress.Observer = { read, total in reports.withLock { $0.append((read, total)) } }
            let trace = try TraceReader.read(file, progress: observer)
            #expect(trace.tracks == (try TraceReader.read(file)).tracks)
            _ = try TraceStatistics.read(file, progress: observer)
            let seen = reports.withLock { $0 }
            // Two reads: each rises to the size, the statistics' CSV read in two halves.
            let ends = seen.filter { $0.0 == Int64(size) }
            #expect(ends.count == 2 && seen.allSatisfy { $0.1 == Int64(size) && $0.0 <= $0.1 }, "\(file): \(seen)")
            #expect(size < 1 << 20 || seen.count >= 4, "two chunks or more per read")
        }
    }

    @Test("a truncated .gz is an error with the file and the line it stopped in")
    func truncatedGzip() async throws {
        let gz = try temporaryFile(Data(), suffix: ".gpx.gz")
        _ = try await ChildProcess.run("/bin/sh", ["-c", "gzip -c \"$0\" | head -c 3000 > \"$1\"", path("traces/campus-loop.gpx"), gz])
        let error = readError { () throws(TraceError) in try TraceReader.read(gz) }
        #expect(error?.reason.contains("truncated") == true && error?.file == gz && (error?.line ?? 0) > 1)
    }

    @Test("a gzip bomb streams in bounded memory: a gigabyte of zeros is refused as text, not held")
    func gzipBomb() async throws {
        let gz = try temporaryFile(Data(), suffix: ".gpx.gz")
        _ = try await ChildProcess.run("/bin/sh", ["-c", "head -c 1073741824 /dev/zero | gzip -1 > \"$0\"", gz])
        let error = readError { () throws(TraceError) in try TraceReader.read(gz) }
        #expect(error?.reason.contains("NUL") == true)
    }

    @Test("KML with no coordinates, a bad tuple, a bad gx:coord: rejections with lines")
    func badKML() throws {
        let trace = try TraceReader.read(shared("togeojson/bad.kml"))
        #expect(trackPoints(trace).isEmpty && !trace.rejected.isEmpty)
        #expect(trace.rejected.allSatisfy { $0.line > 0 })
        let text = """
        <kml><Placemark><LineString><coordinates>
        -2.97,53.40,0
        nonsense
        -2.96,53.41,0
        </coordinates></LineString></Placemark>
        <Placemark><Point><coordinates></coordinates></Point></Placemark></kml>
        """
        let kml = try TraceReader.read(bytes: Data(text.utf8), name: "t.kml", format: .kml)
        #expect(trackPoints(kml).count == 2)
        #expect(kml.rejected.map(\.line) == [3, 6])
    }

    @Test("TCX: a lap with no positions and a bad latitude are rejected with their lines; the rest reads")
    func badTCX() throws {
        let trace = try TraceReader.read(shared("togeojson/bad.tcx"))
        #expect(trace.rejected.contains { $0.reason.contains("not a number") })
        let text = """
        <TrainingCenterDatabase><Activities><Activity><Lap><Track>
        <Trackpoint><Time>2024-05-01T12:00:00Z</Time><HeartRateBpm><Value>90</Value></HeartRateBpm></Trackpoint>
        <Trackpoint><Time>2024-05-01T12:00:01Z</Time><Position><LatitudeDegrees>53.4</LatitudeDegrees><LongitudeDegrees>-2.97</LongitudeDegrees></Position></Trackpoint>
        </Track></Lap></Activity></Activities></TrainingCenterDatabase>
        """
        let tcx = try TraceReader.read(bytes: Data(text.utf8), name: "t.tcx", format: .tcx)
        #expect(trackPoints(tcx).count == 1)
        #expect(tcx.rejected == [Rejection(line: 2, reason: "trackpoint has no position")])
    }

    @Test("NMEA: bad checksums, no fix (V, quality 0) are rejected; talkers GN/GL read; a date rollover at midnight")
    func badNMEA() throws {
        func sentence(_ body: String) -> String { "$" + body + "*" + String(format: "%02X", body.utf8.reduce(UInt8(0)) { $0 ^ $1 }) }
        let lines = [
            sentence("GNRMC,235958.00,A,5324.000,N,00258.000,W,1.0,90.0,011224,,"),
            sentence("GLGGA,235958.00,5324.000,N,00258.000,W,1,08,0.9,10.0,M,0.0,M,,"),
            sentence("GPGST,235958.00,1.0,2.0,1.5,30.0,3.0,4.0,5.0"),
            "$GPRMC,235959.00,A,5324.001,N,00258.000,W,1.0,90.0,011224,,*00",
            sentence("GPRMC,235959.50,V,5324.001,N,00258.000,W,1.0,90.0,011224,,"),
            sentence("GPGGA,235959.75,5324.001,N,00258.000,W,0,00,,,M,,M,,"),
            sentence("GPGGA,000001.00,5324.002,N,00258.000,W,1,07,1.0,11.0,M,0.0,M,,"),
        ]
        let trace = try TraceReader.read(bytes: Data(lines.joined(separator: "\r\n").utf8), name: "t.nmea", format: .nmea)
        let fixes = trackPoints(trace)
        #expect(fixes.count == 2)
        #expect(trace.rejected.map(\.line) == [4, 5, 6])
        #expect(trace.rejected[0].reason.contains("checksum"))
        #expect(fixes[0].horizontalAccuracy == 5 && fixes[0].elevation == 10)
        #expect(fixes[0].time.map(ISO8601Time.format) == "2024-12-01T23:59:58Z")
        #expect(fixes[1].time.map(ISO8601Time.format) == "2024-12-02T00:00:01Z")
        #expect(fixes[1].horizontalAccuracy == 1.0 * NMEAStream.hdopMetres)
    }

    @Test("GeoLife .plt and GPSLogger CSV with its row count, as exported")
    func geolifeAndGPSLogger() throws {
        let plt = """
        Geolife trajectory
        WGS 84
        Altitude is in Feet
        Reserved 3
        0,2,255,My Track,0,0,2,8421376
        0
        39.984702,116.318417,0,492,39744.1201851852,2008-10-23,02:53:04
        39.984683,116.31845,0,492,39744.1202546296,2008-10-23,02:53:10
        39.98,abc,0,492,39744.12,2008-10-23,02:53:16
        39.984686,116.318417,0,-777,39744.1203125,2008-10-23,02:53:15

        """
        let g = try TraceReader.read(bytes: Data(plt.utf8), name: "t.plt", format: .plt)
        #expect(trackPoints(g).count == 3 && g.rejected.map(\.line) == [9])
        #expect(trackPoints(g).first?.elevation == 492 * 0.3048 && trackPoints(g).last?.elevation == nil)
        #expect(trackPoints(g).first?.time.map(ISO8601Time.format) == "2008-10-23T02:53:04Z")
        let csv = """
        2
        time,lat,lon,elevation,accuracy,bearing,speed,satellites,provider,hdop,vdop,pdop,geoidheight,ageofdgpsdata,dgpsid,activity,battery,annotation
        2024-05-01T12:00:00.000Z,53.4,-2.97,10.0,4.0,90.0,1.2,9,gps,0.9,1.1,1.4,48.0,,,,85,
        2024-05-01T12:00:01.000Z,53.40001,-2.97,10.0,4.0,90.0,1.2,9,gps,0.9,1.1,1.4,48.0,,,,85,
        """
        let c = try TraceReader.read(bytes: Data(csv.utf8), name: "t.csv", format: .csv)
        #expect(trackPoints(c).count == 2 && trackPoints(c).first?.horizontalAccuracy == 4)
        // GPSLogger 2 and later append six columns; a network fix leaves accuracy and speed empty.
        let newer = """
        time,lat,lon,elevation,accuracy,bearing,speed,satellites,provider,hdop,vdop,pdop,geoidheight,ageofdgpsdata,dgpsid,activity,battery,annotation,timestamp_ms,time_offset,distance,starttimestamp_ms,profile_name,battery_charging
        2025-01-24T07:02:29.168Z,53.40,-2.97,14.0,48.0,,0.0,0,gps,,,,,,,,64,,1737702149168,2025-01-24T00:02:29.168-07:00,14780.37,1737686054899,Default Profile,false
        2025-01-24T07:02:34.168Z,53.4001,-2.97,561.6000366210938,,,,,network,,,,,,,,,,,,,,,
        """
        let n = try TraceReader.read(bytes: Data(newer.utf8), name: "t.csv", format: .csv)
        #expect(trackPoints(n).count == 2 && n.rejected.isEmpty)
        #expect(trackPoints(n).map(\.horizontalAccuracy) == [48, nil] && trackPoints(n).first?.speed == 0)
    }

    @Test("GeoJSON: LineString with coordTimes, MultiLineString, Point waypoints")
    func geojson() throws {
        let text = """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","properties":{"name":"walk","coordTimes":["2024-05-01T12:00:00Z","2024-05-01T12:00:10Z"]},
          "geometry":{"type":"LineString","coordinates":[[-2.97,53.40,5],[-2.969,53.401,6]]}},
         {"type":"Feature","properties":{},"geometry":{"type":"MultiLineString","coordinates":[[[-2.96,53.40],[-2.95,53.41]],[[-2.94,53.42],[500,1]]]}},
         {"type":"Feature","properties":{"name":"cafe"},"geometry":{"type":"Point","coordinates":[-2.98,53.405]}}]}
        """
        let t = try TraceReader.read(bytes: Data(text.utf8), name: "t.geojson", format: .geojson)
        #expect(t.tracks.count == 2 && t.tracks[1].segments.count == 2)
        #expect(t.tracks[0].segments[0].fixes.map { $0.time.map(ISO8601Time.format) } == ["2024-05-01T12:00:00Z", "2024-05-01T12:00:10Z"])
        #expect(t.waypoints.first?.name == "cafe" && t.rejected.count == 1)
    }

    @Test("formats are told by content when the name does not say", arguments: [
        ("gxtrack.kml", Trace.Format.kml), ("sample.tcx", .tcx), ("osm.gpx", .gpx),
    ])
    func sniffing(_ file: String, _ format: Trace.Format) throws {
        let copy = try temporaryFile(try Data(contentsOf: URL(fileURLWithPath: shared("togeojson/\(file)"))), suffix: ".xml")
        #expect(try TraceReader.format(of: copy) == format)
    }
}

@Suite("Conversions: every format written reads back, in Stroll and in GPSBabel", .serialized)
struct ConversionTests {
    static let files = ["togeojson/gxtrack.kml", "togeojson/garmin_connect.tcx", "togeojson/osm.gpx", "togeojson/apple_watch_route.gpx", "gpxpy/korita-zbevnica.gpx"]

    /// The fixes a replay plays, flattened (CSV, NMEA and Xcode's GPX keep no segment breaks).
    func played(_ trace: Trace) -> [Fix] { trace.replaySegments.flatMap(\.fixes) }

    /// What NMEA can hold of them: one fix per epoch, so timed fixes only, the first of equal times.
    func epochs(_ fixes: [Fix]) -> [Fix] {
        var kept: [Fix] = []
        for fix in fixes where fix.time != nil && fix.time != kept.last?.time { kept.append(fix) }
        return kept
    }

    func same(_ a: [Fix], _ b: [Fix], tolerance: Double, _ label: String) {
        #expect(a.count == b.count, "\(label): \(a.count) vs \(b.count) points")
        for (k, (x, y)) in zip(a, b).enumerated() {
            #expect(abs(x.coordinate.latitude - y.coordinate.latitude) <= tolerance && abs(x.coordinate.longitude - y.coordinate.longitude) <= tolerance,
                    "\(label) point \(k)")
            #expect(x.time.map { ($0 * 1000).rounded() } == y.time.map { ($0 * 1000).rounded() }, "\(label) point \(k) time")
            if let e = x.elevation, let f = y.elevation { #expect(abs(e - f) <= 0.001, "\(label) point \(k) elevation") }
        }
    }

    @Test("read, write in every format, read back: the same fixes to the format's precision", arguments: files)
    func roundTrip(_ file: String) throws {
        let original = try TraceReader.read(shared(file))
        for format in TraceWriter.OutputFormat.allCases {
            let suffix = format == .xcodeGPX ? ".gpx" : "." + format.rawValue
            let copy = try temporaryFile(TraceWriter.data(original, as: format), suffix: suffix)
            let back = try TraceReader.read(copy)
            #expect(back.rejected.isEmpty, "\(file) as \(format): \(back.rejected)")
            let expected = format == .nmea ? epochs(played(original)) : played(original)
            same(expected, played(back), tolerance: format == .nmea ? 1e-7 : 1e-12, "\(file) as \(format)")
            if format != .csv && format != .nmea && format != .xcodeGPX {
                // Empty tracks and segments are not written.
                func shape(_ t: Trace) -> [[Int]] { t.tracks.map { $0.segments.map(\.fixes.count).filter { $0 > 0 } }.filter { !$0.isEmpty } }
                #expect(shape(back) == shape(original), "\(file) as \(format): segments")
            }
        }
    }

    /// The real files whose every point has a time (GPSBabel's readers treat untimed points differently by format).
    static let timedFiles = ["togeojson/gxtrack.kml", "togeojson/garmin_connect.tcx", "togeojson/apple_watch_route.gpx"]

    @Test("GPSBabel reads Stroll's KML, TCX, NMEA and GPX to the same points", arguments: timedFiles)
    func gpsbabelReadsOurs(_ file: String) async throws {
        let original = played(try TraceReader.read(shared(file)))
        for (format, babel) in [(TraceWriter.OutputFormat.kml, "kml"), (.tcx, "gtrnctr"), (.nmea, "nmea"), (.gpx, "gpx")] {
            let written = try temporaryFile(Data(TraceWriter.write(try TraceReader.read(shared(file)), as: format).utf8), suffix: "." + format.rawValue)
            let theirs = try await gpsbabelTrackPoints(written, format: babel)
            let expected = format == .nmea ? epochs(original) : original
            same(expected, theirs, tolerance: 1e-7, "\(file) as \(format), read by GPSBabel")
        }
    }
}
