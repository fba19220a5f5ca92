import Geodesy

/// A delivered position, as `CLLocation` describes one.
///
/// Negative `horizontalAccuracy` means invalid; `verticalAccuracy` <= 0 means
/// no altitude (then `altitude` is 0); negative `course` or `speed` mean
/// undefined (the first fix of a segment, or course while standing still).
public struct Location: Equatable, Sendable {
    public var coordinate: Coordinate
    /// Metres; 0 when unknown.
    public var altitude: Double
    /// Radius of the 68 % confidence circle, metres.
    public var horizontalAccuracy: Double
    public var verticalAccuracy: Double
    /// Degrees clockwise from true north; -1 when undefined.
    public var course: Double
    /// Metres per second; -1 when undefined.
    public var speed: Double
    /// One standard deviation of `course`, degrees, and of `speed`, metres per
    /// second; -1 when the value is undefined or there is no leg to measure
    /// it on. Course and speed are the trace's leg between two recorded
    /// fixes; with each end off by this fix's error σ per axis
    /// (`horizontalAccuracy × SensorOptions.sigmaPerRadius68`), they are off
    /// by `atan(√2 σ / length)` and `√2 σ / duration` (docs/Receiver.md).
    public var courseAccuracy = -1.0
    /// The speed's accuracy in metres per second: see ``courseAccuracy``.
    public var speedAccuracy = -1.0
    /// Seconds since 1970-01-01T00:00:00Z.
    public var timestamp: Double
    /// The trace line of a recorded fix; nil for an interpolated one.
    public var sourceLine: Int?
    /// The error the simulated receiver applied, metres east and north of the
    /// true position; set only when `SensorOptions.debugTruth` asks for it.
    public var appliedError: AppliedError?

    /// The error the simulated receiver added to the true position, in metres east and north.
    public struct AppliedError: Equatable, Sendable {
        public var east: Double
        public var north: Double
        /// Whether a multipath episode added to it (docs/Receiver.md).
        public var multipath: Bool
        public init(east: Double, north: Double, multipath: Bool = false) {
            self.east = east
            self.north = north
            self.multipath = multipath
        }
    }

    public init(coordinate: Coordinate, altitude: Double = 0, horizontalAccuracy: Double, verticalAccuracy: Double = -1,
                course: Double = -1, speed: Double = -1, timestamp: Double, sourceLine: Int? = nil) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
        self.timestamp = timestamp
        self.sourceLine = sourceLine
    }

    /// Geodesic distance in metres to another location (as `CLLocation.distance(from:)`).
    public func distance(from other: Location) -> Double {
        Geodesic.wgs84.distance(coordinate, other.coordinate)
    }
}

/// CoreLocation's accuracy constants, in metres (negative ones are special).
public enum LocationAccuracy {
    public static let bestForNavigation = -2.0
    public static let best = -1.0
    public static let nearestTenMeters = 10.0
    public static let hundredMeters = 100.0
    public static let kilometer = 1000.0
    public static let threeKilometers = 3000.0
}

/// `kCLDistanceFilterNone`: deliver every fix.
public let distanceFilterNone = -1.0

/// CoreLocation's authorization states, with their raw values.
public enum AuthorizationStatus: Int, Sendable, CaseIterable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorizedAlways = 3
    case authorizedWhenInUse = 4

    public var allowsUpdates: Bool { self == .authorizedAlways || self == .authorizedWhenInUse || self == .notDetermined }
}

/// Errors delivered as events, never thrown: CoreLocation's codes plus bad input.
public enum LocationErrorCode: String, Sendable {
    /// Transient: no fix could be had now (a sensor dropout).
    case locationUnknown
    /// The user denied access: updates stop.
    case denied
    /// The trace could not be read or has no usable fix.
    case badInput

    /// `CLError.Code` raw value; bad input has none in CoreLocation.
    public var coreLocationCode: Int? {
        switch self {
        case .locationUnknown: return 0
        case .denied: return 1
        case .badInput: return nil
        }
    }
}

/// An error the simulated manager reports, as `CLError`: a code, a message, and the file and line it concerns.
public struct LocationError: Error, Equatable, Sendable {
    public var code: LocationErrorCode
    public var message: String
    public var file: String?
    public var line: Int?

    public init(code: LocationErrorCode, message: String, file: String? = nil, line: Int? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }
}

/// Why a filter held a fix back.
public enum FilterReason: String, Sendable {
    case distanceFilter = "distance-filter"
    case accuracy
}

/// One thing the simulated location manager says, in order.
public enum LocationEvent: Equatable, Sendable {
    /// `locationManager(_:didUpdateLocations:)`.
    case location(Location)
    /// A fix a filter held back, with the distance from the last delivered one.
    case filtered(Location, reason: FilterReason, distance: Double)
    /// The state of a monitored region when monitoring starts (`didDetermineState`).
    case regionState(id: String, inside: Bool, timestamp: Double)
    case regionEntered(id: String, timestamp: Double)
    case regionExited(id: String, timestamp: Double)
    /// `locationManagerDidPauseLocationUpdates`: the walker stood still.
    case paused(timestamp: Double)
    case resumed(timestamp: Double)
    case error(LocationError, timestamp: Double)

    /// When it happened, seconds since 1970.
    public var timestamp: Double {
        switch self {
        case .location(let l), .filtered(let l, _, _): return l.timestamp
        case .regionState(_, _, let t), .regionEntered(_, let t), .regionExited(_, let t), .paused(let t), .resumed(let t), .error(_, let t): return t
        }
    }
}
