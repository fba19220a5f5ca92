#if !canImport(Darwin)
import CoreLocation
import Foundation

/// A circle of a radius in metres around a coordinate; an overlay of the map.
open class MKCircle: MKShape, MKOverlay {
    private let center: CLLocationCoordinate2D
    /// The radius in metres.
    public let radius: CLLocationDistance

    /// A circle of `radius` metres around `coord`.
    public init(center coord: CLLocationCoordinate2D, radius: CLLocationDistance) {
        center = coord
        self.radius = radius
        super.init()
    }

    /// The circle that fills `mapRect`: at its middle, its radius half the
    /// longer side, in metres at the middle's latitude.
    public convenience init(mapRect: MKMapRect) {
        let middle = MKMapPoint(x: mapRect.midX, y: mapRect.midY).coordinate
        self.init(center: middle, radius: max(mapRect.width, mapRect.height) / 2 / MKMapPointsPerMeterAtLatitude(middle.latitude))
    }

    /// The centre.
    open override var coordinate: CLLocationCoordinate2D { center }

    /// The square of map points around the centre whose half side is the
    /// radius at the centre's Mercator scale.
    open var boundingMapRect: MKMapRect {
        let middle = MKMapPoint(center)
        let half = radius * MKMapPointsPerMeterAtLatitude(center.latitude)
        return MKMapRect(x: middle.x - half, y: middle.y - half, width: 2 * half, height: 2 * half)
    }
}
#endif
