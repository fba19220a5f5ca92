#if !canImport(Darwin)
import CoreLocation
import Foundation

/// A line through coordinates in order, as a route's `polyline` gives it; an
/// overlay of the map.
open class MKPolyline: MKMultiPoint, MKOverlay {
    /// A line through the first `count` coordinates at `coords`.
    public init(coordinates coords: UnsafePointer<CLLocationCoordinate2D>, count: Int) {
        super.init(points: Self.coordinates(coords, count))
    }

    /// A line through the first `count` map points at `points`.
    public init(points: UnsafePointer<MKMapPoint>, count: Int) {
        super.init(points: Self.coordinates(points, count))
    }

    /// The smallest rectangle of map points holding every point (a shape across the antimeridian is not handled).
    open var boundingMapRect: MKMapRect { MKMapRect(bounding: points) }
}
#endif
