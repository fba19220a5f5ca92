#if !canImport(Darwin)
import CoreLocation
import Foundation

/// A pin's data. `title` and `subtitle` are optional, as in MapKit (a default of nil).
public protocol MKAnnotation: NSObjectProtocol {
    var coordinate: CLLocationCoordinate2D { get }
    var title: String? { get }
    var subtitle: String? { get }
}

extension MKAnnotation {
    public var title: String? { nil }
    public var subtitle: String? { nil }
}

/// An annotation with a title and a subtitle, as Apple's; subclasses give the coordinate.
open class MKShape: NSObject, MKAnnotation {
    open var title: String?
    open var subtitle: String?
    open var coordinate: CLLocationCoordinate2D { CLLocationCoordinate2D() }
}

/// A pin at a settable coordinate, as Apple's.
open class MKPointAnnotation: MKShape {
    private var point = CLLocationCoordinate2D()

    open override var coordinate: CLLocationCoordinate2D {
        get { point }
        set { point = newValue }
    }

    public override init() {
        super.init()
    }

    public init(coordinate: CLLocationCoordinate2D) {
        point = coordinate
        super.init()
    }

    public init(coordinate: CLLocationCoordinate2D, title: String?, subtitle: String?) {
        point = coordinate
        super.init()
        self.title = title
        self.subtitle = subtitle
    }
}

/// Nearby annotations of one clustering identifier drawn as one. Its
/// coordinate is the members' mean (in Web Mercator), its title their count.
open class MKClusterAnnotation: NSObject, MKAnnotation {
    open internal(set) var memberAnnotations: [any MKAnnotation]
    open var title: String?
    open var subtitle: String?
    open internal(set) var coordinate: CLLocationCoordinate2D

    public init(memberAnnotations: [any MKAnnotation]) {
        self.memberAnnotations = memberAnnotations
        coordinate = memberAnnotations.first?.coordinate ?? kCLLocationCoordinate2DInvalid
        title = "\(memberAnnotations.count) items"
        super.init()
    }
}

/// The device's position on the map (`MKMapView.userLocation`).
open class MKUserLocation: NSObject, MKAnnotation {
    open internal(set) var location: CLLocation?
    open internal(set) var isUpdating = false
    open var title: String? = "My Location"
    open var subtitle: String?

    open var coordinate: CLLocationCoordinate2D { location?.coordinate ?? kCLLocationCoordinate2DInvalid }
}

/// Whether the map follows the user's location, with Apple's raw values.
public enum MKUserTrackingMode: Int, Sendable {
    case none = 0
    case follow = 1
    case followWithHeading = 2
}

/// A pin's view, headless: it carries its annotation, its selection and
/// whether it can be selected; nothing is drawn.
@preconcurrency @MainActor
open class MKAnnotationView: NSObject {
    open var annotation: (any MKAnnotation)?
    public let reuseIdentifier: String?
    open var isSelected = false
    /// Kept for the app to read; there is no callout to show.
    open var canShowCallout = false
    /// A view that is not enabled cannot be selected (`MKMapView.selectAnnotation` does nothing).
    open var isEnabled = true
    /// Pins whose views share an identifier are drawn as one cluster when close on screen.
    open var clusteringIdentifier: String?

    public init(annotation: (any MKAnnotation)?, reuseIdentifier: String?) {
        self.annotation = annotation
        self.reuseIdentifier = reuseIdentifier
    }
}

/// A marker's view, headless: an ``MKAnnotationView``.
@preconcurrency @MainActor
open class MKMarkerAnnotationView: MKAnnotationView {}

/// A pin's view, headless: an ``MKAnnotationView``.
@preconcurrency @MainActor
open class MKPinAnnotationView: MKAnnotationView {}
#endif
