import Foundation
@testable import PlacesPostGIS
import Testing

@Suite("PostGIS sources: URIs read as libpq reads them, passwords never shown, connections that fail in seconds")
struct PostGISSourceTests {
    let none: [String: String] = [:]

    @Test("the URI's parts, its parameters, and libpq's environment and defaults for what it leaves out")
    func uri() throws {
        let s = try PostGISSource("postgresql://ann:s3cr%40t@db.example:6543/gis?table=public.cafes&geometry=geom&name=title&group=kind&sslmode=disable",
                                  environment: ["PGUSER": "bob", "PGPASSWORD": "other"], loginName: "me", home: "/nonexistent")
        #expect(s.host == "db.example" && s.port == 6543 && s.user == "ann" && s.password == "s3cr@t" && s.database == "gis")
        #expect(s.table == "public.cafes" && s.geometry == "geom" && s.name == "title" && s.group == "kind" && s.sslMode == "disable")
        #expect(s.redacted == "postgresql://ann:***@db.example:6543/gis?table=public.cafes&geometry=geom&name=title&group=kind&sslmode=disable")
        let env = try PostGISSource("postgresql://?table=cafes", environment: ["PGHOST": "10.0.0.5", "PGPORT": "5433", "PGUSER": "bob",
                                                                               "PGDATABASE": "places", "PGPASSWORD": "pw", "PGCONNECT_TIMEOUT": "3"],
                                    loginName: "me", home: "/nonexistent")
        #expect(env.host == "10.0.0.5" && env.port == 5433 && env.user == "bob" && env.database == "places" && env.password == "pw")
        #expect(env.connectTimeout == 3 && env.sslMode == "prefer")
        let defaults = try PostGISSource("postgres://localhost?table=t", environment: none, loginName: "me", home: "/nonexistent")
        #expect(defaults.user == "me" && defaults.database == "me" && defaults.port == 5432 && defaults.password == nil && defaults.connectTimeout == 10)
        let socket = try PostGISSource("postgresql:///gis?host=/tmp/pg&table=t", environment: none, loginName: "me", home: "/nonexistent")
        #expect(socket.socketDirectory == "/tmp/pg" && socket.database == "gis")
        let hidden = try PostGISSource("postgresql://ann@h/db?table=t&password=abc", environment: none, loginName: "me", home: "/nonexistent")
        #expect(hidden.password == "abc" && !hidden.redacted.contains("abc") && hidden.redacted.contains("password=***"))
    }

    @Test("a bad URI is a usage error that never repeats its password")
    func badURI() {
        for (uri, reason) in [("postgresql://ann:pw@h:99999/db", "port 99999"), ("postgresql://ann:pw@h/db?tabel=x", "unknown parameter tabel"),
                              ("postgresql://ann:pw@h/db?sslmode=maybe", "sslmode maybe"), ("postgresql://ann:pw@h/db?connect_timeout=-1", "connect_timeout -1")] {
            let e = #expect(throws: PostGISError.self) { try PostGISSource(uri, environment: none, loginName: "me", home: "/nonexistent") }
            #expect(e?.kind == .usage && e?.reason.hasPrefix(reason) == true, "\(String(describing: e))")
            #expect(e.map { !$0.description.contains(":pw@") } == true, "\(String(describing: e))")
        }
    }

    @Test("~/.pgpass: the first matching line, * for anything, escapes; ignored when others can read it")
    func pgpass() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-pgpass-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/.pgpass"
        try "# comment\nother:5432:*:ann:no\ndb.example:6543:gis:ann:p\\:w\\\\d\n*:*:*:*:fallback\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let s = try PostGISSource("postgresql://ann@db.example:6543/gis?table=t", environment: none, loginName: "me", home: dir)
        #expect(s.password == "p:w\\d")
        let other = try PostGISSource("postgresql://zed@else/x?table=t", environment: ["PGPASSFILE": file], loginName: "me", home: "/nonexistent")
        #expect(other.password == "fallback")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(try PostGISSource("postgresql://ann@db.example:6543/gis?table=t", environment: none, loginName: "me", home: dir).password == nil)
    }

    @Test("identifiers are quoted, so a table name is never SQL")
    func quoting() {
        #expect(PostGISPlaces.qualified("cafes") == "\"cafes\"")
        #expect(PostGISPlaces.qualified("public.cafes") == "\"public\".\"cafes\"")
        #expect(PostGISPlaces.qualified("x\"; DROP TABLE cafes; --") == "\"x\"\"; DROP TABLE cafes; --\"")
    }

    func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }

    func ewkb(_ hex: String) -> EWKB? {
        bytes(hex).withUnsafeBufferPointer { EWKB(bytes: $0) }
    }

    @Test("EWKB as PostGIS sends geometries: type, SRID, exact coordinates, either byte order; empty points and other types told apart")
    func ewkbHeaders() {
        // What PostGIS 3 printed for 'SRID=4326;POINT(-2.9795 53.40715)'::geometry::text, and ST_AsEWKB(g, 'XDR') in hex.
        let little = ewkb("0101000020E6100000BC74931804D607C08048BF7D1DB44A40")
        #expect(little == EWKB(type: "POINT", srid: 4326, x: -2.9795, y: 53.40715))
        #expect(ewkb("0020000001000010e6c007d604189374bc404ab41d7dbf4880") == little)
        // POINT EMPTY (NaN, NaN), a point without SRID, a polygon, a point with Z.
        #expect(ewkb("0101000020E6100000000000000000F87F000000000000F87F") == EWKB(type: "POINT", srid: 4326, x: nil, y: nil))
        #expect(ewkb("0101000000000000000000F03F0000000000000040") == EWKB(type: "POINT", srid: 0, x: 1, y: 2))
        #expect(ewkb("0103000020E610000001000000040000000000000000000000")?.type == "POLYGON")
        #expect(ewkb("01010000A0E6100000000000000000F03F00000000000000400000000000000840") == EWKB(type: "POINT", srid: 4326, x: 1, y: 2))
        // Not EWKB: too short for a type, a point cut short, a byte order that is neither.
        for bad in ["0101", "0101000020E6100000A470", "0201000000"] { #expect(ewkb(bad) == nil, "\(bad)") }
    }

    @Test("COPY's binary format: the header, fields by length, NULL as -1, rows across messages, the end marker; anything else refused")
    func copyBinary() {
        func int16(_ v: Int16) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
        func int32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
        func field(_ text: String?) -> [UInt8] { text.map { int32(Int32($0.utf8.count)) + Array($0.utf8) } ?? int32(-1) }
        let header = CopyBinary.signature + int32(0) + int32(0)
        let first = header + int16(3) + field("p1") + field("Café") + field(nil)
        let second = int16(3) + field("p2") + field("") + field("x") + int16(-1)
        var format = CopyBinary()
        var fields: [Range<Int>?] = []
        var rows: [[String?]] = []
        for message in [first, second] {
            let read = message.withUnsafeBufferPointer { buffer in
                format.read(buffer, fields: &fields) { row, fields in
                    rows.append(fields.map { $0.map { String(decoding: UnsafeBufferPointer(rebasing: row[$0]), as: UTF8.self) } })
                }
            }
            #expect(read)
        }
        #expect(rows == [["p1", "Café", nil], ["p2", "", "x"]])
        #expect(format.ended)
        // Not the format: text COPY, a field running past the message, a negative count.
        for bad in [Array("p1\tCafé\n".utf8), header + int16(1) + int32(40) + [1, 2], header + int16(-2)] {
            var fresh = CopyBinary()
            #expect(!bad.withUnsafeBufferPointer { fresh.read($0, fields: &fields) { _, _ in } })
        }
    }

    /// A TCP socket bound to a free loopback port, and the port.
    static func loopbackSocket() -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test("nothing listening: a clear error at once, exit 66's kind; the password not in it")
    func refused() throws {
        // A port nothing listens on: bind one, note it, close it.
        let (fd, port) = Self.loopbackSocket()
        close(fd)
        let source = try PostGISSource("postgresql://ann:hunter2@127.0.0.1:\(port)/db?table=t&sslmode=disable", environment: none, loginName: "me", home: "/nonexistent")
        let e = #expect(throws: PostGISError.self) { try PostGISPlaces.load(source) }
        #expect(e?.kind == .unreadable && e?.reason.hasPrefix("cannot connect to 127.0.0.1:\(port)") == true, "\(String(describing: e))")
        #expect(e.map { !$0.description.contains("hunter2") } == true)
    }

    @Test("a server that accepts and never answers: an error within the connect timeout, not a hang")
    func silent() throws {
        let (fd, port) = Self.loopbackSocket()
        defer { close(fd) }
        #expect(listen(fd, 4) == 0)
        let source = try PostGISSource("postgresql://ann@127.0.0.1:\(port)/db?table=t&sslmode=disable&connect_timeout=2", environment: none, loginName: "me", home: "/nonexistent")
        let e = #expect(throws: PostGISError.self) { try PostGISPlaces.load(source) }
        #expect(e?.kind == .unreadable && e?.reason == "no answer from 127.0.0.1:\(port) within 2.0 s (connect_timeout)", "\(String(describing: e?.reason))")
    }
}
