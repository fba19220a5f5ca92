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

        /// `COPY (select) TO STDOUT (FORMAT binary)`: each CopyData message's
        /// bytes handed to `message` as libpq receives them (whole rows; the
        /// first after the format's header, see ``CopyBinary``).
        func copy(_ select: String, message: (UnsafeBufferPointer<UInt8>) throws(PostGISError) -> Void) throws(PostGISError) {
            let started = PQexec(handle, "COPY (\(select)) TO STDOUT (FORMAT binary)")
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
                let count = Int(length)
                try bytes.withMemoryRebound(to: UInt8.self, capacity: count) { p throws(PostGISError) in
                    try message(UnsafeBufferPointer(start: p, count: count))
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

/// PostgreSQL's binary COPY format, read one CopyData message at a time:
/// the header (`PGCOPY\n\u{FF}\r\n\0`, flags, an extension) before the first
/// row; each row a big-endian 16-bit count of fields, each field a 32-bit
/// length (-1 for NULL) and its bytes; -1 as the count at the end. Text comes
/// as its UTF-8 bytes, a geometry as PostGIS's binary EWKB.
struct CopyBinary {
    static let signature: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]
    private var headerRead = false
    /// The end-of-data marker was read.
    private(set) var ended = false

    /// Hands each row of `message` to `row`, with the byte range of each
    /// field (nil for NULL) in `fields`; false when the bytes are not the format.
    mutating func read<E: Error>(_ message: UnsafeBufferPointer<UInt8>, fields: inout [Range<Int>?],
                                 row: (UnsafeBufferPointer<UInt8>, [Range<Int>?]) throws(E) -> Void) throws(E) -> Bool {
        func int(_ at: Int, _ width: Int) -> Int? {
            guard at >= 0, at + width <= message.count else { return nil }
            var v: UInt32 = 0
            for k in 0..<width { v = v << 8 | UInt32(message[at + k]) }
            return width == 2 ? Int(Int16(truncatingIfNeeded: v)) : Int(Int32(bitPattern: v))
        }
        var at = 0
        if !headerRead {
            guard message.count >= 19, message.prefix(11).elementsEqual(Self.signature), let extensionLength = int(15, 4), extensionLength >= 0,
                  19 + extensionLength <= message.count else { return false }
            at = 19 + extensionLength
            headerRead = true
        }
        while at < message.count {
            guard !ended, let count = int(at, 2) else { return false }
            at += 2
            if count == -1 {
                ended = true
                continue
            }
            guard count >= 0 else { return false }
            fields.removeAll(keepingCapacity: true)
            for _ in 0..<count {
                guard let length = int(at, 4) else { return false }
                at += 4
                if length == -1 {
                    fields.append(nil)
                } else {
                    guard length >= 0, at + length <= message.count else { return false }
                    fields.append(at..<at + length)
                    at += length
                }
            }
            try row(message, fields)
        }
        return true
    }
}

/// A geometry as PostGIS sends it, EWKB: its type, SRID and, for a point,
/// its coordinates exactly as stored (nil for an empty point).
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

    /// From the EWKB's first bytes; nil when they are not EWKB (too short, an
    /// unknown byte order).
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
