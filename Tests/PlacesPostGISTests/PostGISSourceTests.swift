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
