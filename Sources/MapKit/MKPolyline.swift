#if !canImport(Darwin)
import CoreLocation
import Foundation

/// A line through coordinates in order, as a route's `polyline` gives it.
open class MKPolyline: MKShape {
    private let points: [CLLocationCoordinate2D]

    /// A line through the first `count` coordinates at `coords`.
    public init(coordinates coords: UnsafePointer<CLLocationCoordinate2D>, count: Int) {
        points = Array(UnsafeBufferPointer(start: coords, count: max(count, 0)))
        super.init()
    }

    /// How many points the line has.
    open var pointCount: Int { points.count }

    /// Copies the points in `range` to `coords`.
    open func getCoordinates(_ coords: UnsafeMutablePointer<CLLocationCoordinate2D>, range: NSRange) {
        let lower = max(range.location, 0), upper = min(range.location + range.length, points.count)
        guard lower < upper else { return }
        for k in lower..<upper { coords[k - lower] = points[k] }
    }

    /// The middle of the line's bounding box (in degrees; a line across the antimeridian is not handled).
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
}
#endif
