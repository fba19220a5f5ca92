import Foundation
import Testing
import TestSupport
@testable import Traces

@Suite("CSV reader")
struct CSVReaderTests {
    @Test("delimiters are sniffed: comma, semicolon, tab")
    func delimiters() throws {
        for d in [",", ";", "\t"] {
            let trace = try readCSV("lat\(d)lon\(d)time\n53.4\(d)-2.9\(d)2024-05-01T09:00:00Z\n53.5\(d)-2.8\(d)2024-05-01T09:00:01Z\n")
            #expect(trace.tracks[0].segments[0].fixes.map(\.coordinate.longitude) == [-2.9, -2.8], "delimiter \(d.debugDescription)")
        }
    }

    @Test("RFC 4180 quoting, CRLF, a byte-order mark and a name column")
    func quotingAndCRLF() throws {
        let text = "\u{FEFF}\"Latitude\",\"Longitude\",name\r\n53.4,-2.9,\"Bold Street, \"\"the\"\" best\"\r\n53.5,-2.8,\"two\r\nlines\"\r\n"
        let trace = try readCSV(text)
        let fixes = trace.tracks[0].segments[0].fixes
        #expect(fixes.map(\.name) == ["Bold Street, \"the\" best", "two\r\nlines"])
        #expect(fixes.map(\.line) == [2, 3])
    }

    @Test("epoch seconds, milliseconds and nanoseconds are told apart")
    func epochs() throws {
        let trace = try readCSV("lat,lon,timestamp\n1,1,1714554000\n1,1,1714554001500\n1,1,1714554002250000000\n")
        let times = trace.tracks[0].segments[0].fixes.compactMap(\.time)
        #expect(times == [1_714_554_000, 1_714_554_001.5, 1_714_554_002.25])
    }

    @Test("aliases: lng, altitude, hacc, bearing, tracked_at")
    func aliases() throws {
        let trace = try readCSV("tracked_at,lng,lat,altitude,hacc,bearing,speed\n2024-05-01 09:00:00,-2.9,53.4,12,5,90,1.4\n")
        let fix = try #require(trace.tracks.first?.segments.first?.fixes.first)
        #expect(fix.coordinate.latitude == 53.4 && fix.coordinate.longitude == -2.9)
        #expect(fix.elevation == 12 && fix.horizontalAccuracy == 5 && fix.course == 90 && fix.speed == 1.4)
        #expect(fix.timeWasZoneless)
    }

    @Test("an explicit mapping overrides the guesses")
    func explicitMapping() throws {
        let path = try temporaryFile(Data("a,b,lat,lon\n10,20,1,2\n".utf8), suffix: ".csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trace = try TraceReader.read(path, csvMapping: CSVColumnMapping(latitude: "a", longitude: "b"))
        #expect(trace.tracks[0].segments[0].fixes.first?.coordinate.latitude == 10)
        let error = readError { () throws(TraceError) in try TraceReader.read(path, csvMapping: CSVColumnMapping(latitude: "nope")) }
        #expect(error?.reason.contains("no column \"nope\"") == true)
    }

    @Test("bad rows are rejected with line and reason; the rest reads")
    func badRows() throws {
        let trace = try readCSV("""
        lat,lon,time
        53.4,-2.9,2024-05-01T09:00:00Z
        undefined,-2.9,2024-05-01T09:00:01Z
        91.38,-2.9,2024-05-01T09:00:02Z
        53.4,180.88,2024-05-01T09:00:03Z
        NaN,1,2024-05-01T09:00:04Z
        53.4,-2.9,soon
        ,-2.9,2024-05-01T09:00:05Z
        53.4
        53.5,-2.9,2024-05-01T09:00:06Z
        53.5,-2.9,2024-05-01T09:00:01Z

        """)
        #expect(trace.rejected.map(\.line) == [3, 4, 5, 6, 7, 8, 9, 11])
        #expect(trace.rejected.map(\.reason) == [
            "latitude \"undefined\" is not a number",
            "latitude 91.38 is outside [-90, 90]",
            "longitude 180.88 is outside [-180, 180]",
            "latitude \"NaN\" is not a number",
            "time \"soon\" is neither ISO 8601 nor an epoch number",
            "latitude is empty",
            "row has 1 fields; no longitude",
            "time 2024-05-01T09:00:01Z is before the previous row's 2024-05-01T09:00:06Z",
        ])
        #expect(trace.tracks[0].segments[0].fixes.map(\.line) == [2, 10])
    }

    @Test("a header without coordinates, and an empty file, are errors")
    func headerErrors() {
        let e1 = readError { () throws(TraceError) in try readCSV("a,b,c\n1,2,3\n") }
        #expect(e1?.line == 1 && e1?.reason.contains("no latitude column") == true)
        let e2 = readError { () throws(TraceError) in try readCSV("") }
        #expect(e2?.reason.contains("empty file") == true)
        let e3 = readError { () throws(TraceError) in try readCSV("lat,lon\n\"1,2\n") }
        #expect(e3?.reason.contains("quoted field is not closed") == true)
    }

    @Test("a header-only file is a trace with no points; a single point is one point")
    func tiny() throws {
        #expect(try readCSV("lat,lon\n").tracks[0].segments.flatMap(\.fixes).isEmpty)
        #expect(try readCSV("lat,lon\n1,2").tracks[0].segments[0].fixes.count == 1)
    }
}
