import CoreLocation
import Foundation
import MapKit

/// "Take me to a coffee": the nearest coffee house a local search finds
/// around the phone, and walking directions to it, asked of MapKit as an app
/// asks (`MKLocalSearch`, then `MKDirections` with `.walking`).
@MainActor
public final class CoffeeDirections {
    /// The coffee house the last directions lead to.
    public private(set) var destination: MKMapItem?
    /// The last directions found.
    public private(set) var route: MKRoute?

    public init() {}

    /// Searches for "coffee" within `radius` metres of `location`, picks the
    /// nearest result and asks for walking directions to it. Throws MapKit's
    /// errors, and `.placemarkNotFound` when the search finds nothing.
    @discardableResult
    public func toNearestCoffee(from location: CLLocation, radius: CLLocationDistance = 1500) async throws -> MKRoute {
        let search = MKLocalSearch.Request()
        search.naturalLanguageQuery = "coffee"
        search.region = MKCoordinateRegion(center: location.coordinate, latitudinalMeters: 2 * radius, longitudinalMeters: 2 * radius)
        let items = try await MKLocalSearch(request: search).start().mapItems
        func distance(_ item: MKMapItem) -> CLLocationDistance {
            location.distance(from: CLLocation(latitude: item.placemark.coordinate.latitude, longitude: item.placemark.coordinate.longitude))
        }
        guard let nearest = items.min(by: { distance($0) < distance($1) }) else { throw MKError(.placemarkNotFound) }
        let request = MKDirections.Request()
        request.source = MKMapItem(placemark: MKPlacemark(coordinate: location.coordinate))
        request.destination = nearest
        request.transportType = .walking
        guard let route = try await MKDirections(request: request).calculate().routes.first else { throw MKError(.directionsNotFound) }
        destination = nearest
        self.route = route
        return route
    }
}
