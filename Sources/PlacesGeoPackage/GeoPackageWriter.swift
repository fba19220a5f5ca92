import Foundation
import Geodesy
import Places

/// Writes a GeoPackage (OGC 12-128r18, version 1.3, which every GDAL since 2.2 reads) that GIS tools open:
/// the required tables, WGS 84 (EPSG:4326) as the one SRS, point feature
/// layers and attribute tables. The file is built beside its destination and
/// moved into place by ``finish()``, so a reader never sees half of it.
public final class GeoPackageWriter {
    /// The SQL type of a column of a layer.
    public enum ColumnType: String, Sendable { case text = "TEXT", integer = "INTEGER", real = "REAL" }
    /// A value of a column of a feature.
    public enum Value: Sendable { case null, int(Int64), double(Double), text(String) }

    public let path: String
    private let temporary: String
    private let db: SQLite
    private var bounds: [String: (minX: Double, minY: Double, maxX: Double, maxY: Double)] = [:]
    private var inserts: [String: SQLite.Statement] = [:]
    private var finished = false

    static let wgs84 = """
        GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],\
        AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,\
        AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]
        """

    public init(path: String) throws(GeoPackageError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        do {
            db = try SQLite(path: temporary, mode: .create)
            try db.execute("""
                PRAGMA application_id = 1196444487;
                PRAGMA user_version = 10300;
                PRAGMA journal_mode = OFF;
                PRAGMA synchronous = OFF;
                BEGIN;
                CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY,
                  organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
                INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system');
                INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system');
                INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84 geodetic', 4326, 'EPSG', 4326, '\(Self.wgs84)', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
                CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
                  description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
                  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
                  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
                CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
                  srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
                  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name), CONSTRAINT uk_gc_table_name UNIQUE (table_name),
                  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
                  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
                """)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw GeoPackageError(file: path, reason: "cannot write: \(error.message)", kind: .unreadable)
        }
    }

    deinit {
        if !finished { try? FileManager.default.removeItem(atPath: temporary) }
    }

    private func failure(_ error: SQLiteError) -> GeoPackageError {
        GeoPackageError(file: path, reason: "cannot write: \(error.message)", kind: .unreadable)
    }

    /// A layer of points (`geom`, WGS 84) with these columns after its `fid`.
    public func addPointLayer(_ name: String, columns: [(String, ColumnType)], description: String) throws(GeoPackageError) {
        try addTable(name, columns: [("geom", "POINT")] + columns.map { ($0.0, $0.1.rawValue) }, dataType: "features", description: description)
        do {
            try db.prepare("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'POINT', 4326, 0, 0)").run([.text(name)])
        } catch { throw failure(error) }
        bounds[name] = (.infinity, .infinity, -.infinity, -.infinity)
    }

    /// A table without geometry (GeoPackage's `attributes`), for rows keyed by other columns.
    public func addAttributeTable(_ name: String, columns: [(String, ColumnType)], description: String) throws(GeoPackageError) {
        try addTable(name, columns: columns.map { ($0.0, $0.1.rawValue) }, dataType: "attributes", description: description)
    }

    private func addTable(_ name: String, columns: [(String, String)], dataType: String, description: String) throws(GeoPackageError) {
        let definitions = ["fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL"] + columns.map { "\(SQLite.quote($0.0)) \($0.1)" }
        do {
            try db.execute("CREATE TABLE \(SQLite.quote(name)) (\(definitions.joined(separator: ", ")))")
            try db.prepare("INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES (?, ?, ?, ?, ?)")
                .run([.text(name), .text(dataType), .text(name), .text(description), dataType == "features" ? .int(4326) : .null])
            let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            inserts[name] = try db.prepare("INSERT INTO \(SQLite.quote(name)) (\(columns.map { SQLite.quote($0.0) }.joined(separator: ", "))) VALUES (\(marks))")
        } catch { throw failure(error) }
    }

    /// A GeoPackage point: the "GP" header (version 0, little-endian, no
    /// envelope, as the standard recommends for points), SRS 4326, then WKB.
    static func point(_ c: Coordinate) -> [UInt8] {
        var bytes: [UInt8] = [0x47, 0x50, 0x00, 0x01]
        withUnsafeBytes(of: Int32(4326).littleEndian) { bytes += $0 }
        bytes += [0x01, 0x01, 0x00, 0x00, 0x00]
        withUnsafeBytes(of: c.longitude.bitPattern.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: c.latitude.bitPattern.littleEndian) { bytes += $0 }
        return bytes
    }

    private static func sqlite(_ v: Value) -> SQLite.Value {
        switch v {
        case .null: .null
        case .int(let i): .int(i)
        case .double(let d): d.isFinite ? .double(d) : .null
        case .text(let t): .text(t)
        }
    }

    /// A feature of a point layer: its position and its columns' values in order.
    public func insert(_ layer: String, at coordinate: Coordinate, _ values: [Value]) throws(GeoPackageError) {
        guard let statement = inserts[layer], var b = bounds[layer] else {
            throw GeoPackageError(file: path, reason: "no point layer \(layer)", kind: .usage)
        }
        do { try statement.run([.blob(Self.point(coordinate))] + values.map(Self.sqlite)) } catch { throw failure(error) }
        b = (min(b.minX, coordinate.longitude), min(b.minY, coordinate.latitude), max(b.maxX, coordinate.longitude), max(b.maxY, coordinate.latitude))
        bounds[layer] = b
    }

    /// A row of an attribute table.
    public func insert(_ table: String, _ values: [Value]) throws(GeoPackageError) {
        guard let statement = inserts[table] else { throw GeoPackageError(file: path, reason: "no table \(table)", kind: .usage) }
        do { try statement.run(values.map(Self.sqlite)) } catch { throw failure(error) }
    }

    /// Records each layer's extent, commits and moves the file into place.
    public func finish() throws(GeoPackageError) {
        do {
            let update = try db.prepare("UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?")
            for (layer, b) in bounds where b.minX.isFinite {
                try update.run([.double(b.minX), .double(b.minY), .double(b.maxX), .double(b.maxY), .text(layer)])
            }
            try db.execute("COMMIT")
        } catch { throw failure(error) }
        inserts = [:]
        if rename(temporary, path) != 0 {
            throw GeoPackageError(file: path, reason: "cannot move into place: \(String(cString: strerror(errno)))", kind: .unreadable)
        }
        finished = true
    }

    /// Places as one point layer (`id`, `name`, `subtitle`, `group`), as
    /// `places convert` writes them and `--places FILE.gpkg` reads them back.
    public static func write(_ places: [Place], layer: String = "places", to path: String) throws(GeoPackageError) {
        let writer = try GeoPackageWriter(path: path)
        try writer.addPlaces(places, layer: layer)
        try writer.finish()
    }

    public func addPlaces(_ places: [Place], layer: String = "places") throws(GeoPackageError) {
        try addPointLayer(layer, columns: [("id", .text), ("name", .text), ("subtitle", .text), ("group", .text)],
                          description: "places: id, name, subtitle and group")
        for p in places {
            try insert(layer, at: p.coordinate, [.text(p.id), .text(p.name), p.subtitle.map(Value.text) ?? .null, .text(p.group)])
        }
    }
}
