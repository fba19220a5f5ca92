/// A position on the WGS84 ellipsoid, in degrees.
///
/// A `Coordinate` is always valid: the throwing initialiser refuses NaN,
/// infinities and latitudes outside [-90, 90], and longitudes outside
/// [-180, 180] (input data is never silently wrapped). Longitudes that Stroll
/// *computes* are normalised to [-180, 180] with ``normalizedLongitude(_:)``.
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    public let latitude: Double
    public let longitude: Double

    /// Why a pair of numbers is not a coordinate.
    public enum Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        case latitudeNotFinite(Double)
        case longitudeNotFinite(Double)
        case latitudeOutOfRange(Double)
        case longitudeOutOfRange(Double)

        public var description: String {
            switch self {
            case .latitudeNotFinite(let v): return "latitude \(v) is not a finite number"
            case .longitudeNotFinite(let v): return "longitude \(v) is not a finite number"
            case .latitudeOutOfRange(let v): return "latitude \(v) is outside [-90, 90]"
            case .longitudeOutOfRange(let v): return "longitude \(v) is outside [-180, 180]"
            }
        }
    }

    /// Validates and stores a latitude and longitude in degrees.
    public init(latitude: Double, longitude: Double) throws(Invalid) {
        guard latitude.isFinite else { throw .latitudeNotFinite(latitude) }
        guard longitude.isFinite else { throw .longitudeNotFinite(longitude) }
        guard (-90.0...90.0).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
        guard (-180.0...180.0).contains(longitude) else { throw .longitudeOutOfRange(longitude) }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values Stroll computed itself: the latitude is clamped to [-90, 90]
    /// and the longitude normalised to [-180, 180].
    public init(computedLatitude latitude: Double, longitude: Double) {
        self.latitude = min(90, max(-90, latitude))
        self.longitude = normalizedLongitude(longitude)
    }

    public var description: String { "(\(latitude), \(longitude))" }
}

/// `longitude` reduced to [-180, 180], keeping ±180 as given.
public func normalizedLongitude(_ longitude: Double) -> Double {
    GeoMath.angNormalize(longitude)
}
