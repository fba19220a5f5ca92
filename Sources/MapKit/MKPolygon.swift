#if !canImport(Darwin)
import CoreLocation
import Foundation

/// A closed shape through coordinates in order, with holes; an overlay of the map.
open class MKPolygon: MKMultiPoint, MKOverlay {
    /// The holes cut out of the shape.
    public let interiorPolygons: [MKPolygon]?

    /// A polygon through the first `count` coordinates at `coords`.
    public convenience init(coordinates coords: UnsafePointer<CLLocationCoordinate2D>, count: Int) {
        self.init(coordinates: coords, count: count, interiorPolygons: nil)
    }

    /// A polygon through the first `count` coordinates at `coords`, less `interiorPolygons`.
    public init(coordinates coords: UnsafePointer<CLLocationCoordinate2D>, count: Int, interiorPolygons: [MKPolygon]?) {
        self.interiorPolygons = interiorPolygons
        super.init(points: Self.coordinates(coords, count))
    }

    /// A polygon through the first `count` map points at `points`.
    public init(points: UnsafePointer<MKMapPoint>, count: Int) {
        interiorPolygons = nil
        super.init(points: Self.coordinates(points, count))
    }

    /// The smallest rectangle of map points holding every point (a shape across the antimeridian is not handled).
    open var boundingMapRect: MKMapRect { MKMapRect(bounding: points) }
}
#endif
