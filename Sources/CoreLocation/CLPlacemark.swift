#if !canImport(Darwin)
import Foundation
import Streets

/// What a geocode found, as CoreLocation's: the parts of an address and where
/// it is. Stroll's placemarks come from an address index (`Streets`'s
/// `AddressIndex`, OpenStreetMap `addr:*` tags); docs/Geocoding.md says
/// which tag fills which property.
public final class CLPlacemark: NSObject, Sendable {
    private let address: Address

    /// A copy of `placemark`.
    public init(placemark: CLPlacemark) {
        address = placemark.address
    }

    /// The placemark of an address from an address index.
    public init(address: Address) {
        self.address = address
    }

    /// The element's `name`, else the house number and street (`12 Avenue de la Costa`), as iOS names an address.
    public var name: String? { address.title }
    /// The street (`addr:street`, else `addr:place`).
    public var thoroughfare: String? { address.street }
    /// The house number (`addr:housenumber`).
    public var subThoroughfare: String? { address.houseNumber }
    /// The city (`addr:city`).
    public var locality: String? { address.city }
    /// The neighbourhood (`addr:suburb`).
    public var subLocality: String? { address.suburb }
    /// The state or province (`addr:state`, else `addr:province`).
    public var administrativeArea: String? { address.state }
    /// The postcode (`addr:postcode`).
    public var postalCode: String? { address.postcode }
    /// The two-letter ISO 3166-1 code (`addr:country`).
    public var isoCountryCode: String? { address.countryCode }
    /// The country's English name for `isoCountryCode`.
    public var country: String? { address.countryName }
    /// The time zone of the address's country when the country has one
    /// (`Monaco`: `Europe/Monaco`; from the time zone database's zone.tab);
    /// `nil` for a country of several zones or an address without
    /// `addr:country` (OpenStreetMap's addresses do not name their zone).
    public var timeZone: TimeZone? { address.timeZoneIdentifier.flatMap(TimeZone.init(identifier:)) }

    /// Where the address is: a node's position, a way's centroid (its
    /// timestamp 2001-01-01, the same on every run).
    public var location: CLLocation? {
        CLLocation(coordinate: CLLocationCoordinate2D(latitude: address.coordinate.latitude, longitude: address.coordinate.longitude),
                   altitude: 0, horizontalAccuracy: 0, verticalAccuracy: -1, timestamp: Date(timeIntervalSinceReferenceDate: 0))
    }
}
#endif
