#if !canImport(Darwin)
import CoreLocation
import Foundation

/// A place on the map: a coordinate with a name, as `MKPlacemark` gives it
/// (an annotation here, not a `CLPlacemark` with an address).
open class MKPlacemark: NSObject, MKAnnotation {
    /// Where the place is.
    public let coordinate: CLLocationCoordinate2D
    /// The place's name, when it has one.
    open var name: String?
    /// The name, as the annotation's title.
    open var title: String? { name }
    /// None.
    open var subtitle: String? { nil }

    /// A placemark at `coordinate`.
    public init(coordinate: CLLocationCoordinate2D) {
        self.coordinate = coordinate
        super.init()
    }
}

/// A point of interest or a position to route from or to: a placemark and its name.
open class MKMapItem: NSObject {
    /// The item's place.
    public let placemark: MKPlacemark
    /// The item's name (the placemark's by default).
    open var name: String?
    /// The kind of place, for a point of interest a search found.
    open var pointOfInterestCategory: MKPointOfInterestCategory?
    /// The place's telephone number (OpenStreetMap's `phone`, else `contact:phone`).
    open var phoneNumber: String?
    /// The place's website (OpenStreetMap's `website`, else `contact:website`, else `url`).
    open var url: URL?

    /// An item at `placemark`.
    public init(placemark: MKPlacemark) {
        self.placemark = placemark
        name = placemark.name
        super.init()
    }
}
#endif
