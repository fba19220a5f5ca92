#if !canImport(Darwin)
import CoreLocation
import Foundation

/// A shape made of points in order: what `MKPolyline` and `MKPolygon` share.
open class MKMultiPoint: MKShape {
    let points: [CLLocationCoordinate2D]

    init(points: [CLLocationCoordinate2D]) {
        self.points = points
        super.init()
    }

    /// How many points the shape has.
    open var pointCount: Int { points.count }

    /// Copies the points in `range` to `coords`.
    open func getCoordinates(_ coords: UnsafeMutablePointer<CLLocationCoordinate2D>, range: NSRange) {
        let lower = max(range.location, 0), upper = min(range.location + range.length, points.count)
        guard lower < upper else { return }
        for k in lower..<upper { coords[k - lower] = points[k] }
    }

    /// The middle of the points' bounding box in degrees (a shape across the antimeridian is not handled).
    open override var coordinate: CLLocationCoordinate2D {
        guard let first = points.first else { return kCLLocationCoordinate2DInvalid }
        var south = first.latitude, north = first.latitude, west = first.longitude, east = first.longitude
        for p in points {
            south = min(south, p.latitude)
            north = max(north, p.latitude)
            west = min(west, p.longitude)
            east = max(east, p.longitude)
        }
        return CLLocationCoordinate2D(latitude: (south + north) / 2, longitude: (west + east) / 2)
    }

    static func coordinates(_ coords: UnsafePointer<CLLocationCoordinate2D>, _ count: Int) -> [CLLocationCoordinate2D] {
        Array(UnsafeBufferPointer(start: coords, count: max(count, 0)))
    }

    static func coordinates(_ points: UnsafePointer<MKMapPoint>, _ count: Int) -> [CLLocationCoordinate2D] {
        UnsafeBufferPointer(start: points, count: max(count, 0)).map(\.coordinate)
    }
}
#endif
