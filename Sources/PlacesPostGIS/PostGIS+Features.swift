import Foundation
import Geodesy
import Places

/// A row of a PostGIS table read as a point feature: its other columns as
/// text and where its point is.
public struct PostGISFeature: Equatable, Sendable {
    /// The row's number in the order read (from 1).
    public var row: Int64
    /// The columns other than the geometry that are not NULL, by name, as PostgreSQL writes them as text.
    public var attributes: [String: String]
    /// Where the point is.
    public var coordinate: Coordinate

    /// A feature as the reader found it.
    public init(row: Int64, attributes: [String: String], coordinate: Coordinate) {
        self.row = row
        self.attributes = attributes
        self.coordinate = coordinate
    }
}

extension PostGISPlaces {
    /// Every row of `source`'s table as a point feature, for readers that
    /// take their columns by name (addresses): the geometry column as for
    /// places (the URI's `geometry=`, else the first; SRID 4326), every other
    /// column as text, in the order of the first of `ogc_fid` (the key
    /// `ogr2ogr` adds), `fid`, `gid`, `id`, `osm_id` the table has (else as it
    /// returns them). A row whose geometry
    /// is NULL, not a point, empty or not a position on the Earth is a
    /// rejection naming the row.
    public static func features(_ source: PostGISSource) throws(PostGISError)
        -> (table: String, columns: [String], features: [PostGISFeature], rejected: [PlaceRejection]) {
        let connection = try Connection(source)
        let (relation, label, columns, geometry) = try describe(connection, source, sql: nil)
        let attributes = columns.map(\.name).filter { $0 != geometry }
        let point = "\(quote(geometry))::geometry"
        let order = ["ogc_fid", "fid", "gid", "id", "osm_id"].first { attributes.contains($0) }
        let select = ["GeometryType(\(point))", "CASE WHEN GeometryType(\(point)) = 'POINT' THEN ST_X(\(point)) END",
                      "CASE WHEN GeometryType(\(point)) = 'POINT' THEN ST_Y(\(point)) END"]
            + attributes.map { "\(quote($0))::text" }
        let rows = try connection.rows("SELECT \(select.joined(separator: ", ")) FROM \(relation)\(order.map { " ORDER BY \(quote($0))" } ?? "")")
        var features: [PostGISFeature] = []
        var rejected: [PlaceRejection] = []
        for (k, row) in rows.enumerated() {
            let number = Int64(k + 1)
            func reject(_ reason: String) { rejected.append(PlaceRejection(file: source.redacted, entry: "row \(number)", reason: reason)) }
            guard row.count == select.count else {
                throw PostGISError(source: source.redacted, reason: "cannot read \(label): a row of \(row.count) columns, not \(select.count)", kind: .badData)
            }
            guard let type = row[0] else { reject("no geometry (NULL)"); continue }
            guard type == "POINT" else { reject("a \(type), not a point"); continue }
            guard let x = row[1].flatMap(Double.init), let y = row[2].flatMap(Double.init) else { reject("an empty point"); continue }
            guard let coordinate = try? Coordinate(latitude: y, longitude: x) else {
                reject("longitude \(x), latitude \(y) is not a position on the Earth")
                continue
            }
            var values: [String: String] = [:]
            for (c, name) in attributes.enumerated() { values[name] = row[c + 3] }
            features.append(PostGISFeature(row: number, attributes: values, coordinate: coordinate))
        }
        return (label, attributes, features, rejected)
    }
}
