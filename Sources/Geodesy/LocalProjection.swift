import Foundation

/// A local metric plane around an origin for city-scale geometry: the
/// azimuthal equidistant projection on the WGS84 ellipsoid, computed with
/// Karney's geodesics, with x east and y north in metres.
///
/// Distances and azimuths from the origin are exact (to Karney's precision).
/// Between two other points within `r` of the origin the projected distance
/// differs from the geodesic by a relative error below `(r/R)²/6`, R ≈ 6371 km:
/// under 4.2e-7 within 10 km (4 mm over 10 km), under 1.1e-6 within 16 km.
/// The test suite checks this bound against Karney's inverse.
public struct LocalProjection: Sendable, Equatable {
    public let origin: Coordinate
    private let geodesic: Geodesic

    public init(origin: Coordinate, geodesic: Geodesic = .wgs84) {
        self.origin = origin
        self.geodesic = geodesic
    }

    public static func == (lhs: LocalProjection, rhs: LocalProjection) -> Bool {
        lhs.origin == rhs.origin && lhs.geodesic.ellipsoid == rhs.geodesic.ellipsoid
    }

    /// Metres east and north of the origin.
    public func project(_ c: Coordinate) -> (x: Double, y: Double) {
        let inv = geodesic.inverse(origin, c)
        let (s, co) = GeoMath.sincosd(inv.azimuth1)
        return (inv.distance * s, inv.distance * co)
    }

    /// The coordinate `x` metres east and `y` metres north of the origin.
    public func unproject(x: Double, y: Double) -> Coordinate {
        let distance = hypot(x, y)
        guard distance > 0 else { return origin }
        return geodesic.direct(from: origin, azimuth: GeoMath.atan2d(x, y), distance: distance).coordinate
    }
}
