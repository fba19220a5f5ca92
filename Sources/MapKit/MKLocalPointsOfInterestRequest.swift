#if !canImport(Darwin)
import CoreLocation
import Foundation
import Geodesy

/// A request for the points of interest in a circle or a region, whatever
/// their names (`MKLocalSearch(request:)`).
open class MKLocalPointsOfInterestRequest: NSObject {
    /// The centre of the circle or region.
    public let coordinate: CLLocationCoordinate2D
    /// The circle's radius in metres; for a region, the geodesic distance
    /// from its centre to its farthest corner.
    public let radius: CLLocationDistance
    /// The region searched: the one given, or the circle's bounding region.
    public let region: MKCoordinateRegion
    /// Which categories to keep (nil: all).
    open var pointOfInterestFilter: MKPointOfInterestFilter?
    /// The region given to `init(coordinateRegion:)`; nil for a circle.
    let searchedRegion: MKCoordinateRegion?

    /// The places within `radius` metres of `coordinate` (WGS84 geodesic).
    public init(center coordinate: CLLocationCoordinate2D, radius: CLLocationDistance) {
        self.coordinate = coordinate
        self.radius = radius
        region = MKCoordinateRegion(center: coordinate, latitudinalMeters: 2 * radius, longitudinalMeters: 2 * radius)
        searchedRegion = nil
        super.init()
    }

    /// The places inside `region`'s rectangle.
    public init(coordinateRegion region: MKCoordinateRegion) {
        coordinate = region.center
        self.region = region
        searchedRegion = region
        let center = Coordinate(computedLatitude: region.center.latitude, longitude: region.center.longitude)
        var farthest = 0.0
        for (dLat, dLon) in [(1.0, 1.0), (1, -1), (-1, 1), (-1, -1)] {
            let corner = Coordinate(computedLatitude: region.center.latitude + dLat * region.span.latitudeDelta / 2,
                                    longitude: region.center.longitude + dLon * region.span.longitudeDelta / 2)
            farthest = max(farthest, Geodesic.wgs84.distance(center, corner))
        }
        radius = farthest
        super.init()
    }
}
#endif
