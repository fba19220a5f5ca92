import Foundation
import Geodesy

extension MonitoredRegion {
    /// Reads regions from GeoJSON: `Point` features with a `radius` property
    /// (metres) and `Polygon` features (outer ring), each with an `id` property.
    public static func loadGeoJSON(_ path: String) throws(RegionFileError) -> [MonitoredRegion] {
        let features = try geoJSONFeatures(path)
        var regions: [MonitoredRegion] = []
        for (i, f) in features.enumerated() {
            func fail(_ reason: String) -> RegionFileError { RegionFileError(file: path, reason: "feature \(i): \(reason)", unreadable: false) }
            guard let feature = f as? [String: Any], let geometry = feature["geometry"] as? [String: Any] else { throw fail("no geometry") }
            let properties = feature["properties"] as? [String: Any] ?? [:]
            guard let id = (properties["id"] as? String) ?? (properties["id"] as? NSNumber).map({ "\($0)" }) ?? (feature["id"] as? String) else {
                throw fail("no id property")
            }
            func coordinate(_ value: Any?) throws(RegionFileError) -> Coordinate {
                guard let pair = value as? [Any], pair.count >= 2, let lon = (pair[0] as? NSNumber)?.doubleValue, let lat = (pair[1] as? NSNumber)?.doubleValue else {
                    throw fail("a position is not [longitude, latitude]")
                }
                do {
                    return try Coordinate(latitude: lat, longitude: lon)
                } catch {
                    throw fail(error.description)
                }
            }
            switch geometry["type"] as? String {
            case "Point":
                guard let radius = (properties["radius"] as? NSNumber)?.doubleValue, radius.isFinite, radius > 0 else {
                    throw fail("a Point region needs a positive radius property (metres)")
                }
                regions.append(.circle(id, center: try coordinate(geometry["coordinates"]), radius: radius))
            case "Polygon":
                guard let rings = geometry["coordinates"] as? [Any], let outer = rings.first as? [Any], outer.count >= 4 else {
                    throw fail("a Polygon needs an outer ring of at least 4 positions")
                }
                var outline: [Coordinate] = []
                for p in outer { outline.append(try coordinate(p)) }
                if outline.first == outline.last { outline.removeLast() }
                regions.append(MonitoredRegion(identifier: id, shape: .polygon(outline)))
            default:
                throw fail("only Point (with radius) and Polygon regions are supported")
            }
        }
        return regions
    }
}

/// The features of a GeoJSON file: a FeatureCollection's, or a lone Feature.
func geoJSONFeatures(_ path: String) throws(RegionFileError) -> [Any] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw RegionFileError(file: path, reason: "no such file or cannot be read", unreadable: true)
    }
    guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw RegionFileError(file: path, reason: "not GeoJSON (not a JSON object)", unreadable: false)
    }
    switch root["type"] as? String {
    case "FeatureCollection": return root["features"] as? [Any] ?? []
    case "Feature": return [root]
    default: throw RegionFileError(file: path, reason: "not GeoJSON: expected a FeatureCollection or a Feature", unreadable: false)
    }
}

/// A GeoJSON file of regions (`--regions`) or environment areas (`--environments`) that cannot be used.
public struct RegionFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var reason: String
    /// The file could not be read at all (exit 66), rather than read and refused (65).
    public var unreadable: Bool
    public var description: String { "\(file): \(reason)" }
}
