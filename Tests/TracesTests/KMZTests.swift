import ChildProcess
import Foundation
import Testing
import TestSupport
import Traces

@Suite("KMZ and ZIP archives: the KML inside, streamed and checked")
struct KMZTests {
    @Test("a KMZ as Google Earth writes it (doc.kml beside images) reads as its KML, deflated or stored")
    func googleEarthLayout() async throws {
        let kml = shared("togeojson/gxtrack.kml")
        let plain = try TraceReader.read(kml)
        for stored in [false, true] {
            let kmz = try await makeZip([("files/icon.png", path("Package.swift")), ("doc.kml", kml)], stored: stored)
            let zipped = try TraceReader.read(kmz)
            #expect(zipped.tracks == plain.tracks && !trackPoints(zipped).isEmpty)
            #expect(try TraceStatistics.read(kmz).points == trackPoints(plain).count)
        }
    }

    @Test("the bundled KMZ fixtures read as the KML files they zip", arguments: [
        ("gxtrack.kmz", "gxtrack.kml"), ("multigeometry-stored.kmz", "multigeometry.kml"), ("two-layers.kmz", "linestring.kml"),
    ])
    func fixtures(_ kmz: String, _ kml: String) throws {
        let zipped = try TraceReader.read(fixture("kmz/" + kmz)), plain = try TraceReader.read(shared("togeojson/" + kml))
        #expect(zipped.tracks == plain.tracks && zipped.waypoints == plain.waypoints && !trackPoints(zipped).isEmpty)
    }

    @Test("without doc.kml the first .kml is read; a .zip of a GPX is told by content")
    func memberChoice() async throws {
        let kmz = try await makeZip([("notes.txt", path("Package.swift")), ("walk.kml", shared("togeojson/linestring.kml")), ("other.kml", shared("togeojson/gxtrack.kml"))])
        #expect(try TraceReader.read(kmz).tracks == TraceReader.read(shared("togeojson/linestring.kml")).tracks)
        let zip = try await makeZip([("campus-loop.gpx", path("traces/campus-loop.gpx"))], suffix: ".zip")
        #expect(try TraceReader.format(of: zip) == .gpx)
        #expect(try TraceReader.read(zip).tracks == TraceReader.read(path("traces/campus-loop.gpx")).tracks)
    }

    @Test("errors inside the KML name the archive, the member and the line")
    func memberErrorsAreLocated() async throws {
        let bad = try temporaryFile(Data("<kml><Document>\n<Placemark><Point><coordinates>1,2</coordinates></Point>\n</Placemark>\n</Folder></kml>".utf8), suffix: ".kml")
        let kmz = try await makeZip([("doc.kml", bad)])
        let error = readError { () throws(TraceError) in try TraceReader.read(kmz) }
        #expect(error?.file == "\(kmz)(doc.kml)" && error?.line == 4)
    }

    @Test("a KMZ with no KML, an empty archive, a truncated one: clear errors naming the file")
    func badArchives() async throws {
        let noKML = try await makeZip([("picture.png", path("Package.swift"))])
        let none = readError { () throws(TraceError) in try TraceReader.read(noKML) }
        #expect(none?.file == noKML && none?.reason.contains("no KML") == true && none?.reason.contains("picture.png") == true)

        let empty = try await makeZip([])
        #expect(readError { () throws(TraceError) in try TraceReader.read(empty) }?.reason.contains("empty") == true)

        let whole = try await makeZip([("doc.kml", shared("togeojson/gxtrack.kml"))])
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = try temporaryFile(data.prefix(data.count / 2), suffix: ".kmz")
        let truncated = readError { () throws(TraceError) in try TraceReader.read(cut) }
        #expect(truncated?.file == cut && truncated?.reason.contains("truncated") == true)
    }

    @Test("a damaged member fails its CRC-32 check; nothing of it is trusted")
    func crc() async throws {
        let kmz = try await makeZip([("doc.kml", shared("togeojson/gxtrack.kml"))], stored: true)
        var data = try Data(contentsOf: URL(fileURLWithPath: kmz))
        // Change one digit of a coordinate inside the stored member.
        let text = Array(data)
        let at = try #require(text.indices.first { i in text[i] == UInt8(ascii: "8") && i > 200 })
        data[at] = UInt8(ascii: "9")
        let damaged = try temporaryFile(data, suffix: ".kmz")
        let error = readError { () throws(TraceError) in try TraceReader.read(damaged) }
        #expect(error?.reason.contains("CRC-32") == true)
    }

    @Test("zip bombs: a member inflating past its declared size, or declaring 200 MiB from a few hundred KiB, is refused in bounded memory")
    func zipBombs() async throws {
        // 200 MiB of spaces inside <kml>: deflate makes it about 200 KiB.
        let bomb = try await makeZip([], extra: """
        import zlib
        z.writestr("doc.kml", b"<kml>" + b" " * (200 << 20) + b"</kml>")
        """)
        let refused = readError { () throws(TraceError) in try TraceReader.read(bomb) }
        #expect(refused?.reason.contains("zip bomb") == true && refused?.file == bomb)

        // A directory entry that understates the size: the stream is cut where it passes it.
        let liar = try await makeZip([("doc.kml", shared("togeojson/gxtrack.kml"))])
        var data = try Data(contentsOf: URL(fileURLWithPath: liar))
        let directory = try #require(data.lastRange(of: Data([0x50, 0x4B, 0x01, 0x02])))
        data.replaceSubrange((directory.lowerBound + 24)..<(directory.lowerBound + 28), with: [100, 0, 0, 0])
        let lying = try temporaryFile(data, suffix: ".kmz")
        let cut = readError { () throws(TraceError) in try TraceReader.read(lying) }
        #expect(cut?.reason.contains("beyond the 100 bytes") == true)
    }

    @Test("Stroll's KMZ is doc.kml deflated: Python's zipfile checks its CRC and finds the KML Stroll writes")
    func written() async throws {
        let trace = try TraceReader.read(shared("togeojson/garmin_connect.tcx"))
        let kmz = try temporaryFile(TraceWriter.data(trace, as: .kmz), suffix: ".kmz")
        let check = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            assert z.namelist() == ["doc.kml"], z.namelist()
            sys.stdout.write(z.read("doc.kml").decode("utf-8"))
            """, kmz])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout == TraceWriter.write(trace, as: .kml))
        #expect(TraceWriter.data(trace, as: .kmz) == TraceWriter.data(trace, as: .kmz))
    }
}
