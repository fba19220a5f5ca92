import Foundation
import Geodesy
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import Proximity

/// Places from a PostGIS table (or a query): point geometries or
/// geographies in SRID 4326, read with postgres-nio. Identifiers are quoted
/// and values bound; only `--places-sql`, the user's own query, is SQL the
/// user wrote. Every wait has an end: the connection and its login within the
/// connect timeout, then the queries.
public enum PostGISPlaces {
    /// What was read and how: the relation, its geometry and the columns used.
    public struct Reading: Sendable, Equatable {
        public var relation: String
        public var geometry: String
        public var columns: PlaceColumns
        public var guessed: [String] { columns.guessed }

        public var description: String {
            "\(relation): geometry from column \"\(geometry)\", "
                + columns.description(idFallback: "the row number", nameFallback: "the id", groupFallback: "the table's name",
                                      howToChoose: "name=, group=, id= in the URI")
        }
    }

    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `schema.table` or `table`, each part quoted.
    static func qualified(_ table: String) -> String {
        guard let dot = table.firstIndex(of: ".") else { return quote(table) }
        return quote(String(table[..<dot])) + "." + quote(String(table[table.index(after: dot)...]))
    }

    struct Timeout: Error {}

    /// The first column of the first row as text; nil for no row or NULL.
    static func firstText(_ result: PostgresQueryResult) -> String? {
        for row in result { return try? row.decode(String?.self) }
        return nil
    }

    /// Reads the places of `source` (its table, or `sql` when given).
    public static func load(_ source: PostGISSource, sql: String? = nil) throws(PostGISError) -> (PlaceSet, Reading) {
        let connection = try connect(source)
        defer { _ = try? connection.close().wait() }
        let logger = Self.logger
        func run(_ query: PostgresQuery) throws(PostGISError) -> PostgresQueryResult {
            do {
                return try connection.query(query, logger: logger).wait()
            } catch {
                throw PostGISError(source: source.redacted, reason: describe(error), kind: kind(of: error))
            }
        }
        func bad(_ reason: String, _ kind: PostGISError.Kind = .badData) -> PostGISError {
            PostGISError(source: source.redacted, reason: reason, kind: kind)
        }

        guard try run("SELECT extversion FROM pg_extension WHERE extname = 'postgis'").contains(where: { _ in true }) else {
            throw bad("PostGIS is not installed in database \(source.database) (CREATE EXTENSION postgis)")
        }

        // The relation: the table named in the URI, or the user's query as a temporary view.
        let relation: String, label: String
        if let sql {
            _ = try run(PostgresQuery(unsafeSQL: "CREATE TEMPORARY VIEW stroll_places AS \(sql)"))
            relation = quote("stroll_places")
            label = "the query"
        } else {
            guard let table = source.table else { throw bad("name the table: ?table=TABLE in the URI, or give --places-sql", .usage) }
            relation = qualified(table)
            label = "table \(table)"
            guard firstText(try run("SELECT to_regclass(\(relation))::text")) != nil else {
                throw bad("no table \(table) in database \(source.database)", .unreadable)
            }
        }

        // Its columns, the geometry's type and SRID from the column's type modifier.
        var columns: [(name: String, type: String, srid: Int32)] = []
        do {
            for row in try run("""
                SELECT a.attname::text, t.typname::text,
                       CASE WHEN t.typname IN ('geometry', 'geography') THEN postgis_typmod_srid(a.atttypmod) ELSE 0 END
                FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
                WHERE a.attrelid = to_regclass(\(relation)) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
                """) {
                let (name, type, srid) = try row.decode((String, String, Int32).self)
                columns.append((name, type, srid))
            }
        } catch let error as PostGISError {
            throw error
        } catch {
            throw bad("cannot read the columns of \(label): \(describe(error))")
        }
        let names = columns.map(\.name)
        let spatial = columns.filter { $0.type == "geometry" || $0.type == "geography" }
        var geometry = ""
        if let chosen = source.geometry {
            guard let column = columns.first(where: { $0.name == chosen }) else {
                throw bad("no column \"\(chosen)\" in \(label) (columns: \(names.joined(separator: ", ")))")
            }
            guard column.type == "geometry" || column.type == "geography" else {
                throw bad("column \"\(chosen)\" of \(label) is \(column.type), not geometry or geography")
            }
            geometry = chosen
        } else {
            guard let first = spatial.first else {
                throw bad("\(label) has no geometry or geography column (columns: \(names.joined(separator: ", ")))")
            }
            geometry = first.name
        }
        if let srid = columns.first(where: { $0.name == geometry })?.srid, srid != 0, srid != 4326 {
            let described = (try? run("SELECT auth_name || ':' || auth_srid || ', ' || split_part(srtext, '\"', 2) FROM spatial_ref_sys WHERE srid = \(srid)")).flatMap(firstText)
            throw bad("column \"\(geometry)\" of \(label) is in SRID \(srid)\(described.map { " (\($0))" } ?? ""); "
                      + "places are read in SRID 4326 (WGS 84) only: ST_Transform(\(geometry), 4326) in --places-sql")
        }
        let chosen: PlaceColumns
        do {
            chosen = try PlaceColumns(columns: names, geometry: geometry, id: source.id, name: source.name, group: source.group,
                                      idGuesses: ["id", "gid", "fid", "osm_id"])
        } catch {
            throw bad("no column \"\(error.column)\" for the \(error.role) in \(label) (columns: \(names.joined(separator: ", ")))")
        }
        let reading = Reading(relation: label, geometry: geometry, columns: chosen)

        // The rows, in the id's order (else as the relation returns them).
        let g = "\(quote(geometry))::geometry"
        func text(_ c: String?) -> String { c.map { "\(quote($0))::text" } ?? "NULL::text" }
        let select = """
            SELECT \(text(chosen.id)), \(text(chosen.name)), \(text(chosen.group)), \(text(chosen.subtitle)),
                   GeometryType(\(g)), ST_SRID(\(g)),
                   ST_X(CASE WHEN GeometryType(\(g)) = 'POINT' AND NOT ST_IsEmpty(\(g)) THEN \(g) END),
                   ST_Y(CASE WHEN GeometryType(\(g)) = 'POINT' AND NOT ST_IsEmpty(\(g)) THEN \(g) END)
            FROM \(relation)\(chosen.id.map { " ORDER BY \(quote($0))" } ?? "")
            """
        let fallbackGroup = sql == nil ? (source.table.map { String($0.split(separator: ".").last ?? Substring($0)) } ?? "places") : "places"
        let state = NIOLockedValueBox(Accumulator(file: source.redacted, prefix: fallbackGroup))
        do {
            _ = try connection.query(PostgresQuery(unsafeSQL: select), logger: logger) { row in
                let values = try row.decode((String?, String?, String?, String?, String?, Int32?, Double?, Double?).self)
                state.withLockedValue { $0.add(values) }
            }.wait()
        } catch {
            throw bad("cannot read \(label): \(describe(error))", kind(of: error))
        }
        return (state.withLockedValue { $0.set }, reading)
    }

    /// The rows as places, with what was skipped and why.
    struct Accumulator: Sendable {
        var file: String
        var prefix: String
        var set = PlaceSet()
        var taken = Set<String>()
        var row = 0

        init(file: String, prefix: String) {
            self.file = file
            self.prefix = prefix
        }

        mutating func add(_ v: (String?, String?, String?, String?, String?, Int32?, Double?, Double?)) {
            row += 1
            let id = v.0.flatMap { $0.isEmpty ? nil : $0 } ?? "\(prefix)/\(row)"
            let entry = "row \(row) (\(id))"
            func reject(_ reason: String) { set.rejected.append(PlaceRejection(file: file, entry: entry, reason: reason)) }
            guard let type = v.4 else { return reject("no geometry (NULL)") }
            guard v.5 == 4326 else { return reject("SRID \(v.5.map(String.init) ?? "NULL"), not 4326") }
            guard type == "POINT" else { return reject("a \(type), not a point") }
            guard let x = v.6, let y = v.7 else { return reject("an empty point") }
            guard let coordinate = try? Coordinate(latitude: y, longitude: x) else {
                return reject("longitude \(x), latitude \(y) is not a position on the Earth")
            }
            guard taken.insert(id).inserted else { return reject("id \"\(id)\" is taken by an earlier row") }
            let group = v.2.flatMap { $0.isEmpty ? nil : $0 } ?? prefix
            if !set.groups.contains(group) { set.groups.append(group) }
            set.places.append(Place(id: id, name: v.1.flatMap { $0.isEmpty ? nil : $0 } ?? id, subtitle: v.3.flatMap { $0.isEmpty ? nil : $0 },
                                    coordinate: coordinate, group: group))
        }
    }

    static let logger = Logger(label: "stroll.postgis", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A connection, logged in, within the source's connect timeout.
    static func connect(_ source: PostGISSource) throws(PostGISError) -> PostgresConnection {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch source.sslMode {
            case "disable":
                tls = .disable
            case "allow", "prefer", "require":
                var configuration = TLSConfiguration.makeClientConfiguration()
                configuration.certificateVerification = .none
                let context = try NIOSSLContext(configuration: configuration)
                tls = source.sslMode == "require" ? .require(context) : .prefer(context)
            default:
                tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw PostGISError(source: source.redacted, reason: "TLS: \(error)", kind: .usage)
        }
        var configuration: PostgresConnection.Configuration
        if let dir = source.socketDirectory {
            configuration = .init(unixSocketPath: "\(dir)/.s.PGSQL.\(source.port)", username: source.user, password: source.password, database: source.database)
        } else {
            configuration = .init(host: source.host, port: source.port, username: source.user, password: source.password, database: source.database, tls: tls)
        }
        let timeout = TimeAmount.milliseconds(Int64(source.connectTimeout * 1000))
        configuration.options.connectTimeout = timeout
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let promise = loop.makePromise(of: PostgresConnection.self)
        let connecting = PostgresConnection.connect(on: loop, configuration: configuration, id: 1, logger: logger)
        connecting.cascade(to: promise)
        // Connected but silent (a server that never answers the login): the
        // same deadline, and the connection closed if it comes later.
        let deadline = loop.scheduleTask(in: timeout) { promise.fail(Timeout()) }
        connecting.whenComplete { _ in deadline.cancel() }
        promise.futureResult.whenFailure { _ in connecting.whenSuccess { connection in let _: EventLoopFuture<Void> = connection.close() } }
        do {
            return try promise.futureResult.wait()
        } catch where isTimeout(error) {
            throw PostGISError(source: source.redacted, reason: "no answer from \(location(source)) within \(source.connectTimeout) s (connect_timeout)", kind: .unreadable)
        } catch {
            throw PostGISError(source: source.redacted, reason: "cannot connect to \(location(source)): \(describe(error))", kind: .unreadable)
        }
    }

    /// Our deadline, or postgres-nio's own (the TCP connection's, and the
    /// login's on it), whichever came first.
    static func isTimeout(_ error: any Error) -> Bool {
        if error is Timeout { return true }
        if case .connectTimeout? = error as? ChannelError { return true }
        if let e = error as? PSQLError, let underlying = e.underlying { return isTimeout(underlying) }
        return false
    }

    static func location(_ source: PostGISSource) -> String {
        source.socketDirectory.map { "the socket \($0)/.s.PGSQL.\(source.port)" } ?? "\(source.host):\(source.port)"
    }

    /// The server's message (and SQLSTATE) or the connection's error; never the password.
    static func describe(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let info = e.serverInfo, let message = info[.message] {
                return message + (info[.sqlState].map { " (SQLSTATE \($0))" } ?? "") + (info[.hint].map { "; \($0)" } ?? "")
            }
            switch e.code {
            case .authMechanismRequiresPassword: return "the server asks for a password: give it in PGPASSWORD or ~/.pgpass"
            case .sslUnsupported: return "the server does not speak TLS (sslmode=disable to connect without it)"
            case .serverClosedConnection: return "the server closed the connection"
            case .unsupportedAuthMechanism: return "the server asks for an authentication method postgres-nio does not speak"
            default: break
            }
            if let underlying = e.underlying { return describe(underlying) }
            return "\(e.code)"
        }
        if let e = error as? NIOConnectionError {
            let reasons = e.connectionErrors.map { "\($0.error)" } + (e.dnsAAAAError.map { ["\($0)"] } ?? []) + (e.dnsAError.map { ["\($0)"] } ?? [])
            return reasons.isEmpty ? "cannot connect" : reasons.joined(separator: "; ")
        }
        if let e = error as? IOError { return e.description }
        if error is ChannelError { return "\(error)" }
        return String(describing: error)
    }

    /// Server errors about what is not there are missing input (66); the
    /// rest of a query's failures are bad data (65).
    static func kind(of error: any Error) -> PostGISError.Kind {
        if let e = error as? PSQLError, let state = e.serverInfo?[.sqlState] {
            // 42P01 undefined table, 3D000 no such database, 28xxx login, 08xxx connection.
            if state == "42P01" || state == "3D000" || state.hasPrefix("28") || state.hasPrefix("08") { return .unreadable }
            return .badData
        }
        return .unreadable
    }
}
