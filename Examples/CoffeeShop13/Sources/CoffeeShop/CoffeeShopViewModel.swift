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
    }
}
