import Foundation
import Geodesy

/// Reads a GeoJSON trace: `LineString` and `MultiLineString` features are
/// tracks (a segment per line), with times from the common `coordTimes` or
/// `times` properties (arrays parallel to the coordinates, nested for a
/// MultiLineString) or none; `Point` features are waypoints, with `name` and
/// `time` properties. A bare geometry or a single feature reads too.
///
/// Unlike the XML and line readers, this one parses the whole file
/// (Foundation's JSONSerialization) and so holds it in memory; files over
/// ``maximumBytes`` are refused. Rejections name the feature and the position
/// in place of a line, which JSON parsers do not report.
enum GeoJSONTrace {
    static let maximumBytes = 512 << 20

    static func read(_ source: ByteSource) throws(TraceError) -> Trace {
        var bytes: [UInt8] = []
        while let chunk = try source.nextChunk() {
            bytes.append(contentsOf: chunk)
            if bytes.count > maximumBytes {
                throw TraceError(.malformed, file: source.path, reason: "GeoJSON files over \(maximumBytes >> 20) MiB are not read; convert it to GPX")
            }
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw TraceError(.malformed, file: source.path, line: 1, column: 1, reason: "not JSON: \(ErrorWords.reason(error))")
        }
        guard let object = root as? [String: Any], let type = object["type"] as? String else {
            throw TraceError(.malformed, file: source.path, line: 1, column: 1, reason: "not GeoJSON: no \"type\" at the top")
        }
        var trace = Trace(format: .geojson)
        let features: [[String: Any]]
        switch type {
        case "FeatureCollection": features = object["features"] as? [[String: Any]] ?? []
        case "Feature": features = [object]
        default: features = [["type": "Feature", "geometry": object, "properties": [String: Any]()]]
        }
        for (k, feature) in features.enumerated() {
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let geometry = feature["geometry"] as? [String: Any], let kind = geometry["type"] as? String else { continue }
            let name = properties["name"] as? String
            let label = "feature \(k + 1)"
            switch kind {
            case "Point":
                if var fix = point(geometry["coordinates"], label: label, into: &trace) {
                    fix.name = name
                    fix.description = properties["description"] as? String
                    fix.time = (properties["time"] as? String).flatMap { ISO8601Time.parse($0)?.seconds }
                    trace.waypoints.append(fix)
                }
            case "LineString":
                let times = (properties["coordTimes"] ?? properties["times"]) as? [Any]
                trace.tracks.append(Track(name: name, segments: [segment(geometry["coordinates"], times: times, label: label, into: &trace)]))
            case "MultiLineString":
                let times = (properties["coordTimes"] ?? properties["times"]) as? [Any]
                let lines = geometry["coordinates"] as? [Any] ?? []
                let segments = lines.enumerated().map { j, line in
                    segment(line, times: times.flatMap { j < $0.count ? $0[j] as? [Any] : nil }, label: "\(label) line \(j + 1)", into: &trace)
                }
                trace.tracks.append(Track(name: name, segments: segments))
            default:
                break
            }
        }
        return trace
    }

    private static func point(_ value: Any?, label: String, into trace: inout Trace) -> Fix? {
        guard let c = value as? [Any], c.count >= 2, let lon = (c[0] as? NSNumber)?.doubleValue, let lat = (c[1] as? NSNumber)?.doubleValue else {
            trace.rejected.append(Rejection(line: 0, reason: "\(label): a position is not [longitude, latitude]"))
            return nil
        }
        do {
            var fix = Fix(coordinate: try Coordinate(latitude: lat, longitude: lon), line: 0)
            if c.count >= 3 { fix.elevation = (c[2] as? NSNumber)?.doubleValue }
            return fix
        } catch {
            trace.rejected.append(Rejection(line: 0, reason: "\(label): \(error.description)"))
            return nil
        }
    }

    private static func segment(_ value: Any?, times: [Any]?, label: String, into trace: inout Trace) -> Segment {
        var fixes: [Fix] = []
        for (i, position) in (value as? [Any] ?? []).enumerated() {
            guard var fix = point(position, label: "\(label) position \(i + 1)", into: &trace) else { continue }
            if let times, i < times.count {
                let t: Double?
                if let s = times[i] as? String { t = ISO8601Time.parse(s)?.seconds } else { t = (times[i] as? NSNumber).map { $0.doubleValue > 1e11 ? $0.doubleValue / 1000 : $0.doubleValue } }
                guard let t else {
                    trace.rejected.append(Rejection(line: 0, reason: "\(label) position \(i + 1): time \(times[i]) is not a date-time"))
                    continue
                }
                if let last = fixes.last?.time, t < last {
                    trace.rejected.append(Rejection(line: 0, reason: "\(label) position \(i + 1): time \(ISO8601Time.format(t)) is before the previous position's"))
                    continue
                }
                fix.time = t
            }
            fixes.append(fix)
        }
        return Segment(fixes: fixes)
    }
}
