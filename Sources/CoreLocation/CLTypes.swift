#if !canImport(Darwin)
import Foundation

/// Degrees of latitude or longitude.
public typealias CLLocationDegrees = Double
/// A distance in metres.
public typealias CLLocationDistance = Double
/// An accuracy radius in metres; negative when unknown.
public typealias CLLocationAccuracy = Double
/// A direction in degrees clockwise from true north; negative when unknown.
public typealias CLLocationDirection = Double
/// The accuracy of a direction, in degrees; negative when unknown.
public typealias CLLocationDirectionAccuracy = Double
/// One axis of the geomagnetic field a heading carries, microtesla.
public typealias CLHeadingComponentValue = Double
/// A speed in metres per second; negative when unknown.
public typealias CLLocationSpeed = Double
/// The accuracy of a speed, in metres per second; negative when unknown.
public typealias CLLocationSpeedAccuracy = Double

/// A latitude and longitude in degrees (WGS84), as CoreLocation's. Like
/// Apple's it is not `Equatable` or `Codable`, so an app's own extensions
/// adding those still compile.
public struct CLLocationCoordinate2D: Sendable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees

    public init() {
        latitude = 0
        longitude = 0
    }

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

public func CLLocationCoordinate2DMake(_ latitude: CLLocationDegrees, _ longitude: CLLocationDegrees) -> CLLocationCoordinate2D {
    CLLocationCoordinate2D(latitude: latitude, longitude: longitude)
}

/// Whether latitude is in [-90, 90] and longitude in [-180, 180].
public func CLLocationCoordinate2DIsValid(_ coordinate: CLLocationCoordinate2D) -> Bool {
    (-90...90).contains(coordinate.latitude) && (-180...180).contains(coordinate.longitude)
}

public let kCLLocationCoordinate2DInvalid = CLLocationCoordinate2D(latitude: -180, longitude: -180)

public let kCLLocationAccuracyBestForNavigation: CLLocationAccuracy = -2
public let kCLLocationAccuracyBest: CLLocationAccuracy = -1
public let kCLLocationAccuracyNearestTenMeters: CLLocationAccuracy = 10
public let kCLLocationAccuracyHundredMeters: CLLocationAccuracy = 100
public let kCLLocationAccuracyKilometer: CLLocationAccuracy = 1000
public let kCLLocationAccuracyThreeKilometers: CLLocationAccuracy = 3000
public let kCLLocationAccuracyReduced: CLLocationAccuracy = 3000
public let kCLDistanceFilterNone: CLLocationDistance = -1
/// A `headingFilter` that delivers every heading, however little it changed.
public let kCLHeadingFilterNone: CLLocationDegrees = -1
public let CLLocationDistanceMax: CLLocationDistance = .greatestFiniteMagnitude
public let CLTimeIntervalMax: TimeInterval = .greatestFiniteMagnitude
public let kCLErrorDomain = "kCLErrorDomain"

/// Whether the app may use location, with Apple's raw values.
public enum CLAuthorizationStatus: Int32, Sendable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorizedAlways = 3
    case authorizedWhenInUse = 4

    @available(*, deprecated, renamed: "authorizedAlways")
    public static var authorized: CLAuthorizationStatus { .authorizedAlways }
}

/// Whether locations come at full or reduced accuracy, with Apple's raw values.
public enum CLAccuracyAuthorization: Int, Sendable {
    case fullAccuracy = 0
    case reducedAccuracy = 1
}

/// The kind of movement a manager expects, with Apple's raw values.
public enum CLActivityType: Int, Sendable {
    case other = 1
    case automotiveNavigation = 2
    case fitness = 3
    case otherNavigation = 4
    case airborne = 5
}

/// How the device is held, with Apple's raw values: a manager's
/// `headingOrientation`, the edge a heading is measured along.
public enum CLDeviceOrientation: Int32, Sendable {
    /// Not known.
    case unknown = 0
    /// Upright, the home button (or bottom edge) down.
    case portrait = 1
    /// Upside down.
    case portraitUpsideDown = 2
    /// On its side, the top to the left.
    case landscapeLeft = 3
    /// On its side, the top to the right.
    case landscapeRight = 4
    /// Flat, screen up.
    case faceUp = 5
    /// Flat, screen down.
    case faceDown = 6
}

/// Whether the device is inside a monitored region, with Apple's raw values.
public enum CLRegionState: Int, Sendable {
    case unknown = 0
    case inside = 1
    case outside = 2
}

/// CoreLocation's error: `error as? CLError`, `.code == .denied`, and the
/// `kCLErrorDomain` domain and raw codes when bridged to `NSError`.
public struct CLError: Error, Hashable, Sendable, CustomNSError, CustomStringConvertible {
    /// What went wrong, with Apple's raw codes (the `NSError` code in `kCLErrorDomain`).
    public enum Code: Int, Sendable {
        /// No location could be had now (Stroll: no fix yet, or an outage).
        case locationUnknown = 0
        /// The user denied the app location services.
        case denied = 1
        /// The network was unavailable (Stroll: a geocode with no address index, as iOS offline).
        case network = 2
        /// The heading could not be determined (Stroll: a fix outside the World
        /// Magnetic Model's dates or range; `SimulatedDevice.headingError` says which).
        case headingFailure = 3
        /// The user denied region monitoring.
        case regionMonitoringDenied = 4
        /// A region could not be monitored: the 21st, or one wider than `maximumRegionMonitoringDistance`.
        case regionMonitoringFailure = 5
        /// Region monitoring could not start at once (never raised by Stroll).
        case regionMonitoringSetupDelayed = 6
        /// Region events may be late (never raised by Stroll).
        case regionMonitoringResponseDelayed = 7
        /// A geocode found nothing: no address within the radius, none matching the string.
        case geocodeFoundNoResult = 8
        /// A geocode found part of an answer (absent in Stroll).
        case geocodeFoundPartialResult = 9
        /// A geocode was cancelled (`cancelGeocode()`), or asked while another was pending.
        case geocodeCanceled = 10
        /// Deferred updates failed (absent in Stroll, as in current iOS).
        case deferredFailed = 11
        /// Deferred updates need location updates running (absent in Stroll).
        case deferredNotUpdatingLocation = 12
        /// Deferred updates need a fine accuracy (absent in Stroll).
        case deferredAccuracyTooLow = 13
        /// Deferred updates need no distance filter (absent in Stroll).
        case deferredDistanceFiltered = 14
        /// Deferred updates were cancelled (absent in Stroll).
        case deferredCanceled = 15
        /// Beacon ranging is unavailable (beacons are absent in Stroll).
        case rangingUnavailable = 16
        /// Beacon ranging failed (absent in Stroll).
        case rangingFailure = 17
        /// The user declined a temporary full-accuracy prompt (never raised by Stroll).
        case promptDeclined = 18
        /// Historical locations could not be had (absent in Stroll).
        case historicalLocationError = 19
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    public static var errorDomain: String { kCLErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var description: String { "CLError(\(code))" }

    // Every code as a static member, as Apple's error struct has (`CLError.denied`).
    public static var locationUnknown: Code { .locationUnknown }
    public static var denied: Code { .denied }
    public static var network: Code { .network }
    public static var headingFailure: Code { .headingFailure }
    public static var regionMonitoringDenied: Code { .regionMonitoringDenied }
    public static var regionMonitoringFailure: Code { .regionMonitoringFailure }
    public static var regionMonitoringSetupDelayed: Code { .regionMonitoringSetupDelayed }
    public static var regionMonitoringResponseDelayed: Code { .regionMonitoringResponseDelayed }
    public static var geocodeFoundNoResult: Code { .geocodeFoundNoResult }
    public static var geocodeFoundPartialResult: Code { .geocodeFoundPartialResult }
    public static var geocodeCanceled: Code { .geocodeCanceled }
    public static var deferredFailed: Code { .deferredFailed }
    public static var deferredNotUpdatingLocation: Code { .deferredNotUpdatingLocation }
    public static var deferredAccuracyTooLow: Code { .deferredAccuracyTooLow }
    public static var deferredDistanceFiltered: Code { .deferredDistanceFiltered }
    public static var deferredCanceled: Code { .deferredCanceled }
    public static var rangingUnavailable: Code { .rangingUnavailable }
    public static var rangingFailure: Code { .rangingFailure }
    public static var promptDeclined: Code { .promptDeclined }
    public static var historicalLocationError: Code { .historicalLocationError }
}
#endif
