#if !canImport(Darwin)
import Foundation

/// A compass reading, as CoreLocation's: immutable, with the direction
/// conventions (degrees clockwise from north in [0, 360); a negative
/// `trueHeading` or `headingAccuracy` means invalid).
///
/// StrollSimulation's device makes one per fix while heading updates are on
/// (docs/Heading.md): `trueHeading` is the walk's course, `magneticHeading` the
/// course less the World Magnetic Model's declination at the fix's position
/// and time, `headingAccuracy` the model's declination uncertainty there.
public final class CLHeading: NSObject, Sendable {
    /// Degrees clockwise from magnetic north, in [0, 360).
    public let magneticHeading: CLLocationDirection
    /// Degrees clockwise from true north, in [0, 360); -1 when it is unknown.
    public let trueHeading: CLLocationDirection
    /// The largest error of `magneticHeading` expected, degrees; negative when the heading is invalid.
    public let headingAccuracy: CLLocationDirection
    /// When the heading was measured.
    public let timestamp: Date
    /// The geomagnetic field along the device's x axis (to its right), microtesla.
    /// Stroll's device holds the phone flat, screen up, its top along
    /// `trueHeading`, and gives the World Magnetic Model's field there.
    public let x: CLHeadingComponentValue
    /// The field along the device's y axis (to its top), microtesla: see ``x``.
    public let y: CLHeadingComponentValue
    /// The field along the device's z axis (out of the screen, so up), microtesla: see ``x``.
    public let z: CLHeadingComponentValue

    /// A heading with every value given; `x`, `y` and `z` default to 0 (no field known).
    public init(magneticHeading: CLLocationDirection, trueHeading: CLLocationDirection, headingAccuracy: CLLocationDirection,
                timestamp: Date, x: CLHeadingComponentValue = 0, y: CLHeadingComponentValue = 0, z: CLHeadingComponentValue = 0) {
        self.magneticHeading = magneticHeading
        self.trueHeading = trueHeading
        self.headingAccuracy = headingAccuracy
        self.timestamp = timestamp
        self.x = x
        self.y = y
        self.z = z
    }

    /// As iOS prints a heading.
    public override var description: String {
        let values = String(format: "magneticHeading %.2f trueHeading %.2f accuracy %.2f x %+.3f y %+.3f z %+.3f",
                            magneticHeading, trueHeading, headingAccuracy, x, y, z)
        return "\(values) @ \(ISO8601DateFormatter().string(from: timestamp))"
    }
}
#endif
