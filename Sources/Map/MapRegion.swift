import Foundation
import Geodesy

/// A rectangle of the map, as `MKCoordinateRegion`: a centre and a span in degrees.
public struct MapRegion: Equatable, Sendable {
    public var center: Coordinate
    public var latitudeDelta: Double
    public var longitudeDelta: Double

    public init(center: Coordinate, latitudeDelta: Double, longitudeDelta: Double) {
        self.center = center
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
    }

    /// A region `latitudinalMeters` tall and `longitudinalMeters` wide around `center`
    /// (`MKCoordinateRegionMakeWithDistance`), converted with the WGS84 radii of
    /// curvature at the centre: `latDelta = m / (M(φ)·π/180)`, `lonDelta = m / (N(φ)·cos φ·π/180)`.
    public init(center: Coordinate, latitudinalMeters: Double, longitudinalMeters: Double, ellipsoid: Ellipsoid = .wgs84) {
        let d = ellipsoid.degrees(metresNorthSouth: latitudinalMeters, metresEastWest: longitudinalMeters, atLatitude: center.latitude)
        self.init(center: center, latitudeDelta: d.latitudeDelta, longitudeDelta: min(360, d.longitudeDelta))
    }

    /// Whether the span is one a map can show: more than 0, at most 180° of
    /// latitude and 360° of longitude, and numbers.
    public var isValid: Bool {
        latitudeDelta > 0 && latitudeDelta <= 180 && longitudeDelta > 0 && longitudeDelta <= 360
            && center.latitude.isFinite && center.longitude.isFinite
    }

    /// Whether `c` lies inside the rectangle (edges included), across the antimeridian too.
    public func contains(_ c: Coordinate) -> Bool {
        guard abs(c.latitude - center.latitude) <= latitudeDelta / 2 else { return false }
        if longitudeDelta >= 360 { return true }
        var dLon = abs(c.longitude - center.longitude)
        if dLon > 180 { dLon = 360 - dLon }
        return dLon <= longitudeDelta / 2
    }

    /// The same span around another centre (`setCenter` keeps the zoom level).
    public func centered(on c: Coordinate) -> MapRegion {
        MapRegion(center: c, latitudeDelta: latitudeDelta, longitudeDelta: longitudeDelta)
    }

    /// The smallest region holding all `coordinates`, grown by `padding` (0.1 = 10 % each side),
    /// crossing the antimeridian when that is narrower (`showAnnotations`).
    public static func fitting(_ coordinates: [Coordinate], padding: Double = 0.1, minimumDelta: Double = 0.002) -> MapRegion? {
        guard let first = coordinates.first else { return nil }
        let lats = coordinates.map(\.latitude)
        let minLat = lats.min() ?? first.latitude, maxLat = lats.max() ?? first.latitude
        // Longitudes: the narrowest arc that covers them all (largest gap left out).
        let lons = coordinates.map(\.longitude).sorted()
        var gapStart = lons[lons.count - 1], gap = lons[0] + 360 - lons[lons.count - 1]
        for (a, b) in zip(lons, lons.dropFirst()) where b - a > gap {
            gap = b - a
            gapStart = a
        }
        let west = gapStart + gap
        let width = 360 - gap
        let centreLon = normalizedLongitude(west + width / 2)
        let latDelta = max(minimumDelta, (maxLat - minLat) * (1 + 2 * padding))
        let lonDelta = max(minimumDelta, min(360, width * (1 + 2 * padding)))
        let centre = (try? Coordinate(latitude: (minLat + maxLat) / 2, longitude: centreLon)) ?? first
        return MapRegion(center: centre, latitudeDelta: min(180, latDelta), longitudeDelta: lonDelta)
    }
}
