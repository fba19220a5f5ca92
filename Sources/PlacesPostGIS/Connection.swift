import CLibPQ
import Foundation

extension PostGISPlaces {
    /// One libpq connection, logged in, closed when released. Its errors
    /// name the source (password hidden) and the server's reason.
    final class Connection {
        let handle: OpaquePointer
        let source: PostGISSource

        /// Connects with every parameter given (libpq reads none of the URI
        /// again: `expand_dbname` is off), within the source's connect timeout.
        init(_ source: PostGISSource) throws(PostGISError) {
            self.source = source
            var parameters: [(String, String)] = [
                ("host", source.socketDirectory ?? source.host),
                ("port", String(source.port)),
                ("user", source.user),
                ("dbname", source.database),
                ("sslmode", source.sslMode),
                ("connect_timeout", String(Int(source.connectTimeout.rounded(.up)))),
                ("client_encoding", "UTF8"),
                ("application_name", "stroll"),
            ]
            if let password = source.password { parameters.append(("password", password)) }
            guard let handle = withCStrings(parameters.map(\.0), { keywords in
                withCStrings(parameters.map(\.1)) { values in PQconnectdbParams(keywords, values, 0) }
            }) else {
                throw PostGISError(source: source.redacted, reason: "cannot connect: libpq is out of memory", kind: .unreadable)
            }
            self.handle = handle
            guard PQstatus(handle) == CONNECTION_OK else {
                // Thrown once every property is set: deinit closes the handle.
                let message = Self.message(PQerrorMessage(handle))
                if message.contains("timeout expired") {
                    throw PostGISError(source: source.redacted, reason: "no answer from \(Self.location(source)) within \(source.connectTimeout) s (connect_timeout)",
                                       kind: .unreadable)
                }
                throw PostGISError(source: source.redacted, reason: "cannot connect to \(Self.location(source)): \(message)", kind: .unreadable)
            }
        }

        deinit { PQfinish(handle) }

        static func location(_ source: PostGISSource) -> String {
            source.socketDirectory.map { "the socket \($0)/.s.PGSQL.\(source.port)" } ?? "\(source.host):\(source.port)"
        }

        /// libpq's message on one line, without its "connection to server
        /// at …, port … failed:" preamble (the error names the place itself).
        static func message(_ text: UnsafePointer<CChar>?) -> String {
            var message = text.map { String(cString: $0) } ?? ""
            if message.hasPrefix("connection to server"), let failed = message.range(of: " failed: ") {
                message = String(message[failed.upperBound...])
            }
            return message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.joined(separator: "; ")
        }

        /// A statement's rows as text (NULL as nil), its parameters bound as text.
        func rows(_ sql: String, _ parameters: [String] = []) throws(PostGISError) -> [[String?]] {
            let result = withCStrings(parameters) { values in
                PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
            }
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else { throw failure(result) }
            let count = PQntuples(result), width = PQnfields(result)
            return (0..<count).map { row in
                (0..<width).map { column in
                    PQgetisnull(result, row, column) != 0 ? nil : PQgetvalue(result, row, column).map { String(cString: $0) }
                }
            }
        }

        /// `COPY (select) TO STDOUT` in text format, each row's bytes
        /// (without the line end) handed to `row` as libpq receives them.
        func copy(_ select: String, row: (UnsafeBufferPointer<UInt8>) throws(PostGISError) -> Void) throws(PostGISError) {
            let started = PQexec(handle, "COPY (\(select)) TO STDOUT")
            let status = PQresultStatus(started)
            guard status == PGRES_COPY_OUT else {
                defer { PQclear(started) }
                throw failure(started)
            }
            PQclear(started)
            var buffer: UnsafeMutablePointer<CChar>?
            while true {
                let length = PQgetCopyData(handle, &buffer, 0)
                if length < 0 { break }
                guard let bytes = buffer else { continue }
                defer { PQfreemem(bytes) }
                var count = Int(length)
                if count > 0, bytes[count - 1] == 0x0A { count -= 1 }
                try bytes.withMemoryRebound(to: UInt8.self, capacity: count) { p throws(PostGISError) in
                    try row(UnsafeBufferPointer(start: p, count: count))
                }
            }
            // The COPY's own end: its status, or the error that cut it short.
            var failed: PostGISError?
            while let result = PQgetResult(handle) {
                if failed == nil, PQresultStatus(result) != PGRES_COMMAND_OK { failed = failure(result) }
                PQclear(result)
            }
            if let failed { throw failed }
        }

        /// A failed statement: the server's message, SQLSTATE and hint; missing
        /// things and lost connections are unreadable (66), the rest bad data (65).
        func failure(_ result: OpaquePointer?) -> PostGISError {
            func field(_ code: Character) -> String? {
                guard let ascii = code.asciiValue, let value = PQresultErrorField(result, Int32(ascii)) else { return nil }
                return String(cString: value)
            }
            let state = field("C")
            var reason = field("M") ?? Self.message(PQerrorMessage(handle))
            if reason.isEmpty { reason = "the server closed the connection" }
            if let state { reason += " (SQLSTATE \(state))" }
            if let hint = field("H") { reason += "; \(hint)" }
            let unreadable = state.map { $0 == "42P01" || $0 == "3D000" || $0.hasPrefix("28") || $0.hasPrefix("08") } ?? true
            return PostGISError(source: source.redacted, reason: reason, kind: unreadable ? .unreadable : .badData)
        }
    }
}

/// The C strings of `strings`, ended by a null pointer, for as long as `body` runs.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) } + [nil])
}

/// PostgreSQL's COPY text format: fields split by tabs, `\N` for NULL,
/// backslash escapes (`\t`, `\n`, `\\`, octal and `\x` hex bytes).
enum CopyText {
    /// The byte range of each field of `row`; nil for NULL.
    static func fields(of row: UnsafeBufferPointer<UInt8>, into fields: inout [Range<Int>?]) {
        fields.removeAll(keepingCapacity: true)
        var start = 0
        for i in 0...row.count where i == row.count || row[i] == 0x09 {
            fields.append(i - start == 2 && row[start] == 0x5C && row[start + 1] == 0x4E ? nil : start..<i)
            start = i + 1
        }
    }

    /// A field's text, its escapes undone.
    static func text(_ row: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        let field = UnsafeBufferPointer(rebasing: row[range])
        return field.contains(0x5C) ? unescape(field) : String(decoding: field, as: UTF8.self)
    }

    static func unescape(_ field: UnsafeBufferPointer<UInt8>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(field.count)
        var i = 0
        func digit(_ b: UInt8, radix: UInt8) -> UInt8? {
            switch b {
            case 0x30...0x37: return b - 0x30
            case 0x38...0x39 where radix == 16: return b - 0x30
            case 0x61...0x66 where radix == 16: return b - 0x61 + 10
            case 0x41...0x46 where radix == 16: return b - 0x41 + 10
            default: return nil
            }
        }
        while i < field.count {
            let b = field[i]
            i += 1
            guard b == 0x5C, i < field.count else {
                bytes.append(b)
                continue
            }
            let c = field[i]
            i += 1
            switch c {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "v"): bytes.append(0x0B)
            case UInt8(ascii: "x"):
                var value: UInt8 = 0, n = 0
                while n < 2, i < field.count, let d = digit(field[i], radix: 16) {
                    value = value &* 16 &+ d
                    i += 1
                    n += 1
                }
                if n == 0 { bytes.append(c) } else { bytes.append(value) }
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = c - 0x30, n = 1
                while n < 3, i < field.count, let d = digit(field[i], radix: 8) {
                    value = value &* 8 &+ d
                    i += 1
                    n += 1
                }
                bytes.append(value)
            default: bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A geometry as PostGIS writes it in text, hex EWKB: its type, SRID and,
/// for a point, its coordinates exactly as stored (nil for an empty point).
struct EWKB: Equatable {
    var type: String
    var srid: Int32
    var x: Double?
    var y: Double?

    /// The OGC types by their WKB number, as PostGIS's `GeometryType` names them.
    static let names = ["GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON",
                        "GEOMETRYCOLLECTION", "CIRCULARSTRING", "COMPOUNDCURVE", "CURVEPOLYGON", "MULTICURVE",
                        "MULTISURFACE", "POLYHEDRALSURFACE", "TRIANGLE", "TIN"]

    init(type: String, srid: Int32, x: Double?, y: Double?) {
        (self.type, self.srid, self.x, self.y) = (type, srid, x, y)
    }

    /// nil when `hex` is not EWKB (odd length, not hex, too short, an unknown byte order).
    init?(hex: UnsafeBufferPointer<UInt8>) {
        // Byte order, type, SRID, x, y: at most 25 bytes are read, into a buffer on the stack.
        guard hex.count % 2 == 0, hex.count >= 10 else { return nil }
        let count = min(hex.count / 2, 25)
        guard let parsed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 25, { bytes -> EWKB? in
            for k in 0..<count {
                guard let high = Self.nibble(hex[2 * k]), let low = Self.nibble(hex[2 * k + 1]) else { return nil }
                bytes[k] = high << 4 | low
            }
            return EWKB(bytes: UnsafeBufferPointer(rebasing: bytes[..<count]))
        }) else { return nil }
        self = parsed
    }

    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    /// From the first bytes of the binary EWKB.
    init?(bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 5, bytes[0] <= 1 else { return nil }
        let little = bytes[0] == 1
        func word(_ at: Int) -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            let v = bytes[at..<at + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return little ? v : v.byteSwapped
        }
        func double(_ at: Int) -> Double? {
            guard at + 8 <= bytes.count else { return nil }
            let v = bytes[at..<at + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Double(bitPattern: little ? v : v.byteSwapped)
        }
        guard let code = word(1) else { return nil }
        let hasSRID = code & 0x2000_0000 != 0
        let number = Int(code & 0x0FFF_FFFF) % 1000
        type = number < Self.names.count ? Self.names[number] : "geometry of WKB type \(number)"
        var offset = 5
        if hasSRID {
            guard let srid = word(5) else { return nil }
            self.srid = Int32(bitPattern: srid)
            offset = 9
        } else {
            srid = 0
        }
        if number == 1 {
            guard let x = double(offset), let y = double(offset + 8) else { return nil }
            (self.x, self.y) = x.isNaN && y.isNaN ? (nil, nil) : (x, y)
        }
    }
}
