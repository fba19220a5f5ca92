import Geodesy
import Traces

/// The location manager's settings, in CoreLocation's vocabulary.
///
/// Where Stroll's defaults differ from CoreLocation's, on purpose:
///
/// | setting | Stroll | CoreLocation |
/// |---|---|---|
/// | `desiredAccuracy` | 10 (`nearestTenMeters`) | -1 (`best`) |
/// | `distanceFilter` | 25 m | -1 (`none`) |
/// | `pausesLocationUpdatesAutomatically` | false | true |
/// | `authorization` | `authorizedWhenInUse` | `notDetermined` |
///
/// The first two are the CoffeeShop13 app's settings; automatic pausing is
/// off so that a replay delivers what the trace holds unless asked otherwise.
public struct LocationSettings: Equatable, Sendable {
    public var desiredAccuracy = LocationAccuracy.nearestTenMeters
    /// Metres from the last delivered fix a new one must be to be delivered; `distanceFilterNone` delivers all.
    public var distanceFilter = 25.0
    /// When set, fixes reporting a worse horizontal accuracy are held back.
    public var accuracyGate: Double?
    public var pausesLocationUpdatesAutomatically = false
    /// A walker within `pauseRadius` metres of one spot for `pauseAfter` seconds is stationary.
    public var pauseAfter = 120.0
    public var pauseRadius = 10.0
    public var authorization = AuthorizationStatus.authorizedWhenInUse
    /// CoreLocation's limit on monitored regions per app.
    public var maximumRegions = 20

    public init() {}
}

/// Counts of what a replay did, for summaries.
public struct ReplayCounts: Equatable, Sendable {
    /// Fixes the timeline produced (recorded and interpolated).
    public var generated = 0
    public var interpolated = 0
    public var delivered = 0
    /// Fixes held back, by reason (only reasons that held one back).
    public var filtered: [FilterReason: Int] {
        get {
            var counts: [FilterReason: Int] = [:]
            if filteredByDistance > 0 { counts[.distanceFilter] = filteredByDistance }
            if filteredByAccuracy > 0 { counts[.accuracy] = filteredByAccuracy }
            return counts
        }
        set {
            filteredByDistance = newValue[.distanceFilter] ?? 0
            filteredByAccuracy = newValue[.accuracy] ?? 0
        }
    }
    /// The counts `filtered` gives, kept as plain integers: counted on every fix.
    var filteredByDistance = 0
    var filteredByAccuracy = 0
    public var dropouts = 0
    /// Outages entered (each began with a `locationUnknown` error event).
    public var outages = 0
    /// Fixes lost in outages, the first of each included.
    public var outageFixes = 0
    /// Fixes not delivered while updates were paused.
    public var paused = 0

    public var filteredTotal: Int { filteredByDistance + filteredByAccuracy }
}

/// The simulated location manager's engine: trace in, CoreLocation events
/// out, one at a time, in virtual time. Deterministic: the same trace,
/// settings and seed give the same events.
///
/// Pipeline: timeline (recorded times, interpolation along geodesics) →
/// sensor (accuracy, seeded noise, dropouts, outliers) → region monitoring →
/// automatic pause → filters (accuracy gate, distance filter from the last
/// *delivered* fix, measured geodesically) → events. No fix vanishes: a held
/// back fix is a `filtered` event with its reason and distance.
///
/// Not `Sendable` (polygon regions hold GEOS geometry): make it where it runs.
public struct LocationSimulator {
    public let settings: LocationSettings
    public private(set) var counts = ReplayCounts()
    /// Notes on how the timeline was settled.
    public let notes: [String]
    /// Time of the first fix the replay plays (after any seek), seconds since 1970.
    public let startTime: Double
    /// Time of the last fix of the last loop.
    public let endTime: Double

    private var cursor: Timeline.Cursor
    private var sensor: SensorModel
    private var regions: RegionMonitor
    private var pending: [LocationEvent] = []
    private var pendingIndex = 0
    /// The last delivered fix's frame, once `hasDelivered` (not an optional:
    /// read in place on every fix).
    private var lastDelivered = GeodesicDistanceFrame(origin: Coordinate(computedLatitude: 0, longitude: 0))
    private var hasDelivered = false
    private var anchor: (coordinate: Coordinate, time: Double)?
    private var isPaused = false
    private var finished = false
    private let ellipsoid = Ellipsoid.wgs84
    private let empty: Bool

    public init(trace: Trace, settings: LocationSettings = LocationSettings(), replay: ReplayOptions = ReplayOptions(),
                sensor: SensorOptions = SensorOptions(), regions: [MonitoredRegion] = []) throws(RegionError) {
        self.settings = settings
        let timeline = Timeline(trace: trace, options: replay)
        notes = timeline.notes
        empty = timeline.isEmpty
        cursor = timeline.makeCursor()
        startTime = timeline.startTime + max(0, replay.seek)
        endTime = timeline.endTime + Double(max(1, replay.loops) - 1) * timeline.loopPeriod
        self.sensor = SensorModel(options: sensor, desiredAccuracy: settings.desiredAccuracy)
        self.regions = try RegionMonitor(regions: regions, limit: settings.maximumRegions)
        pending.reserveCapacity(8 + regions.count)
    }

    /// The next event, or nil when the replay has ended.
    public mutating func next() -> LocationEvent? {
        while pendingIndex >= pending.count {
            if !pending.isEmpty {
                pending.removeAll(keepingCapacity: true)
                pendingIndex = 0
            }
            if finished { return nil }
            if let event = step() { return event }
        }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    /// Every remaining event (for tests and batch runs).
    public mutating func run() -> [LocationEvent] {
        var events: [LocationEvent] = []
        while let e = next() { events.append(e) }
        return events
    }

    /// One fix of the timeline through the sensor, the pause and the
    /// filters. A fix that makes one event only (the usual case) gives it
    /// back; when it makes several, they are all added to `pending`, in order.
    @inline(__always)
    private mutating func step() -> LocationEvent? {
        if !settings.authorization.allowsUpdates {
            finished = true
            return .error(LocationError(code: .denied, message: "location access is \(settings.authorization)"), timestamp: startTime)
        }
        if empty {
            finished = true
            return .error(LocationError(code: .badInput, message: "the trace has no usable fix"), timestamp: startTime)
        }
        guard let truth = cursor.next() else {
            finished = true
            return nil
        }
        counts.generated += 1
        if truth.line == nil { counts.interpolated += 1 }
        let location: Location
        switch sensor.read(truth) {
        case .dropout:
            counts.dropouts += 1
            return .error(LocationError(code: .locationUnknown, message: "no fix (simulated dropout)"), timestamp: truth.time)
        case .outage(let environment, let first):
            counts.outageFixes += 1
            guard first else { return nil }
            counts.outages += 1
            return .error(LocationError(code: .locationUnknown, message: "no fix: signal lost (\(environment.rawValue))"), timestamp: truth.time)
        case .fix(let l):
            location = l
        }
        let event = filter(location, truth)
        if regions.isEmpty, pending.isEmpty { return event }
        if let event { pending.append(event) }
        if !regions.isEmpty { regions.update(location.coordinate, at: location.timestamp, into: &pending) }
        return nil
    }

    /// The automatic pause and the filters for one fix: its event, if it
    /// makes one (a `resumed` event before it goes to `pending`).
    @inline(__always)
    private mutating func filter(_ location: Location, _ truth: TrueFix) -> LocationEvent? {
        if settings.pausesLocationUpdatesAutomatically {
            let moved = anchor.map { Geodesic.wgs84.distance($0.coordinate, truth.coordinate) > settings.pauseRadius } ?? true
            if isPaused {
                guard moved else {
                    counts.paused += 1
                    return nil
                }
                isPaused = false
                pending.append(.resumed(timestamp: truth.time))
                anchor = (truth.coordinate, truth.time)
            } else if moved {
                anchor = (truth.coordinate, truth.time)
            } else if let a = anchor, truth.time - a.time >= settings.pauseAfter {
                isPaused = true
                counts.paused += 1
                return .paused(timestamp: truth.time)
            }
        }

        let distance = hasDelivered ? distanceFromLastDelivered(location.coordinate) : nil
        if let gate = settings.accuracyGate, location.horizontalAccuracy > gate {
            counts.filteredByAccuracy += 1
            return .filtered(location, reason: .accuracy, distance: distance ?? 0)
        }
        if settings.distanceFilter > 0, let d = distance, d < settings.distanceFilter {
            counts.filteredByDistance += 1
            return .filtered(location, reason: .distanceFilter, distance: d)
        }
        counts.delivered += 1
        lastDelivered = GeodesicDistanceFrame(origin: location.coordinate)
        hasDelivered = true
        return .location(location)
    }

    /// Geodesic distance from the last delivered fix: the chord formula, made
    /// exact with Karney's method where it could decide the filter either way.
    /// (Read in place: the frame is not copied on every fix.)
    private mutating func distanceFromLastDelivered(_ c: Coordinate) -> Double {
        let d = lastDelivered.chordDistanceInPlace(toECEF: ellipsoid.ecef(c))
        if d > GeodesicDistanceFrame.exactRange || abs(d - settings.distanceFilter) <= GeodesicDistanceFrame.tolerance {
            return Geodesic.wgs84.distance(lastDelivered.origin, c)
        }
        return d
    }
}
