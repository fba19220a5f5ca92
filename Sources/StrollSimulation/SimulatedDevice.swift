#if !canImport(Darwin)
import CoreLocation
import Foundation
import Geodesy
import Geomagnetism
import LocationSimulation
import Streets
import Traces

/// The device's part, as Xcode's scheme location plays it: the walk every
/// `CLLocationManager` in the process is on.
///
/// ```swift
/// SimulatedDevice.current = try SimulatedDevice(trace: "traces/lime-street-to-campus.gpx")
/// let manager = CLLocationManager()    // the app's, with its delegate
/// manager.startUpdatingLocation()
/// await SimulatedDevice.current?.run() // the whole walk, in virtual time
/// ```
///
/// Every manager that has started updates gets the device's fixes with its own
/// `desiredAccuracy` and `distanceFilter` (two managers with different filters
/// see different deliveries), from the moment it started. Callbacks arrive on
/// the main actor in time order; callbacks at the same instant come in the
/// order the managers started. Authorization prompts are answered with
/// ``authorizationAnswer``. Monitored regions report entry, exit and state;
/// the circles of every `CLMonitor` the app holds change state at the same
/// fixes, by the same rules, from the device's next step after they are added.
/// Significant-change monitoring is a service of its own beside a manager's
/// updates (``significantChangeDistance``, ``significantChangeInterval``).
/// Heading updates are another: a compass reading at each of the device's fixes
/// whose course is known, from the walk's course and the World Magnetic
/// Model's declination there (``startUpdatingHeading(for:)``, docs/Heading.md).
/// Visit monitoring detects stays in the device's own fixes by
/// ``visitSettings`` (docs/Visits.md). `CLGeocoder` answers from
/// ``addresses`` (docs/Geocoding.md); with none, geocodes fail as iOS's do offline.
@MainActor
public final class SimulatedDevice: CLLocationDevice {
    /// Metres the device must have moved from the last significant-change
    /// fix for the next: Apple's "500 meters or more".
    nonisolated public static let significantChangeDistance = 500.0
    /// Seconds that must have passed since the last significant-change fix
    /// for the next: Apple's "not more frequently than once every five minutes".
    nonisolated public static let significantChangeInterval = 300.0

    /// The installed simulation: every `CLLocationManager`, `CLMonitor` and
    /// `liveUpdates()` made after it asks it. Setting it installs it as
    /// ``CoreLocation/CLDevice/current`` for the running Swift Testing test
    /// alone (so that tests running in parallel each have their own), or for
    /// the process outside tests. ``withSimulatedDevice(_:operation:)`` and
    /// the ``SimulatedDeviceTrait`` (`.simulatedDevice(replaying:)`)
    /// trait scope one to a block or a test.
    public static var current: SimulatedDevice? {
        get { CLDevice.current as? SimulatedDevice }
        set {
            TestScopes.install()
            CLDevice.current = newValue
            CLDevice.addresses = newValue?.addresses
        }
    }

    public let trace: Trace
    public let replay: ReplayOptions
    public let sensor: SensorOptions
    public private(set) var authorizationStatus: CLAuthorizationStatus
    /// What the user answers when the app asks for permission.
    public var authorizationAnswer: CLAuthorizationStatus
    /// The stay-point thresholds of visit monitoring (100 m, 5 minutes, gaps
    /// of 15 minutes); a change applies to visit monitoring started after it.
    public var visitSettings = VisitSettings()
    /// The addresses every `CLGeocoder` made with `init()` answers from, as
    /// `AddressIndex.load(osm:)` reads them from an OpenStreetMap extract;
    /// `nil` (the default) for a phone offline: geocodes fail with
    /// `CLError.network`. The installed device's are `CLDevice.addresses`.
    public var addresses: AddressIndex? {
        didSet { if CLDevice.current === self { CLDevice.addresses = addresses } }
    }
    /// The walk's first and last fix, seconds since 1970.
    public let startTime: Double
    public let endTime: Double
    /// Where the walk is now, seconds since 1970.
    public private(set) var now: Double
    /// Seconds since the walk began.
    public var elapsed: Double { now - startTime }
    /// Why the last heading that could not be made failed (a fix's date outside
    /// the World Magnetic Model's, its height outside the model's range): the
    /// detail behind the `CLError.headingFailure` a manager was sent.
    public private(set) var headingError: GeomagnetismError?

    private var feeds: [Feed] = []
    private var nextFeedOrder = 0
    private var known: [WeakManager] = []
    /// Updates, significant-change and visit monitoring started before the prompt was answered.
    private var waiting: [(manager: WeakManager, kind: Feed.Kind)] = []
    private var queued: [(manager: WeakManager, event: CLDeviceEvent)] = []
    private var announced: [ObjectIdentifier: Set<String>] = [:]
    /// Regions whose monitoring failed, by manager: kept in its `monitoredRegions`, never watched.
    private var refused: [ObjectIdentifier: Set<String>] = [:]
    /// The `CLMonitor`s the device evaluates, with the revision and authorization it evaluates them for.
    private var watchedMonitors: [WatchedMonitor] = []

    /// A walk from a trace file (GPX or CSV). A missing or unreadable file throws an error naming it.
    public convenience init(trace path: String, replay: ReplayOptions = ReplayOptions(), sensor: SensorOptions = SensorOptions(),
                            authorization: CLAuthorizationStatus = .authorizedWhenInUse,
                            answer: CLAuthorizationStatus = .authorizedWhenInUse) throws(TraceError) {
        self.init(trace: try TraceReader.read(path), replay: replay, sensor: sensor, authorization: authorization, answer: answer)
    }

    /// A walk from a trace in memory. `authorization` is the status the app
    /// starts with (granted by default, as on a simulator that has asked before).
    public init(trace: Trace, replay: ReplayOptions = ReplayOptions(), sensor: SensorOptions = SensorOptions(),
                authorization: CLAuthorizationStatus = .authorizedWhenInUse, answer: CLAuthorizationStatus = .authorizedWhenInUse) {
        self.trace = trace
        self.replay = replay
        self.sensor = sensor
        authorizationStatus = authorization
        authorizationAnswer = answer
        var probe = LocationSettings()
        probe.distanceFilter = kCLDistanceFilterNone
        let timeline = try? LocationSimulator(trace: trace, settings: probe, replay: replay, sensor: sensor)
        startTime = timeline?.startTime ?? 0
        endTime = timeline?.endTime ?? 0
        now = startTime
    }

    // MARK: Driving

    /// Replays to the end of the walk in virtual time.
    public func run() async {
        await advance(to: endTime)
        finishLiveUpdates()
    }

    /// Replays to the end, each callback when `clock` says it is due (for example `RealTimeClock(speed: 10)`).
    public func run(clock: some ReplayClock) async throws {
        var pacer = clock.makePacer(start: now)
        try await step(to: endTime, pacer: &pacer)
        finishLiveUpdates()
    }

    /// Moves the walk on by `seconds`, delivering what falls due.
    public func advance(by seconds: Double) async {
        await advance(to: now + seconds)
    }

    private func advance(to target: Double) async {
        var pacer = VirtualClock().makePacer(start: now)
        try? await step(to: target, pacer: &pacer)
    }

    private func step<P: ReplayPacer>(to target: Double, pacer: inout P) async throws {
        deliverQueued()
        while true {
            takeLiveUpdates()
            takeMonitors()
            var earliest: Feed?
            for feed in feeds where feed.peek() != nil {
                guard let t = feed.peek()?.timestamp, t <= target else { continue }
                if let e = earliest, let et = e.peek()?.timestamp, et <= t { continue }
                earliest = feed
            }
            guard let feed = earliest, let event = feed.take() else { break }
            try await pacer.wait(until: event.timestamp)
            now = max(now, event.timestamp)
            deliver(event, from: feed)
            deliverQueued()
            feeds.removeAll { $0.isFinished }
        }
        now = max(now, target)
        if now >= endTime { finishLiveUpdates() }
    }

    // MARK: CLLocationDevice

    public func requestAuthorization(always: Bool) {
        guard authorizationStatus == .notDetermined else { return }
        var answer = authorizationAnswer
        if !always && answer == .authorizedAlways { answer = .authorizedWhenInUse }
        authorizationStatus = answer
        for manager in known.compactMap(\.manager) { queue(.authorizationChanged(answer), for: manager) }
        let held = waiting
        waiting.removeAll()
        // Managers that started before the answer: updates now, or `.denied`.
        for (entry, kind) in held {
            guard let manager = entry.manager else { continue }
            if kind == .updates, manager.isUpdatingLocation { startUpdatingLocation(for: manager) }
            if kind == .significant, manager.isMonitoringSignificantLocationChanges { startMonitoringSignificantLocationChanges(for: manager) }
            if kind == .visits, manager.isMonitoringVisits { startMonitoringVisits(for: manager) }
        }
    }

    public func delegateDidChange(for manager: CLLocationManager) {
        remember(manager)
        if manager.delegate != nil { queue(.authorizationChanged(authorizationStatus), for: manager) }
    }

    public func startUpdatingLocation(for manager: CLLocationManager) {
        remember(manager)
        stopUpdatingLocation(for: manager)
        start(.updates, for: manager)
    }

    public func stopUpdatingLocation(for manager: CLLocationManager) {
        feeds.removeAll { $0.manager === manager && ($0.kind == .updates || $0.kind == .oneShot) }
        waiting.removeAll { $0.manager.manager === manager && $0.kind == .updates }
    }

    /// The service runs on its own: a manager's updates, `distanceFilter` and
    /// `desiredAccuracy` do not touch it. Started again while it runs, nothing
    /// changes (iOS sends no new first fix).
    public func startMonitoringSignificantLocationChanges(for manager: CLLocationManager) {
        startService(.significant, for: manager)
    }

    public func stopMonitoringSignificantLocationChanges(for manager: CLLocationManager) {
        stopService(.significant, for: manager)
    }

    /// Visits are a service of their own, on every fix the device makes (no
    /// distance filter, best accuracy) from now on; started again while it
    /// runs, nothing changes.
    public func startMonitoringVisits(for manager: CLLocationManager) {
        startService(.visits, for: manager)
    }

    /// Stops the manager's visits: a stay it has announced gets no departure.
    public func stopMonitoringVisits(for manager: CLLocationManager) {
        stopService(.visits, for: manager)
    }

    /// Starts a service that runs beside updates, unless it runs or waits for the prompt already.
    private func startService(_ kind: Feed.Kind, for manager: CLLocationManager) {
        remember(manager)
        let running = feeds.contains { $0.manager === manager && $0.kind == kind }
        guard !running, !waiting.contains(where: { $0.manager.manager === manager && $0.kind == kind }) else { return }
        start(kind, for: manager)
    }

    private func stopService(_ kind: Feed.Kind, for manager: CLLocationManager) {
        feeds.removeAll { $0.manager === manager && $0.kind == kind }
        waiting.removeAll { $0.manager.manager === manager && $0.kind == kind }
    }

    /// Heading updates for a manager, from now, whatever the authorization (a
    /// compass needs none, as on iOS). At each fix the device makes whose course
    /// is known (the walk's leg, which sensor noise does not touch):
    /// `trueHeading` is that course when the manager's location updates are on,
    /// else -1; `magneticHeading` is the course less the World Magnetic Model's
    /// declination at the fix's position, height and time, in [0, 360);
    /// `headingAccuracy` is the model's declination uncertainty there (one
    /// standard deviation); `x`, `y`, `z` are the model's field in microtesla for a
    /// phone held flat, screen up, its top along the course. A fix whose course
    /// is unknown (a stop) gives no heading: `heading` keeps the last. A heading
    /// is delivered when its magnetic heading turned by at least the manager's
    /// `headingFilter` from the last one delivered (every one with
    /// `kCLHeadingFilterNone`). The delegate is asked
    /// `locationManagerShouldDisplayHeadingCalibration(_:)` once before the
    /// first heading. A fix the model cannot take (a date outside 2020.0 to
    /// 2030.0) sends `CLError.headingFailure` once per start, with the reason in
    /// ``headingError``, and no heading for it. Starting again restarts.
    public func startUpdatingHeading(for manager: CLLocationManager) {
        remember(manager)
        stopUpdatingHeading(for: manager)
        feeds.append(Feed(kind: .heading, manager: manager, continuation: nil, simulator: makeSimulator(everyFix(pausing: false)), order: takeOrder()))
    }

    /// Stops a manager's heading updates.
    public func stopUpdatingHeading(for manager: CLLocationManager) {
        feeds.removeAll { $0.manager === manager && $0.kind == .heading }
    }

    /// A manager's updates or significant changes: now when authorized, after
    /// the prompt's answer when not yet determined, else `.denied`.
    private func start(_ kind: Feed.Kind, for manager: CLLocationManager) {
        switch authorizationStatus {
        case .authorizedAlways, .authorizedWhenInUse:
            addFeed(kind, for: manager)
        case .notDetermined:
            waiting.append((WeakManager(manager), kind))
        case .denied, .restricted:
            queue(.failure(CLError(.denied)), for: manager)
        }
    }

    public func requestLocation(for manager: CLLocationManager) {
        remember(manager)
        switch authorizationStatus {
        case .authorizedAlways, .authorizedWhenInUse:
            addFeed(.oneShot, for: manager)
        default:
            queue(.failure(CLError(.denied)), for: manager)
        }
    }

    /// Monitoring fails, as on iOS, for a region that is not a circle, one
    /// wider than `maximumRegionMonitoringDistance`, one past the 20 an app
    /// may monitor (`regionMonitoringFailure`), and without authorization
    /// (`regionMonitoringDenied`).
    public func startMonitoring(for region: CLRegion, manager: CLLocationManager) {
        remember(manager)
        let key = ObjectIdentifier(manager)
        refused[key]?.remove(region.identifier)
        let limit = LocationSettings().maximumRegions
        guard let circle = region as? CLCircularRegion, circle.radius <= manager.maximumRegionMonitoringDistance,
              watched(by: manager).count <= limit else {
            refused[key, default: []].insert(region.identifier)
            queue(.monitoringFailed(region, CLError(.regionMonitoringFailure)), for: manager)
            return
        }
        guard authorizationStatus == .authorizedAlways || authorizationStatus == .authorizedWhenInUse else {
            refused[key, default: []].insert(region.identifier)
            queue(.monitoringFailed(region, CLError(.regionMonitoringDenied)), for: manager)
            return
        }
        queue(.didStartMonitoring(region), for: manager)
        monitorAgain(manager)
    }

    public func stopMonitoring(for region: CLRegion, manager: CLLocationManager) {
        announced[ObjectIdentifier(manager)]?.remove(region.identifier)
        refused[ObjectIdentifier(manager)]?.remove(region.identifier)
        monitorAgain(manager)
    }

    /// A manager's monitored regions that are watched: circles whose monitoring did not fail.
    private func watched(by manager: CLLocationManager) -> [CLCircularRegion] {
        let failed = refused[ObjectIdentifier(manager)] ?? []
        return manager.monitoredRegions.compactMap { $0 as? CLCircularRegion }.filter { !failed.contains($0.identifier) }
    }

    public func requestState(for region: CLRegion, manager: CLLocationManager) {
        guard let circle = region as? CLCircularRegion, let position = position() else {
            queue(.determinedState(.unknown, region), for: manager)
            return
        }
        queue(.determinedState(circle.contains(position) ? .inside : .outside, region), for: manager)
    }

    /// Feeds the live-update sequences made since the last step, from now on.
    private func takeLiveUpdates() {
        for continuation in CLDevice.takeLiveUpdateRequests(for: self) { startLiveUpdates(continuation) }
    }

    private func startLiveUpdates(_ continuation: AsyncStream<CLLocationUpdate>.Continuation) {
        guard authorizationStatus == .authorizedAlways || authorizationStatus == .authorizedWhenInUse else {
            continuation.yield(CLLocationUpdate(location: nil, authorizationDenied: true))
            continuation.finish()
            return
        }
        // As iOS's live updates: a stop is reported once (`isStationary`), then nothing until the device moves.
        feeds.append(Feed(kind: .live, manager: nil, continuation: continuation, simulator: makeSimulator(everyFix(pausing: true)), order: takeOrder()))
    }

    /// Settings for every fix the device makes: its best accuracy, no distance filter.
    private func everyFix(pausing: Bool) -> LocationSettings {
        var settings = LocationSettings()
        settings.desiredAccuracy = kCLLocationAccuracyBest
        settings.distanceFilter = kCLDistanceFilterNone
        settings.pausesLocationUpdatesAutomatically = pausing
        return settings
    }

    // MARK: Inside

    private func remember(_ manager: CLLocationManager) {
        known.removeAll { $0.manager == nil }
        if !known.contains(where: { $0.manager === manager }) { known.append(WeakManager(manager)) }
    }

    private func queue(_ event: CLDeviceEvent, for manager: CLLocationManager) {
        queued.append((WeakManager(manager), event))
    }

    private func deliverQueued() {
        while !queued.isEmpty {
            let (manager, event) = queued.removeFirst()
            manager.manager?.receive(event)
        }
    }

    private func takeOrder() -> Int {
        defer { nextFeedOrder += 1 }
        return nextFeedOrder
    }

    /// An engine for the walk from now on, with `settings`.
    private func makeSimulator(_ settings: LocationSettings, regions: [MonitoredRegion] = []) -> LocationSimulator? {
        var options = replay
        options.seek = max(0, now - startTime)
        return try? LocationSimulator(trace: trace, settings: settings, replay: options, sensor: sensor, regions: regions)
    }

    /// A manager's feed: its own settings for updates and one-shot requests;
    /// significant changes and visits take every fix at the device's best and
    /// filter them themselves (``Feed/significantChange(_:)``, `VisitDetector`).
    private func addFeed(_ kind: Feed.Kind, for manager: CLLocationManager) {
        var settings = LocationSettings()
        let ownService = kind == .significant || kind == .visits
        settings.desiredAccuracy = ownService ? kCLLocationAccuracyBest : manager.desiredAccuracy
        settings.distanceFilter = kind == .updates ? manager.distanceFilter : kCLDistanceFilterNone
        settings.pausesLocationUpdatesAutomatically = kind == .updates && manager.pausesLocationUpdatesAutomatically
        let feed = Feed(kind: kind, manager: manager, continuation: nil, simulator: makeSimulator(settings), order: takeOrder())
        feed.desiredAccuracy = manager.desiredAccuracy
        feed.startedAt = now
        if kind == .visits { feed.visits = VisitDetector(settings: visitSettings) }
        feeds.append(feed)
    }

    /// Region monitoring for a manager restarts from now with its current regions.
    private func monitorAgain(_ manager: CLLocationManager) {
        feeds.removeAll { $0.manager === manager && $0.kind == .monitoring }
        let regions = watched(by: manager).sorted { $0.identifier < $1.identifier }
        guard !regions.isEmpty else { return }
        let monitored = regions.map { r in
            MonitoredRegion(identifier: r.identifier, shape: .circle(center: Coordinate(computedLatitude: r.center.latitude, longitude: r.center.longitude), radius: r.radius),
                            notifyOnEntry: r.notifyOnEntry, notifyOnExit: r.notifyOnExit)
        }
        let feed = Feed(kind: .monitoring, manager: manager, continuation: nil, simulator: makeSimulator(Self.monitoringSettings, regions: monitored), order: takeOrder())
        feed.regions = Dictionary(regions.map { ($0.identifier, $0 as CLRegion) }, uniquingKeysWith: { a, _ in a })
        feeds.append(feed)
    }

    /// The fixes region monitoring and `CLMonitor` conditions are evaluated on:
    /// the device's reported fixes at Stroll's default accuracy, unfiltered.
    private static var monitoringSettings: LocationSettings {
        var settings = LocationSettings()
        settings.distanceFilter = kCLDistanceFilterNone
        return settings
    }

    // MARK: CLMonitor

    /// Starts evaluating monitors the app requested since the last step, and
    /// evaluates afresh, from now, those whose conditions or whose authorization changed.
    private func takeMonitors() {
        watchedMonitors.removeAll { $0.monitor == nil }
        for monitor in CLDevice.liveMonitors(for: self) {
            let revision = monitor.revision
            if let watched = watchedMonitors.first(where: { $0.monitor === monitor }),
               watched.revision == revision, watched.authorization == authorizationStatus { continue }
            watchedMonitors.removeAll { $0.monitor === monitor }
            watchedMonitors.append(WatchedMonitor(monitor: monitor, revision: revision, authorization: authorizationStatus))
            watch(monitor)
        }
    }

    /// A monitor's conditions, evaluated from now by the rules of
    /// `startMonitoring(for:)` (one `RegionMonitor` behind both): circles
    /// give their state at the next fix, then a change at each crossing. The
    /// 21st condition on and every condition of a kind Stroll cannot evaluate
    /// (not a circle, or a radius that is not a positive number of metres) get
    /// one `unknown` event saying why, `conditionLimitExceeded` or
    /// `conditionUnsupported`; without authorization every condition gets one
    /// with `authorizationDenied`.
    private func watch(_ monitor: CLMonitor) {
        feeds.removeAll { $0.kind == .conditions && $0.monitor === monitor }
        let date = Date(timeIntervalSince1970: now)
        let authorized = authorizationStatus == .authorizedAlways || authorizationStatus == .authorizedWhenInUse
        var regions: [MonitoredRegion] = []
        for (identifier, condition) in monitor.conditions {
            guard authorized else {
                monitor.receive(CLMonitor.Event(identifier: identifier, state: .unknown, date: date, authorizationDenied: true))
                continue
            }
            guard let circle = condition as? CLMonitor.CircularGeographicCondition, circle.radius.isFinite, circle.radius > 0 else {
                monitor.receive(CLMonitor.Event(identifier: identifier, state: .unknown, date: date, conditionUnsupported: true))
                continue
            }
            guard regions.count < LocationSettings().maximumRegions else {
                monitor.receive(CLMonitor.Event(identifier: identifier, state: .unknown, date: date, conditionLimitExceeded: true))
                continue
            }
            regions.append(MonitoredRegion.circle(identifier, center: Coordinate(computedLatitude: circle.center.latitude, longitude: circle.center.longitude),
                                                  radius: circle.radius))
        }
        guard !regions.isEmpty else { return }
        let feed = Feed(kind: .conditions, manager: nil, continuation: nil, simulator: makeSimulator(Self.monitoringSettings, regions: regions), order: takeOrder())
        feed.monitor = monitor
        feeds.append(feed)
    }

    /// A condition's state as the region monitor decided it.
    private func deliverCondition(_ event: LocationEvent, to monitor: CLMonitor) {
        switch event {
        case .regionState(let id, let inside, let t):
            monitor.receive(CLMonitor.Event(identifier: id, state: inside ? .satisfied : .unsatisfied, date: Date(timeIntervalSince1970: t)))
        case .regionEntered(let id, let t):
            monitor.receive(CLMonitor.Event(identifier: id, state: .satisfied, date: Date(timeIntervalSince1970: t)))
        case .regionExited(let id, let t):
            monitor.receive(CLMonitor.Event(identifier: id, state: .unsatisfied, date: Date(timeIntervalSince1970: t)))
        default:
            break
        }
    }

    /// The device's position now: the next fix of the walk.
    private func position() -> CLLocationCoordinate2D? {
        var settings = LocationSettings()
        settings.distanceFilter = kCLDistanceFilterNone
        guard var simulator = makeSimulator(settings) else { return nil }
        while let event = simulator.next() {
            if case .location(let l) = event { return CLLocationCoordinate2D(latitude: l.coordinate.latitude, longitude: l.coordinate.longitude) }
        }
        return nil
    }

    private func deliver(_ event: LocationEvent, from feed: Feed) {
        switch feed.kind {
        case .updates:
            guard let manager = feed.manager else { return }
            switch event {
            case .location(let l): manager.receive(.locations([CLLocation(l)]))
            case .paused: manager.receive(.paused)
            case .resumed: manager.receive(.resumed)
            case .error(let e, _): manager.receive(.failure(CLError(e.code == .denied ? .denied : .locationUnknown)))
            default: break
            }
        case .oneShot:
            guard let manager = feed.manager, case .location(let l) = event else { return }
            let good = feed.desiredAccuracy <= 0 || l.horizontalAccuracy <= feed.desiredAccuracy
            if feed.best == nil || l.horizontalAccuracy < (feed.best?.horizontalAccuracy ?? .infinity) { feed.best = l }
            if good || l.timestamp - feed.startedAt >= 10, let best = feed.best {
                feed.isFinished = true
                manager.receive(.locations([CLLocation(best)]))
            }
        case .significant:
            guard let manager = feed.manager, case .location(let l) = event, feed.significantChange(l) else { return }
            manager.receive(.locations([CLLocation(l)]))
        case .visits:
            guard let manager = feed.manager, case .location(let l) = event, let reported = feed.visits?.add(l) else { return }
            for visit in reported { manager.receive(.visit(CLVisit(visit))) }
        case .monitoring:
            guard let manager = feed.manager else { return }
            let key = ObjectIdentifier(manager)
            switch event {
            case .regionState(let id, let inside, _):
                guard let region = feed.regions[id], announced[key]?.contains(id) != true else { return }
                announced[key, default: []].insert(id)
                manager.receive(.determinedState(inside ? .inside : .outside, region))
            case .regionEntered(let id, _):
                guard let region = feed.regions[id] else { return }
                manager.receive(.determinedState(.inside, region))
                manager.receive(.entered(region))
            case .regionExited(let id, _):
                guard let region = feed.regions[id] else { return }
                manager.receive(.determinedState(.outside, region))
                manager.receive(.exited(region))
            default:
                break
            }
        case .heading:
            guard let manager = feed.manager, case .location(let l) = event else { return }
            deliverHeading(at: l, to: manager, from: feed)
        case .conditions:
            guard let monitor = feed.monitor else { return }
            deliverCondition(event, to: monitor)
        case .live:
            switch event {
            case .location(let l): feed.continuation?.yield(CLLocationUpdate(location: CLLocation(l)))
            case .paused: feed.continuation?.yield(CLLocationUpdate(location: nil, isStationary: true))
            default: break
            }
        }
    }

    /// One fix's heading, by the rules of ``startUpdatingHeading(for:)``.
    private func deliverHeading(at l: Location, to manager: CLLocationManager, from feed: Feed) {
        guard l.course >= 0 else { return }
        let field: MagneticField
        do throws(GeomagnetismError) {
            field = try WorldMagneticModel.field(latitude: l.coordinate.latitude, longitude: l.coordinate.longitude, height: l.altitude,
                                                 date: Date(timeIntervalSince1970: l.timestamp))
        } catch {
            headingError = error
            if !feed.headingFailed { manager.receive(.failure(CLError(.headingFailure))) }
            feed.headingFailed = true
            return
        }
        let magnetic = Self.normalized(l.course - field.declination)
        if let last = feed.lastHeading, manager.headingFilter >= 0 {
            let turn = abs(magnetic - last).truncatingRemainder(dividingBy: 360)
            guard min(turn, 360 - turn) >= manager.headingFilter else { return }
        }
        if feed.lastHeading == nil { manager.receive(.headingCalibration) }
        feed.lastHeading = magnetic
        let course = l.course * .pi / 180
        let heading = CLHeading(magneticHeading: magnetic, trueHeading: manager.isUpdatingLocation ? l.course : -1,
                                headingAccuracy: field.declinationUncertainty, timestamp: Date(timeIntervalSince1970: l.timestamp),
                                x: (-field.north * sin(course) + field.east * cos(course)) / 1000,
                                y: (field.north * cos(course) + field.east * sin(course)) / 1000,
                                z: -field.down / 1000)
        manager.receive(.heading(heading))
    }

    /// An angle in [0, 360).
    nonisolated static func normalized(_ degrees: Double) -> Double {
        let d = degrees.truncatingRemainder(dividingBy: 360)
        let wrapped = d < 0 ? d + 360 : d
        return wrapped >= 360 ? 0 : wrapped
    }

    private func finishLiveUpdates() {
        takeLiveUpdates()
        for feed in feeds where feed.kind == .live {
            feed.continuation?.finish()
            feed.isFinished = true
        }
        feeds.removeAll { $0.isFinished }
        for monitor in CLDevice.liveMonitors(for: self) { monitor.finishEvents() }
    }
}

/// One stream of the device's fixes to one consumer, with its own settings.
@MainActor
final class Feed {
    enum Kind {
        case updates, oneShot, significant, visits, monitoring, live, heading
        /// A `CLMonitor`'s conditions.
        case conditions
    }

    let kind: Kind
    weak var manager: CLLocationManager?
    /// The monitor a `conditions` feed evaluates for.
    weak var monitor: CLMonitor?
    let continuation: AsyncStream<CLLocationUpdate>.Continuation?
    private var simulator: LocationSimulator?
    private var upcoming: LocationEvent?
    let order: Int
    var regions: [String: CLRegion] = [:]
    var desiredAccuracy = 0.0
    var startedAt = 0.0
    var best: Location?
    /// The last fix a significant-change feed delivered.
    var lastSignificant: Location?
    /// The magnetic heading a heading feed last delivered.
    var lastHeading: Double?
    /// Whether a heading feed has reported `headingFailure`.
    var headingFailed = false
    /// A visits feed's stay-point detector.
    var visits: VisitDetector?
    var isFinished = false

    init(kind: Kind, manager: CLLocationManager?, continuation: AsyncStream<CLLocationUpdate>.Continuation?, simulator: LocationSimulator?, order: Int) {
        self.kind = kind
        self.manager = manager
        self.continuation = continuation
        self.simulator = simulator
        self.order = order
        isFinished = simulator == nil
    }

    /// The next event without taking it.
    func peek() -> LocationEvent? {
        switch kind {
        case .live: break
        case .conditions: if monitor == nil { isFinished = true }
        default: if manager == nil { isFinished = true }
        }
        if isFinished { return nil }
        if upcoming == nil { upcoming = simulator?.next() }
        if upcoming == nil { isFinished = true }
        return upcoming
    }

    func take() -> LocationEvent? {
        defer { upcoming = nil }
        return peek()
    }

    /// Whether a significant-change feed delivers this fix: the first, then
    /// one at least ``SimulatedDevice/significantChangeDistance`` metres (by
    /// the WGS84 geodesic) and ``SimulatedDevice/significantChangeInterval``
    /// seconds from the last it delivered.
    func significantChange(_ l: Location) -> Bool {
        if let last = lastSignificant {
            guard l.timestamp - last.timestamp >= SimulatedDevice.significantChangeInterval,
                  Geodesic.wgs84.distance(last.coordinate, l.coordinate) >= SimulatedDevice.significantChangeDistance else { return false }
        }
        lastSignificant = l
        return true
    }
}

/// A monitor the device evaluates, not kept alive by it.
struct WatchedMonitor {
    weak var monitor: CLMonitor?
    let revision: Int
    let authorization: CLAuthorizationStatus
}

struct WeakManager {
    weak var manager: CLLocationManager?

    init(_ manager: CLLocationManager) {
        self.manager = manager
    }
}

extension CLLocation {
    /// A simulated fix as CoreLocation delivers it.
    convenience init(_ l: Location) {
        self.init(coordinate: CLLocationCoordinate2D(latitude: l.coordinate.latitude, longitude: l.coordinate.longitude),
                  altitude: l.altitude, horizontalAccuracy: l.horizontalAccuracy, verticalAccuracy: l.verticalAccuracy,
                  course: l.course, courseAccuracy: l.courseAccuracy, speed: l.speed, speedAccuracy: l.speedAccuracy,
                  timestamp: Date(timeIntervalSince1970: l.timestamp))
    }
}

extension CLVisit {
    /// A detected visit as CoreLocation delivers it: `Date.distantFuture` for no departure yet.
    convenience init(_ v: Visit) {
        self.init(coordinate: CLLocationCoordinate2D(latitude: v.coordinate.latitude, longitude: v.coordinate.longitude),
                  horizontalAccuracy: v.horizontalAccuracy, arrivalDate: Date(timeIntervalSince1970: v.arrival),
                  departureDate: v.departure.map { Date(timeIntervalSince1970: $0) } ?? .distantFuture)
    }
}

/// The name ``SimulatedDevice`` had before 0.2: kept so that app tests written
/// against it still build, with a warning naming the new one.
@available(*, deprecated, renamed: "SimulatedDevice")
public typealias Simulation = SimulatedDevice
#endif
