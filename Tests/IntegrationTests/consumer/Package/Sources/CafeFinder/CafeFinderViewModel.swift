// App code as an iOS developer writes it, against Apple's CoreLocation and
// MapKit only, in the Swift 5 language mode: a plain NSObject view model with
// no concurrency annotations. On Apple platforms this compiles against the
// SDK; on Linux the same `import`s are Stroll's products.
import CoreLocation
import MapKit

/// A row of the list: a coffee house and how far away it is.
public struct CafeRow: Equatable {
    public let name: String
    public let metres: CLLocationDistance
}

/// The screen: a map with a pin per coffee house, centred on the user, and
/// the coffee houses sorted by distance from the user on every location update.
public class CafeFinderViewModel: NSObject, CLLocationManagerDelegate {
    public let locationManager: CLLocationManager
    public let mapView: MKMapView
    /// The pins, in the order they were added.
    public let cafes: [MKPointAnnotation]
    /// The list, nearest first (empty until the first location).
    public private(set) var rows: [CafeRow] = []
    public private(set) var lastLocation: CLLocation?
    /// How many locations the manager delivered.
    public private(set) var locationsReceived = 0
    /// Called with the list after every location update.
    public var onRowsChange: (([CafeRow]) -> Void)?

    /// The nearest coffee house's name.
    public var nearest: String? { rows.first?.name }

    /// Liverpool coffee houses of the CoffeeShop13 assignment (University of
    /// Liverpool, COMP327, 2013): name, comment, latitude, longitude, as in its
    /// CityCycleRideLocations.plist (Stroll's Fixtures/CityCycleRideLocations.plist).
    static let liverpool: [(name: String, comment: String, latitude: CLLocationDegrees, longitude: CLLocationDegrees)] = [
        ("Leaf", "Fantastic Tea, but the coffee is also good", 53.403198, -2.978942),
        ("Tabac", "Interesting Atmosphere", 53.401892, -2.97628),
        ("07 Cafe Bar", "A quaint, French Style Cafe", 53.403968, -2.972286),
        ("Cafe Time", "A hidden Gem", 53.409627, -2.97046),
        ("Piazza Cafe Bar", "By the Cathedral", 53.4037, -2.9695),
        ("Costa Coffee", "Under the Foundation Building", 53.406, -2.967),
    ]

    public override init() {
        locationManager = CLLocationManager()
        mapView = MKMapView()
        cafes = Self.liverpool.map { cafe in
            let pin = MKPointAnnotation()
            pin.title = cafe.name
            pin.subtitle = cafe.comment
            pin.coordinate = CLLocationCoordinate2D(latitude: cafe.latitude, longitude: cafe.longitude)
            return pin
        }
        super.init()
        mapView.addAnnotations(cafes)
        locationManager.delegate = self
        locationManager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        locationManager.distanceFilter = 25
        locationManager.requestWhenInUseAuthorization()
        locationManager.startUpdatingLocation()
    }

    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let location = locations.last else { return }
        locationsReceived += locations.count
        lastLocation = location
        rows = cafes.map { pin in
            let there = CLLocation(latitude: pin.coordinate.latitude, longitude: pin.coordinate.longitude)
            return CafeRow(name: pin.title ?? "", metres: location.distance(from: there))
        }
        .sorted { ($0.metres, $0.name) < ($1.metres, $1.name) }
        mapView.setRegion(MKCoordinateRegion(center: location.coordinate, latitudinalMeters: 1000, longitudinalMeters: 1000), animated: true)
        onRowsChange?(rows)
    }

    public func locationManager(_ manager: CLLocationManager, didFailWithError error: Error) {
        print("CafeFinder: no location: \(error)")
    }
}
