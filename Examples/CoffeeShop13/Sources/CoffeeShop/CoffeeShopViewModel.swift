import CoreLocation
import MapKit

/// The app's screen: the map centred on the user at street scale, the chosen
/// group's pins, and the list of coffee houses sorted by distance from the
/// user on every location update. Selecting a coffee house centres the map on
/// its pin and selects it.
public class CoffeeShopViewModel: NSObject, CLLocationManagerDelegate, MKMapViewDelegate {
    public let locationManager = CLLocationManager()
    public let mapView = MKMapView()
    public private(set) var shops: [CoffeeShop] = []
    public private(set) var sortedShops: [CoffeeShop] = []
    public private(set) var currentLocation: CLLocation?
    /// How many times the list's order changed (the first sort counts).
    public private(set) var orderChanges = 0
    /// The phone's last heading (`startUpdatingHeading()`, where the phone has a compass).
    public private(set) var heading: CLHeading?
    /// Which way to turn to face the nearest coffee house: its bearing from
    /// the user less the heading's `trueHeading`, in degrees from -180 to 180
    /// (positive: to the right); nil until a fix, a heading and a list are known.
    public private(set) var turnToNearest: CLLocationDirection?
    /// The list after every location update, for whoever watches it.
    public var onListChange: (([CoffeeShop]) -> Void)?

    private let allShops = CoffeeShop.load()

    public override init() {
        super.init()
        mapView.delegate = self
        locationManager.delegate = self
        locationManager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        locationManager.distanceFilter = 25
    }

    public func start() {
        locationManager.requestWhenInUseAuthorization()
        locationManager.startUpdatingLocation()
        if CLLocationManager.headingAvailable() { locationManager.startUpdatingHeading() }
    }

    public func choose(group: String) {
        mapView.removeAnnotations(shops)
        shops = allShops[group] ?? []
        mapView.addAnnotations(shops)
        resort()
    }

    public func select(_ shop: CoffeeShop) {
        mapView.setCenter(shop.coordinate, animated: true)
        mapView.selectAnnotation(shop, animated: true)
    }

    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let location = locations.last else { return }
        if currentLocation == nil {
            mapView.setRegion(MKCoordinateRegion(center: location.coordinate, latitudinalMeters: 1000, longitudinalMeters: 1000), animated: false)
        }
        currentLocation = location
        resort()
    }

    public func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {
        heading = newHeading
        pointToNearest()
    }

    public func locationManager(_ manager: CLLocationManager, didFailWithError error: Error) {
        print("CoffeeShop: location failed: \(error)")
    }

    private func resort() {
        guard let here = currentLocation, !shops.isEmpty else { return }
        // Whole millimetres, then name: the order stays put when two are equally far.
        func key(_ shop: CoffeeShop) -> (Int, String) {
            (Int((here.distance(from: CLLocation(latitude: shop.coordinate.latitude, longitude: shop.coordinate.longitude)) * 1000).rounded()), shop.name)
        }
        let sorted = shops.sorted { key($0) < key($1) }
        if sorted.map(\.id) != sortedShops.map(\.id) {
            orderChanges += 1
            sortedShops = sorted
            onListChange?(sorted)
        }
        pointToNearest()
    }

    /// The initial great-circle bearing to the nearest coffee house, less the heading.
    private func pointToNearest() {
        guard let here = currentLocation?.coordinate, let heading = heading, heading.trueHeading >= 0,
              let there = sortedShops.first?.coordinate else { return }
        let phi1 = here.latitude * .pi / 180, phi2 = there.latitude * .pi / 180
        let dLambda = (there.longitude - here.longitude) * .pi / 180
        let bearing = atan2(sin(dLambda) * cos(phi2), cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)) * 180 / .pi
        var turn = (bearing - heading.trueHeading).truncatingRemainder(dividingBy: 360)
        if turn > 180 { turn -= 360 } else if turn <= -180 { turn += 360 }
        turnToNearest = turn
    }
}
