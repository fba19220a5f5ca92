// Geocoding as app code commonly writes it, in the Swift 5 language mode: a
// shared geocoder, completion handlers that call plain closures and set the
// properties of plain classes, the handler's parameter types spelled out.
import CoreLocation

enum AddressLookup {
    static let geocoder = CLGeocoder()

    static func describe(_ location: CLLocation, completion: @escaping (String?) -> Void) {
        geocoder.reverseGeocodeLocation(location) { (placemarks: [CLPlacemark]?, error: Error?) in
            guard let placemark = placemarks?.first, error == nil else {
                completion(nil)
                return
            }
            let street = [placemark.subThoroughfare, placemark.thoroughfare].compactMap { $0 }.joined(separator: " ")
            completion([street, placemark.postalCode, placemark.locality, placemark.country].compactMap { $0 }.joined(separator: ", "))
        }
    }
}

class CheckInForm {
    var coordinate: CLLocationCoordinate2D?
    var failure: Error?
    private let geocoder = CLGeocoder()

    func lookUp(_ address: String, done: @escaping () -> Void) {
        geocoder.geocodeAddressString(address) { placemarks, error in
            if let error = error {
                self.failure = error
            } else {
                self.coordinate = placemarks?.first?.location?.coordinate
            }
            done()
        }
    }
}
