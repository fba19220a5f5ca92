#if !canImport(Darwin)
import Foundation

/// A place the device stayed, as `locationManager(_:didVisit:)` reports it:
/// once on arrival (``departureDate`` is `Date.distantFuture`) and once on
/// departure (both dates). Stroll detects visits in the device's fixes by a
/// stay-point rule (docs/Visits.md); iOS's own come late and coarse.
open class CLVisit: NSObject {
    /// When the device arrived: the stay's first fix.
    public let arrivalDate: Date
    /// When the device left; `Date.distantFuture` while it is still there.
    public let departureDate: Date
    /// The stay's centre.
    public let coordinate: CLLocationCoordinate2D
    /// Metres around ``coordinate`` that hold every fix of the stay.
    public let horizontalAccuracy: CLLocationAccuracy

    /// A visit; `departureDate` `Date.distantFuture` while the device is still there.
    public init(coordinate: CLLocationCoordinate2D, horizontalAccuracy: CLLocationAccuracy, arrivalDate: Date, departureDate: Date = .distantFuture) {
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.arrivalDate = arrivalDate
        self.departureDate = departureDate
    }

    /// The coordinate, accuracy and dates, as Apple's description lists them.
    open override var description: String {
        "<CLVisit: arrival \(arrivalDate), departure \(departureDate == .distantFuture ? "still here" : "\(departureDate)"), "
            + "<\(coordinate.latitude),\(coordinate.longitude)> +/- \(horizontalAccuracy)m>"
    }
}
#endif
