#if !canImport(Darwin)
import CoreLocation
import Foundation

/// How an overlay is drawn, headless: it carries its overlay and the
/// drawing settings the app gives it; nothing is drawn.
open class MKOverlayRenderer: NSObject {
    /// The overlay drawn.
    public let overlay: any MKOverlay
    /// The overlay's opacity, 0 to 1.
    open var alpha: CGFloat = 1

    /// A renderer of `overlay`.
    public init(overlay: any MKOverlay) {
        self.overlay = overlay
        super.init()
    }
}

/// A renderer that strokes and fills a path, headless. The colours
/// (`strokeColor`, `fillColor`) are UIKit's `UIColor` on Apple platforms and
/// are absent here; the line's settings are kept.
open class MKOverlayPathRenderer: MKOverlayRenderer {
    /// The width of the line in points (MapKit's default 0 draws the thinnest line).
    open var lineWidth: CGFloat = 0
    /// The lengths of the dashes and gaps, in points; nil for a solid line.
    open var lineDashPattern: [NSNumber]?
    /// How far into the dash pattern the line starts.
    open var lineDashPhase: CGFloat = 0
    /// The limit of a mitred join's length, in line widths.
    open var miterLimit: CGFloat = 10
}

/// The renderer of an ``MKPolyline``.
open class MKPolylineRenderer: MKOverlayPathRenderer {
    /// The line drawn.
    public let polyline: MKPolyline
    /// Where along the line drawing starts, 0 to 1.
    open var strokeStart: CGFloat = 0
    /// Where along the line drawing ends, 0 to 1.
    open var strokeEnd: CGFloat = 1

    /// A renderer of `polyline`.
    public init(polyline: MKPolyline) {
        self.polyline = polyline
        super.init(overlay: polyline)
    }
}

/// The renderer of an ``MKPolygon``.
open class MKPolygonRenderer: MKOverlayPathRenderer {
    /// The polygon drawn.
    public let polygon: MKPolygon

    /// A renderer of `polygon`.
    public init(polygon: MKPolygon) {
        self.polygon = polygon
        super.init(overlay: polygon)
    }
}

/// The renderer of an ``MKCircle``.
open class MKCircleRenderer: MKOverlayPathRenderer {
    /// The circle drawn.
    public let circle: MKCircle

    /// A renderer of `circle`.
    public init(circle: MKCircle) {
        self.circle = circle
        super.init(overlay: circle)
    }
}
#endif
