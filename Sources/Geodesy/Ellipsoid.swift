import Foundation

/// An ellipsoid of revolution: the figure of the Earth that distances are measured on.
public struct Ellipsoid: Sendable, Equatable {
    /// Equatorial radius in metres.
    public let semiMajorAxis: Double
    /// Flattening, (a - b) / a.
    public let flattening: Double

    /// The World Geodetic System 1984, the datum of GPS and of CoreLocation.
    public static let wgs84 = Ellipsoid(semiMajorAxis: 6_378_137.0, flattening: 1 / 298.257223563)

    public init(semiMajorAxis: Double, flattening: Double) {
        self.semiMajorAxis = semiMajorAxis
        self.flattening = flattening
    }

    /// First eccentricity squared.
    public var eccentricitySquared: Double { flattening * (2 - flattening) }

    /// Meridional radius of curvature M(φ) in metres at latitude `latitude` degrees.
    public func meridionalRadius(atLatitude latitude: Double) -> Double {
        let s = GeoMath.sincosd(latitude).s
        let w2 = 1 - eccentricitySquared * s * s
        return semiMajorAxis * (1 - eccentricitySquared) / (w2 * w2.squareRoot())
    }

    /// Prime-vertical radius of curvature N(φ) in metres at latitude `latitude` degrees.
    public func primeVerticalRadius(atLatitude latitude: Double) -> Double {
        let s = GeoMath.sincosd(latitude).s
        return semiMajorAxis / (1 - eccentricitySquared * s * s).squareRoot()
    }

    /// Earth-centred, Earth-fixed Cartesian position in metres of a point on the surface.
    public func ecef(_ c: Coordinate, height: Double = 0) -> SIMD3<Double> {
        let (sphi, cphi) = GeoMath.sincosd(c.latitude)
        let (slam, clam) = GeoMath.sincosd(c.longitude)
        let n = semiMajorAxis / (1 - eccentricitySquared * sphi * sphi).squareRoot()
        let r = (n + height) * cphi
        return SIMD3(r * clam, r * slam, (n * (1 - eccentricitySquared) + height) * sphi)
    }

    /// Converts a region size in metres to degrees at `latitude`, with the
    /// radii of curvature there: `latDelta = metres / (M·π/180)`,
    /// `lonDelta = metres / (N·cos φ·π/180)`.
    public func degrees(metresNorthSouth: Double, metresEastWest: Double, atLatitude latitude: Double) -> (latitudeDelta: Double, longitudeDelta: Double) {
        let m = meridionalRadius(atLatitude: latitude)
        let n = primeVerticalRadius(atLatitude: latitude)
        let c = GeoMath.sincosd(latitude).c
        return (metresNorthSouth / (m * .pi / 180), metresEastWest / (n * c * .pi / 180))
    }
}
