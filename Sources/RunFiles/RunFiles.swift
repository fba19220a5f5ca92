import Foundation
import Proximity
import Replay
import Traces

/// A replay's run written as the files people open beside it: GeoJSON (the
/// walk, the fixes, the ranked places, where the nearest changed), GPX (the
/// delivered fixes), a GeoPackage (``RunGeoPackage``), an SVG map and an HTML
/// page (``Replay/RunMap``). Each file is written atomically; a path left nil is not
/// written. Kept apart from Replay so that only what writes GeoPackages links
/// SQLite.
public struct RunFiles: Sendable {
    public var geoJSON: String?
    public var gpx: String?
    public var geoPackage: String?
    public var svg: String?
    public var html: String?

    public init(geoJSON: String? = nil, gpx: String? = nil, geoPackage: String? = nil, svg: String? = nil, html: String? = nil) {
        self.geoJSON = geoJSON
        self.gpx = gpx
        self.geoPackage = geoPackage
        self.svg = svg
        self.html = html
    }

    /// What `RunReport.record` must keep for these files: every ranking (the
    /// HTML page) and every order change (the GeoPackage).
    public var needsHistory: Bool { html != nil }
    public var needsOrderChanges: Bool { geoPackage != nil }

    /// Writes the files asked for; returns the paths written, in order.
    /// `streets`, when given, is asked for the streets and footpaths within
    /// the box of coordinates the map shows (south, west, north, east), and
    /// the SVG map and the HTML page draw them under the walk.
    @discardableResult
    public func write(_ report: RunReport, places: [Place], distanceFilter: Double,
                      streets: ((_ bounds: (south: Double, west: Double, north: Double, east: Double)) -> [MapStreet])? = nil) throws -> [String] {
        var written: [String] = []
        if let path = geoJSON {
            try TraceWriter.writeAtomically(report.geoJSON(places: places).text + "\n", to: path)
            written.append(path)
        }
        if let path = gpx {
            try TraceWriter.writeAtomically(TraceWriter.gpx(report.deliveredTrace()), to: path)
            written.append(path)
        }
        if let path = geoPackage {
            try RunGeoPackage.write(report, places: places, to: path)
            written.append(path)
        }
        if svg != nil || html != nil {
            var map = RunMap(report: report, places: places, distanceFilter: distanceFilter)
            if let streets { map.drawStreets(streets(map.visibleBounds)) }
            if let path = svg {
                try TraceWriter.writeAtomically(map.svg(), to: path)
                written.append(path)
            }
            if let path = html {
                try TraceWriter.writeAtomically(map.html(), to: path)
                written.append(path)
            }
        }
        return written
    }
}
