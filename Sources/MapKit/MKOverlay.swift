#if !canImport(Darwin)
import CoreLocation
import Foundation

/// A shape laid over the map (`MKMapView.addOverlay(_:)`): an annotation
/// with the rectangle of map points it covers.
public protocol MKOverlay: MKAnnotation {
    /// The smallest rectangle of map points that holds the overlay.
    var boundingMapRect: MKMapRect { get }
    /// Whether the overlay may lie in `mapRect` (by default: whether its bounding rectangle meets it).
    func intersects(_ mapRect: MKMapRect) -> Bool
    /// Whether the overlay covers the map entirely (by default: no).
    var canReplaceMapContent: Bool { get }
}

extension MKOverlay {
    /// Whether `boundingMapRect` meets `mapRect`.
    public func intersects(_ mapRect: MKMapRect) -> Bool { boundingMapRect.intersects(mapRect) }
    /// No: the map shows under the overlay.
    public var canReplaceMapContent: Bool { false }
}

/// Where an overlay lies among the map's layers, with Apple's raw values.
public enum MKOverlayLevel: Int, Sendable {
    /// Above the roads, below the labels.
    case aboveRoads = 0
    /// Above the labels.
    case aboveLabels = 1
}

extension MKMapRect {
    /// The smallest rectangle holding the map points of `coordinates` (the
    /// null rectangle for none; a line across the antimeridian is not handled).
    init(bounding coordinates: [CLLocationCoordinate2D]) {
        guard let first = coordinates.first.map(MKMapPoint.init) else {
            self = .null
            return
        }
        var minX = first.x, minY = first.y, maxX = first.x, maxY = first.y
        for point in coordinates.dropFirst().map(MKMapPoint.init) {
            minX = min(minX, point.x)
            minY = min(minY, point.y)
            maxX = max(maxX, point.x)
            maxY = max(maxY, point.y)
        }
        self.init(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}
#endif
