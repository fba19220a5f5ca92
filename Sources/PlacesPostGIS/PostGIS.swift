import CLibPQ
import Foundation
import Geodesy
import Places

/// Places from a PostGIS table (or a query): point geometries or
/// geographies in SRID 4326, read through libpq, the PostgreSQL project's own
/// client (TLS through the system's OpenSSL). The rows come as `COPY ... TO
/// STDOUT` (the stream `psql`'s `\copy` reads) in the binary format. Identifiers are quoted and
/// values bound; only `--places-sql`, the user's own query, is SQL the user
/// wrote. Every wait has an end: the connection and its login within the
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

    /// Reads the places of `source` (its table, or `sql` when given).
    public static func load(_ source: PostGISSource, sql: String? = nil) throws(PostGISError) -> (PlaceSet, Reading) {
        let connection = try Connection(source)
        func run(_ sql: String, _ parameters: [String] = []) throws(PostGISError) -> [[String?]] {
            try connection.rows(sql, parameters)
        }
        func bad(_ reason: String, _ kind: PostGISError.Kind = .badData) -> PostGISError {
            PostGISError(source: source.redacted, reason: reason, kind: kind)
        }

        let (relation, label, columns, geometry) = try describe(connection, source, sql: sql)
        let names = columns.map(\.name)
        let chosen: PlaceColumns
        do {
            chosen = try PlaceColumns(columns: names, geometry: geometry, id: source.id, name: source.name, group: source.group,
                                      idGuesses: ["id", "gid", "fid", "osm_id"])
        } catch {
            throw bad("no column \"\(error.column)\" for the \(error.role) in \(label) (columns: \(names.joined(separator: ", ")))")
        }
        let reading = Reading(relation: label, geometry: geometry, columns: chosen)

        // The rows, in the id's order (else as the relation returns them).
        // The rows in COPY's binary format: text as UTF-8, the geometry as PostGIS's EWKB, read here (type, SRID, x and y exactly).
        func text(_ c: String?) -> String { c.map { "\(quote($0))::text" } ?? "NULL::text" }
        let select = """
            SELECT \(text(chosen.id)), \(text(chosen.name)), \(text(chosen.group)), \(text(chosen.subtitle)), \(quote(geometry))::geometry
            FROM \(relation)\(chosen.id.map { " ORDER BY \(quote($0))" } ?? "")
            """
        let fallbackGroup = sql == nil ? (source.table.map { String($0.split(separator: ".").last ?? Substring($0)) } ?? "places") : "places"
        var accumulator = Accumulator(file: source.redacted, prefix: fallbackGroup)
        // The planner's count of a table's rows (none for a query): room for the ids made once, not grown row by row.
        if chosen.id != nil, sql == nil, let estimate = try? run("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass($1)", [relation]),
           let rows = estimate.first?.first.flatMap({ $0.flatMap { Int($0) } }), rows > 0 {
            accumulator.taken.reserveCapacity(min(rows, 10_000_000))
            accumulator.set.places.reserveCapacity(min(rows, 10_000_000))
        }
        var fields: [Range<Int>?] = []
        var format = CopyBinary()
        try connection.copy(select) { (message: UnsafeBufferPointer<UInt8>) throws(PostGISError) in
            let read = try format.read(message, fields: &fields) { (row: UnsafeBufferPointer<UInt8>, fields: [Range<Int>?]) throws(PostGISError) in
                guard fields.count == 5 else {
                    throw bad("cannot read \(label): a row of \(fields.count) columns from COPY, not 5")
                }
                func text(_ k: Int) -> String? { fields[k].map { String(decoding: UnsafeBufferPointer(rebasing: row[$0]), as: UTF8.self) } }
                let geometry = fields[4].map { EWKB(bytes: UnsafeBufferPointer(rebasing: row[$0])) }
                accumulator.add(id: text(0), name: text(1), group: text(2), subtitle: text(3), geometry: geometry)
            }
            guard read else { throw bad("cannot read \(label): the server's COPY data is not in PostgreSQL's binary format") }
        }
        return (accumulator.set, reading)
    }

    /// The relation `source` reads (its table, or `sql` as a temporary
    /// view), how messages name it, its columns (name, type, the SRID of a
    /// spatial one), and the geometry column: the URI's `geometry=`, else the
    /// first geometry or geography column. PostGIS must be installed, and the
    /// geometry in SRID 4326.
    static func describe(_ connection: Connection, _ source: PostGISSource, sql: String?) throws(PostGISError)
        -> (relation: String, label: String, columns: [(name: String, type: String, srid: Int32)], geometry: String) {
        func run(_ sql: String, _ parameters: [String] = []) throws(PostGISError) -> [[String?]] {
            try connection.rows(sql, parameters)
        }
        func bad(_ reason: String, _ kind: PostGISError.Kind = .badData) -> PostGISError {
            PostGISError(source: source.redacted, reason: reason, kind: kind)
        }
        guard try !run("SELECT extversion FROM pg_extension WHERE extname = 'postgis'").isEmpty else {
            throw bad("PostGIS is not installed in database \(source.database) (CREATE EXTENSION postgis)")
        }

        // The relation: the table named in the URI, or the user's query as a temporary view.
        let relation: String, label: String
        if let sql {
            _ = try run("CREATE TEMPORARY VIEW stroll_places AS \(sql)")
            relation = quote("stroll_places")
            label = "the query"
        } else {
            guard let table = source.table else { throw bad("name the table: ?table=TABLE in the URI, or give --places-sql", .usage) }
            relation = qualified(table)
            label = "table \(table)"
            let found = try run("SELECT to_regclass($1)::text", [relation]).first?.first ?? nil
            guard found != nil else {
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
                WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
                """, [relation]) {
                guard row.count == 3, let name = row[0], let type = row[1], let srid = row[2].flatMap({ Int32($0) }) else {
                    throw bad("cannot read the columns of \(label): an unexpected row \(row)")
                }
                columns.append((name, type, srid))
            }
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
            let described = (try? run("SELECT auth_name || ':' || auth_srid || ', ' || split_part(srtext, '\"', 2) FROM spatial_ref_sys WHERE srid = $1",
                                     [String(srid)]))?.first?.first ?? nil
            throw bad("column \"\(geometry)\" of \(label) is in SRID \(srid)\(described.map { " (\($0))" } ?? ""); "
                      + "places are read in SRID 4326 (WGS 84) only: ST_Transform(\(geometry), 4326) in --places-sql")
        }
        return (relation, label, columns, geometry)
    }

    /// The rows as places, with what was skipped and why.
    struct Accumulator {
        var file: String
        var prefix: String
        var set = PlaceSet()
        var taken = Set<String>()
        var row = 0

        init(file: String, prefix: String) {
            self.file = file
            self.prefix = prefix
        }

        /// One row: `geometry` nil for NULL, `.some(nil)` for a value that is not EWKB.
        mutating func add(id rawID: String?, name: String?, group rawGroup: String?, subtitle: String?, geometry: EWKB??) {
            row += 1
            let id = rawID.flatMap { $0.isEmpty ? nil : $0 } ?? "\(prefix)/\(row)"
            func reject(_ reason: String) { set.rejected.append(PlaceRejection(file: file, entry: "row \(row) (\(id))", reason: reason)) }
            guard let geometry else { return reject("no geometry (NULL)") }
            guard let geometry else { return reject("a geometry that is not EWKB") }
            guard geometry.srid == 4326 else { return reject("SRID \(geometry.srid), not 4326") }
            guard geometry.type == "POINT" else { return reject("a \(geometry.type), not a point") }
            guard let x = geometry.x, let y = geometry.y else { return reject("an empty point") }
            guard let coordinate = try? Coordinate(latitude: y, longitude: x) else {
                return reject("longitude \(x), latitude \(y) is not a position on the Earth")
            }
            guard taken.insert(id).inserted else { return reject("id \"\(id)\" is taken by an earlier row") }
            let group = rawGroup.flatMap { $0.isEmpty ? nil : $0 } ?? prefix
            if !set.groups.contains(group) { set.groups.append(group) }
            set.places.append(Place(id: id, name: name.flatMap { $0.isEmpty ? nil : $0 } ?? id, subtitle: subtitle.flatMap { $0.isEmpty ? nil : $0 },
                                    coordinate: coordinate, group: group))
        }
    }

}
