import Foundation
import PlacesGeoPackage
import Proximity
import Replay
import Traces

/// A replay's run as a GeoPackage a GIS opens (`stroll replay --gpkg FILE`),
/// kept out of Replay so that only what writes GeoPackages links SQLite.
///
/// - `fixes`: the delivered fixes (points) with `t` (seconds from the start),
///   `time` (ISO 8601), the accuracies, altitude, speed and course;
/// - `places`: the ranked places (points) with `id`, `name`, `subtitle`, `group`;
/// - `order_changes`: a table without geometry, one row per place per order
///   change, keyed by `t`, `group` and `rank`: `place_id`, `name`,
///   `distance_m` and `previous_rank` (the place's rank in that group's
///   previous order; NULL in the first order and for a place that joined).
public enum RunGeoPackage {
    public static func write(_ report: RunReport, places: [Place], to path: String) throws {
        let writer: GeoPackageWriter
        do {
            writer = try GeoPackageWriter(path: path)
            try writer.addPointLayer("fixes", columns: [("t", .real), ("time", .text), ("horizontal_accuracy", .real), ("vertical_accuracy", .real),
                                                       ("altitude", .real), ("speed", .real), ("course", .real)],
                                     description: "the delivered fixes")
            var times: [Double: String] = [:]
            for (l, t) in report.delivered {
                let time = ISO8601Time.format(l.timestamp)
                times[t] = time
                try writer.insert("fixes", at: l.coordinate, [.double(t), .text(time), .double(l.horizontalAccuracy), .double(l.verticalAccuracy),
                                                              .double(l.altitude), .double(l.speed), .double(l.course)])
            }
            try writer.addPlaces(places)
            try writer.addAttributeTable("order_changes", columns: [("t", .real), ("time", .text), ("group", .text), ("rank", .integer),
                                                                    ("place_id", .text), ("name", .text), ("distance_m", .real), ("previous_rank", .integer)],
                                         description: "each order change: one row per place, keyed by t, group and rank")
            var previous: [String: [String: Int]] = [:]
            for (t, group, update) in report.orderChanges {
                let before = previous[group]
                var ranks: [String: Int] = [:]
                for (k, id) in update.order.enumerated() {
                    ranks[id] = k + 1
                    let was = before?[id].map { GeoPackageWriter.Value.int(Int64($0)) } ?? .null
                    try writer.insert("order_changes", [.double(t), times[t].map(GeoPackageWriter.Value.text) ?? .null, .text(group), .int(Int64(k + 1)),
                                                        .text(id), .text(update.names[k]), .double(update.distances[k]), was])
                }
                previous[group] = ranks
            }
            try writer.finish()
        } catch {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: error.description])
        }
    }
}
