#if !canImport(Darwin)
import Foundation
import Geodesy

/// A fix, as CoreLocation's: immutable, with the accuracy conventions
/// (negative means invalid) and `distance(from:)` the exact WGS84 geodesic,
/// which is what iOS gives to the millimetre.
public final class CLLocation: NSObject, Sendable {
    public let coordinate: CLLocationCoordinate2D
    public let altitude: CLLocationDistance
    public let ellipsoidalAltitude: CLLocationDistance
    public let horizontalAccuracy: CLLocationAccuracy
    public let verticalAccuracy: CLLocationAccuracy
    public let course: CLLocationDirection
    public let courseAccuracy: CLLocationDirectionAccuracy
    public let speed: CLLocationSpeed
    public let speedAccuracy: CLLocationSpeedAccuracy
    public let timestamp: Date

    public init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
                verticalAccuracy: CLLocationAccuracy, course: CLLocationDirection, courseAccuracy: CLLocationDirectionAccuracy,
                speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date) {
        self.coordinate = coordinate
        self.altitude = altitude
        ellipsoidalAltitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
    }

    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0, horizontalAccuracy: 0,
                  verticalAccuracy: -1, course: -1, courseAccuracy: -1, speed: -1, speedAccuracy: -1, timestamp: Date())
    }

    public convenience init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
                            verticalAccuracy: CLLocationAccuracy, timestamp: Date) {
        self.init(coordinate: coordinate, altitude: altitude, horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
                  course: -1, courseAccuracy: -1, speed: -1, speedAccuracy: -1, timestamp: timestamp)
    }

    public convenience init(coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
                            verticalAccuracy: CLLocationAccuracy, course: CLLocationDirection, speed: CLLocationSpeed, timestamp: Date) {
        self.init(coordinate: coordinate, altitude: altitude, horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
                  course: course, courseAccuracy: -1, speed: speed, speedAccuracy: -1, timestamp: timestamp)
    }

    /// The WGS84 geodesic distance in metres (Karney's method, within 1e-6 m).
    public func distance(from location: CLLocation) -> CLLocationDistance {
        Geodesic.wgs84.inverse(latitude1: coordinate.latitude, longitude1: coordinate.longitude,
                               latitude2: location.coordinate.latitude, longitude2: location.coordinate.longitude).distance
    }

    /// As iOS prints a location.
    public override var description: String {
        let position = String(format: "<%+.8f,%+.8f> +/- %.2fm (speed %.2f mps / course %.2f)",
                              coordinate.latitude, coordinate.longitude, horizontalAccuracy, speed, course)
        return "\(position) @ \(ISO8601DateFormatter().string(from: timestamp))"
    }
}
#endif
