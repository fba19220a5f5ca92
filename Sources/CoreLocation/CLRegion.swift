#if !canImport(Darwin)
import Foundation
import Geodesy

/// A monitored area, identified by `identifier` (two regions with the same
/// identifier are the same region, as `startMonitoring(for:)` treats them).
open class CLRegion: NSObject {
    public let identifier: String
    open var notifyOnEntry = true
    open var notifyOnExit = true

    public init(identifier: String) {
        self.identifier = identifier
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLRegion else { return false }
        return other.identifier == identifier && type(of: other) == type(of: self)
    }

    open override var hash: Int { identifier.hashValue }
}

/// A circle around a centre, radius in metres; inside means within the
/// radius by the WGS84 geodesic.
open class CLCircularRegion: CLRegion {
    public let center: CLLocationCoordinate2D
    public let radius: CLLocationDistance

    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        self.center = center
        self.radius = radius
        super.init(identifier: identifier)
    }

    open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        Geodesic.wgs84.inverse(latitude1: center.latitude, longitude1: center.longitude,
                               latitude2: coordinate.latitude, longitude2: coordinate.longitude).distance <= radius
    }

    open override var description: String {
        "CLCircularRegion (identifier:'\(identifier)', center:<\(center.latitude),\(center.longitude)>, radius:\(radius))"
    }
}
#endif
