#if !canImport(Darwin)
import CoreLocation
import Foundation
import Geodesy
import Map

/// The size of a region in degrees of latitude and longitude.
public struct MKCoordinateSpan: Sendable {
    public var latitudeDelta: CLLocationDegrees
    public var longitudeDelta: CLLocationDegrees

    public init() {
        latitudeDelta = 0
        longitudeDelta = 0
    }

    public init(latitudeDelta: CLLocationDegrees, longitudeDelta: CLLocationDegrees) {
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
    }
}

/// A region of the map: its centre and its span in degrees.
public struct MKCoordinateRegion: Sendable {
    public var center: CLLocationCoordinate2D
    public var span: MKCoordinateSpan

    public init() {
        center = CLLocationCoordinate2D()
        span = MKCoordinateSpan()
    }

    public init(center: CLLocationCoordinate2D, span: MKCoordinateSpan) {
        self.center = center
        self.span = span
    }

    /// Metres to degrees with the WGS84 radii of curvature at the centre (the
    /// conversion of Stroll's map model; MapKit's own is not published and
    /// agrees to well under a percent at city scale).
    public init(center: CLLocationCoordinate2D, latitudinalMeters: CLLocationDistance, longitudinalMeters: CLLocationDistance) {
        let r = MapRegion(center: Coordinate(computedLatitude: center.latitude, longitude: center.longitude),
                          latitudinalMeters: latitudinalMeters, longitudinalMeters: longitudinalMeters)
        self.init(center: center, span: MKCoordinateSpan(latitudeDelta: r.latitudeDelta, longitudeDelta: r.longitudeDelta))
    }

    /// The region a map rectangle covers.
    public init(_ rect: MKMapRect) {
        let northWest = MKMapPoint(x: rect.minX, y: rect.minY).coordinate
        let southEast = MKMapPoint(x: rect.maxX, y: rect.maxY).coordinate
        let center = MKMapPoint(x: rect.midX, y: rect.midY).coordinate
        self.init(center: center, span: MKCoordinateSpan(latitudeDelta: northWest.latitude - southEast.latitude,
                                                         longitudeDelta: rect.width / MKMapSize.world.width * 360))
    }
}

public func MKCoordinateSpanMake(_ latitudeDelta: CLLocationDegrees, _ longitudeDelta: CLLocationDegrees) -> MKCoordinateSpan {
    MKCoordinateSpan(latitudeDelta: latitudeDelta, longitudeDelta: longitudeDelta)
}

public func MKCoordinateRegionMake(_ center: CLLocationCoordinate2D, _ span: MKCoordinateSpan) -> MKCoordinateRegion {
    MKCoordinateRegion(center: center, span: span)
}

public func MKCoordinateRegionMakeWithDistance(_ center: CLLocationCoordinate2D, _ latitudinalMeters: CLLocationDistance,
                                               _ longitudinalMeters: CLLocationDistance) -> MKCoordinateRegion {
    MKCoordinateRegion(center: center, latitudinalMeters: latitudinalMeters, longitudinalMeters: longitudinalMeters)
}

/// A point on MapKit's flat world: spherical Mercator scaled so the whole
/// world is `MKMapSize.world` (2^28 points square), x east, y south.
public struct MKMapPoint: Sendable {
    public var x: Double
    public var y: Double

    public init() {
        x = 0
        y = 0
    }

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public init(_ coordinate: CLLocationCoordinate2D) {
        let world = MKMapSize.world.width
        let latitude = max(-85.05112878, min(85.05112878, coordinate.latitude)) * .pi / 180
        x = (coordinate.longitude + 180) / 360 * world
        y = (0.5 - log(tan(.pi / 4 + latitude / 2)) / (2 * .pi)) * world
    }

    public var coordinate: CLLocationCoordinate2D {
        let world = MKMapSize.world.width
        let longitude = x / world * 360 - 180
        let latitude = atan(sinh(.pi * (1 - 2 * y / world))) * 180 / .pi
        return CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
    }

    /// The WGS84 geodesic distance between the two points' coordinates.
    public func distance(to other: MKMapPoint) -> CLLocationDistance {
        CLLocation(latitude: coordinate.latitude, longitude: coordinate.longitude)
            .distance(from: CLLocation(latitude: other.coordinate.latitude, longitude: other.coordinate.longitude))
    }
}

/// A size in map points, as Apple's.
public struct MKMapSize: Sendable {
    public var width: Double
    public var height: Double

    public init() {
        width = 0
        height = 0
    }

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public static let world = MKMapSize(width: 268_435_456, height: 268_435_456)
}

/// A rectangle in map points: its origin and size, as Apple's.
public struct MKMapRect: Sendable {
    public var origin: MKMapPoint
    public var size: MKMapSize

    public init() {
        origin = MKMapPoint()
        size = MKMapSize()
    }

    public init(origin: MKMapPoint, size: MKMapSize) {
        self.origin = origin
        self.size = size
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: MKMapPoint(x: x, y: y), size: MKMapSize(width: width, height: height))
    }

    public static let world = MKMapRect(origin: MKMapPoint(), size: .world)
    public static let null = MKMapRect(x: .infinity, y: .infinity, width: 0, height: 0)

    public var minX: Double { origin.x }
    public var minY: Double { origin.y }
    public var maxX: Double { origin.x + size.width }
    public var maxY: Double { origin.y + size.height }
    public var midX: Double { origin.x + size.width / 2 }
    public var midY: Double { origin.y + size.height / 2 }
    public var width: Double { size.width }
    public var height: Double { size.height }
    public var isNull: Bool { origin.x.isInfinite || origin.y.isInfinite }
    public var isEmpty: Bool { isNull || size.width == 0 || size.height == 0 }

    public func contains(_ point: MKMapPoint) -> Bool {
        point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }

    public func contains(_ rect: MKMapRect) -> Bool {
        rect.minX >= minX && rect.maxX <= maxX && rect.minY >= minY && rect.maxY <= maxY
    }

    public func intersects(_ rect: MKMapRect) -> Bool {
        !isNull && !rect.isNull && rect.minX < maxX && rect.maxX > minX && rect.minY < maxY && rect.maxY > minY
    }

    public func union(_ rect: MKMapRect) -> MKMapRect {
        if isNull { return rect }
        if rect.isNull { return self }
        let x = min(minX, rect.minX), y = min(minY, rect.minY)
        return MKMapRect(x: x, y: y, width: max(maxX, rect.maxX) - x, height: max(maxY, rect.maxY) - y)
    }

    public func insetBy(dx: Double, dy: Double) -> MKMapRect {
        MKMapRect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// The rectangle a region covers.
    init(_ region: MKCoordinateRegion) {
        let a = MKMapPoint(CLLocationCoordinate2D(latitude: region.center.latitude + region.span.latitudeDelta / 2,
                                                  longitude: region.center.longitude - region.span.longitudeDelta / 2))
        let b = MKMapPoint(CLLocationCoordinate2D(latitude: region.center.latitude - region.span.latitudeDelta / 2,
                                                  longitude: region.center.longitude + region.span.longitudeDelta / 2))
        self.init(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(b.x - a.x), height: abs(b.y - a.y))
    }
}

/// Map points per metre at a latitude (the Mercator scale on WGS84's equatorial radius).
public func MKMapPointsPerMeterAtLatitude(_ latitude: CLLocationDegrees) -> Double {
    MKMapSize.world.width / (2 * .pi * 6_378_137 * cos(latitude * .pi / 180))
}

public func MKMetersPerMapPointAtLatitude(_ latitude: CLLocationDegrees) -> CLLocationDistance {
    1 / MKMapPointsPerMeterAtLatitude(latitude)
}

public func MKMetersBetweenMapPoints(_ a: MKMapPoint, _ b: MKMapPoint) -> CLLocationDistance { a.distance(to: b) }

public func MKMapPointForCoordinate(_ coordinate: CLLocationCoordinate2D) -> MKMapPoint { MKMapPoint(coordinate) }

public func MKCoordinateForMapPoint(_ point: MKMapPoint) -> CLLocationCoordinate2D { point.coordinate }
#endif
