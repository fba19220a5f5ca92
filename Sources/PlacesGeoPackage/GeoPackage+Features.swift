import Foundation
import GEOS
import Geodesy
import Places

/// A point feature of a GeoPackage layer with every attribute column as text:
/// what readers other than the place reader (the address index) take from a layer.
public struct GeoPackageFeature: Equatable, Sendable {
    /// The feature's id: its primary key, else its rowid.
    public var fid: Int64
    /// The attribute columns that are not NULL, by column name, as SQLite writes them as text.
    public var attributes: [String: String]
    /// Where the point is.
    public var coordinate: Coordinate

    /// A feature as the reader found it.
    public init(fid: Int64, attributes: [String: String], coordinate: Coordinate) {
        self.fid = fid
        self.attributes = attributes
        self.coordinate = coordinate
    }
}

extension GeoPackagePlaces {
    /// Every point feature of the layer `source` names (`FILE.gpkg#LAYER`, or
    /// the file's only feature layer), in feature id order, with its
    /// attributes; a feature without a readable point is a rejection with why.
    public static func features(_ source: String) throws(GeoPackageError)
        -> (layer: String, columns: [String], features: [GeoPackageFeature], rejected: [PlaceRejection]) {
        let (db, table) = try open(layerOf: source)
        let attributes = table.columns.map(\.name).filter { $0 != table.geometryColumn }
        let primaryKey = table.columns.first(where: \.primaryKey)?.name
        let select = [primaryKey.map(SQLite.quote) ?? "rowid", SQLite.quote(table.geometryColumn)] + attributes.map(SQLite.quote)
        let sql = "SELECT \(select.joined(separator: ", ")) FROM \(SQLite.quote(table.layer)) ORDER BY 1"
        let context: GEOSContext
        do { context = try GEOSContext() } catch { throw GeoPackageError(file: source, reason: "GEOS: \(error)", kind: .badData) }
        var features: [GeoPackageFeature] = []
        var rejected: [PlaceRejection] = []
        do {
            try db.rows(sql) { row in
                let fid = row.int(0)
                func reject(_ reason: String) { rejected.append(PlaceRejection(file: source, entry: "feature \(fid)", reason: reason)) }
                guard let blob = row.blob(1) else { return reject("no geometry (NULL)") }
                switch readPoint(blob, srsID: table.srsID, context: context) {
                case .failure(let reason):
                    reject(reason.message)
                case .success(let point):
                    guard let coordinate = try? Coordinate(latitude: point.y, longitude: point.x) else {
                        return reject("longitude \(point.x), latitude \(point.y) is not a position on the Earth")
                    }
                    var values: [String: String] = [:]
                    for (k, name) in attributes.enumerated() { values[name] = row.text(k + 2) }
                    features.append(GeoPackageFeature(fid: fid, attributes: values, coordinate: coordinate))
                }
            }
        } catch {
            throw GeoPackageError(file: source, reason: "layer \"\(table.layer)\": \(error.message)", kind: .badData)
        }
        return (table.layer, attributes, features, rejected)
    }
}
