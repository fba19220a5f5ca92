import Foundation
import Geodesy
import Places
import GEOS

/// A GeoPackage that cannot be read or written: the file (with its layer),
/// and why. `unreadable` for a file that is missing or not a database (exit
/// 66), otherwise the data is wrong (exit 65); `usage` for a layer or column
/// the user named that is not there (exit 64).
public struct GeoPackageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// How the source failed as a whole (``Places/PlaceSourceFailure``), which chooses the exit status.
    public typealias Kind = PlaceSourceFailure
    public var file: String
    public var reason: String
    public var kind: Kind

    public init(file: String, reason: String, kind: Kind) {
        self.file = file
        self.reason = reason
        self.kind = kind
    }

    public var description: String { "\(file): \(reason)" }
}

/// GeoPackage (OGC 12-128r18) as places: a point layer read through the
/// GeoPackage's own tables (`gpkg_contents`, `gpkg_geometry_columns`,
/// `gpkg_spatial_ref_sys`), each geometry's GeoPackage header checked and its
/// WKB read by GEOS.
public enum GeoPackagePlaces {
    /// Whether a `--places` source names a GeoPackage: `FILE.gpkg` or `FILE.gpkg#LAYER`.
    public static func isGeoPackage(_ source: String) -> Bool {
        split(source).path.lowercased().hasSuffix(".gpkg")
    }

    /// `FILE.gpkg#LAYER` as its path and layer.
    public static func split(_ source: String) -> (path: String, layer: String?) {
        guard let hash = source.range(of: "#", options: .backwards), source[..<hash.lowerBound].lowercased().hasSuffix(".gpkg") else {
            return (source, nil)
        }
        let layer = String(source[hash.upperBound...])
        return (String(source[..<hash.lowerBound]), layer.isEmpty ? nil : layer)
    }

    /// What was read and how: the layer, and the columns used.
    public struct Reading: Sendable, Equatable {
        public var layer: String
        public var columns: PlaceColumns
        public var guessed: [String] { columns.guessed }

        /// One line for the user: which columns gave what.
        public var description: String {
            "layer \"\(layer)\": " + columns.description(idFallback: "the layer and feature id", nameFallback: "the layer and feature id",
                                                         groupFallback: "the layer's name", howToChoose: "--name-column and --group-column")
        }
    }

    /// The feature layers of a GeoPackage, in `gpkg_contents` order.
    public static func layers(_ path: String) throws(GeoPackageError) -> [String] {
        let db = try open(path)
        return try layers(db, path)
    }

    /// Reads a point layer as places. `source` is `FILE.gpkg` (its only
    /// feature layer) or `FILE.gpkg#LAYER`.
    public static func load(_ source: String, nameColumn: String? = nil, groupColumn: String? = nil) throws(GeoPackageError) -> (PlaceSet, Reading) {
        let (db, table) = try open(layerOf: source)
        let (layer, geometryColumn, srsID, columns) = (table.layer, table.geometryColumn, table.srsID, table.columns)
        func bad(_ reason: String, _ kind: GeoPackageError.Kind = .badData) -> GeoPackageError {
            GeoPackageError(file: source, reason: reason, kind: kind)
        }
        let names = columns.map(\.name)
        let chosen: PlaceColumns
        do {
            chosen = try PlaceColumns(columns: names, geometry: geometryColumn, name: nameColumn, group: groupColumn)
        } catch {
            throw bad("no column \"\(error.column)\" for the \(error.role) in layer \"\(layer)\" (columns: \(names.joined(separator: ", ")))", .usage)
        }
        let reading = Reading(layer: layer, columns: chosen)
        let primaryKey = columns.first(where: \.primaryKey)?.name

        var select = [primaryKey.map(SQLite.quote) ?? "rowid", SQLite.quote(geometryColumn)]
        for c in [chosen.id, chosen.name, chosen.group, chosen.subtitle] { select.append(c.map(SQLite.quote) ?? "NULL") }
        let sql = "SELECT \(select.joined(separator: ", ")) FROM \(SQLite.quote(layer)) ORDER BY 1"

        var set = PlaceSet()
        let context: GEOSContext
        do { context = try GEOSContext() } catch { throw bad("GEOS: \(error)") }
        var taken = Set<String>()
        do {
            try db.rows(sql) { row in
                let fid = row.int(0)
                let entry = "feature \(fid)"
                func reject(_ reason: String) { set.rejected.append(PlaceRejection(file: source, entry: entry, reason: reason)) }
                guard let blob = row.blob(1) else { return reject("no geometry (NULL)") }
                let point: PlanePoint
                switch readPoint(blob, srsID: srsID, context: context) {
                case .success(let p): point = p
                case .failure(let reason): return reject(reason.message)
                }
                guard let coordinate = try? Coordinate(latitude: point.y, longitude: point.x) else {
                    return reject("longitude \(point.x), latitude \(point.y) is not a position on the Earth")
                }
                let id = row.text(2).flatMap { $0.isEmpty ? nil : $0 } ?? "\(layer)/\(fid)"
                guard taken.insert(id).inserted else { return reject("id \"\(id)\" is taken by an earlier feature") }
                let placeName = row.text(3).flatMap { $0.isEmpty ? nil : $0 } ?? "\(layer) \(fid)"
                let placeGroup = row.text(4).flatMap { $0.isEmpty ? nil : $0 } ?? layer
                if !set.groups.contains(placeGroup) { set.groups.append(placeGroup) }
                set.places.append(Place(id: id, name: placeName, subtitle: row.text(5).flatMap { $0.isEmpty ? nil : $0 },
                                        coordinate: coordinate, group: placeGroup))
            }
        } catch { throw bad("layer \"\(layer)\": \(error.message)") }
        return (set, reading)
    }

    /// A feature layer's table: its name, geometry column, spatial reference and columns.
    struct LayerTable {
        var layer: String
        var geometryColumn: String
        var srsID: Int64
        var columns: [(name: String, type: String, primaryKey: Bool)]
    }

    /// The database and the layer `source` names (`FILE.gpkg#LAYER`, or the
    /// file's only feature layer), its geometry column and SRS checked.
    static func open(layerOf source: String) throws(GeoPackageError) -> (SQLite, LayerTable) {
        let (path, named) = split(source)
        let db = try open(path)
        func bad(_ reason: String, _ kind: GeoPackageError.Kind = .badData) -> GeoPackageError {
            GeoPackageError(file: source, reason: reason, kind: kind)
        }
        let all = try layers(db, path)
        let layer: String
        if let named {
            guard all.contains(named) else {
                throw bad("no feature layer \"\(named)\" (layers: \(all.isEmpty ? "none" : all.joined(separator: ", ")))", .usage)
            }
            layer = named
        } else {
            guard all.count == 1, let only = all.first else {
                throw bad(all.isEmpty ? "no feature layer" : "\(all.count) feature layers (\(all.joined(separator: ", "))): name one as FILE.gpkg#LAYER", all.isEmpty ? .badData : .usage)
            }
            layer = only
        }

        // The geometry column and its spatial reference system.
        var geometryColumn = "", srsID: Int64 = 0
        do {
            try db.rows("SELECT column_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?", [.text(layer)]) { row in
                geometryColumn = row.text(0) ?? ""
                srsID = row.int(1)
            }
        } catch { throw bad("gpkg_geometry_columns: \(error.message)") }
        guard !geometryColumn.isEmpty else { throw bad("layer \"\(layer)\" has no geometry column in gpkg_geometry_columns") }
        try checkSRS(db, srsID, source: source)

        var columns: [(name: String, type: String, primaryKey: Bool)] = []
        do {
            try db.rows("SELECT name, type, pk FROM pragma_table_info(?)", [.text(layer)]) { row in
                columns.append((row.text(0) ?? "", (row.text(1) ?? "").uppercased(), row.int(2) > 0))
            }
        } catch { throw bad("table \"\(layer)\": \(error.message)") }
        guard !columns.isEmpty else { throw bad("layer \"\(layer)\" is listed in gpkg_contents but has no table") }
        return (db, LayerTable(layer: layer, geometryColumn: geometryColumn, srsID: srsID, columns: columns))
    }

    struct BlobError: Error { var message: String }

    /// A GeoPackage geometry blob as a point: the header's magic, version,
    /// flags, SRS id and envelope checked, the WKB after it read by GEOS.
    static func readPoint(_ blob: [UInt8], srsID: Int64, context: GEOSContext) -> Result<PlanePoint, BlobError> {
        guard blob.count >= 8, blob[0] == 0x47, blob[1] == 0x50 else {
            return .failure(BlobError(message: "the geometry is not a GeoPackage geometry (no \"GP\" header)"))
        }
        guard blob[2] == 0 else { return .failure(BlobError(message: "GeoPackage geometry version \(blob[2]) (only version 0 exists)")) }
        let flags = blob[3]
        guard flags & 0x20 == 0 else { return .failure(BlobError(message: "an extended GeoPackage geometry type (not a point)")) }
        let envelopeBytes: Int
        switch (flags >> 1) & 0x07 {
        case 0: envelopeBytes = 0
        case 1: envelopeBytes = 32
        case 2, 3: envelopeBytes = 48
        case 4: envelopeBytes = 64
        case let e: return .failure(BlobError(message: "GeoPackage envelope indicator \(e) is not defined"))
        }
        let little = flags & 0x01 == 1
        let raw = UInt32(blob[4]) | UInt32(blob[5]) << 8 | UInt32(blob[6]) << 16 | UInt32(blob[7]) << 24
        let srs = Int64(Int32(bitPattern: little ? raw : raw.byteSwapped))
        guard srs == srsID else {
            return .failure(BlobError(message: "the geometry's SRS id \(srs) is not the layer's \(srsID)"))
        }
        guard blob.count >= 8 + envelopeBytes + 5 else { return .failure(BlobError(message: "the geometry is cut short (\(blob.count) bytes)")) }
        if flags & 0x10 != 0 { return .failure(BlobError(message: "an empty geometry")) }
        let geometry: Geometry
        do {
            geometry = try Geometry(wkb: Array(blob[(8 + envelopeBytes)...]), in: context)
        } catch {
            return .failure(BlobError(message: "the geometry's WKB cannot be read: \(error)"))
        }
        guard let p = geometry.pointXY else {
            let type = geometry.typeName
            return .failure(BlobError(message: geometry.isEmpty ? "an empty geometry" : "a \(type), not a point"))
        }
        guard p.x.isFinite, p.y.isFinite else { return .failure(BlobError(message: "an empty geometry")) }
        return .success(p)
    }

    static func open(_ path: String) throws(GeoPackageError) -> SQLite {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw GeoPackageError(file: path, reason: FileManager.default.fileExists(atPath: path) ? "cannot be opened for reading" : "no such file", kind: .unreadable)
        }
        let db: SQLite
        do {
            db = try SQLite(path: path, mode: .readOnly)
            try db.execute("SELECT count(*) FROM sqlite_master")
        } catch {
            throw GeoPackageError(file: path, reason: "not a GeoPackage (SQLite: \(error.message))", kind: .badData)
        }
        return db
    }

    static func layers(_ db: SQLite, _ path: String) throws(GeoPackageError) -> [String] {
        var layers: [String] = []
        do {
            try db.rows("SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY rowid") { row in
                if let name = row.text(0) { layers.append(name) }
            }
        } catch {
            throw GeoPackageError(file: path, reason: "not a GeoPackage: \(error.message)", kind: .badData)
        }
        return layers
    }

    /// SRS 4326 (WGS 84 longitude and latitude, EPSG's) is read as is; any
    /// other is refused with its name, so the user can reproject it
    /// (`ogr2ogr -t_srs EPSG:4326`).
    static func checkSRS(_ db: SQLite, _ srsID: Int64, source: String) throws(GeoPackageError) {
        var row: (name: String, organization: String, code: Int64)?
        do {
            try db.rows("SELECT srs_name, organization, organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = ?", [.int(srsID)]) { r in
                row = (r.text(0) ?? "", r.text(1) ?? "", r.int(2))
            }
        } catch { throw GeoPackageError(file: source, reason: "gpkg_spatial_ref_sys: \(error.message)", kind: .badData) }
        guard let row else {
            throw GeoPackageError(file: source, reason: "the layer's SRS id \(srsID) is not in gpkg_spatial_ref_sys", kind: .badData)
        }
        if row.organization.uppercased() == "EPSG", row.code == 4326 { return }
        throw GeoPackageError(file: source, reason: "the layer is in SRS \(srsID) (\(row.organization):\(row.code), \(row.name)); places are read in EPSG:4326 (WGS 84) only: reproject with ogr2ogr -t_srs EPSG:4326", kind: .badData)
    }
}
