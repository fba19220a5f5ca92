#if !canImport(Darwin)
import Foundation

/// CoreLocation's callbacks, every one optional (a default that does
/// nothing). Like Apple's, the requirements are not actor-isolated; Stroll
/// calls them on the main actor.
public protocol CLLocationManagerDelegate: NSObjectProtocol {
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation])
    /// A new heading, after `startUpdatingHeading()`, that changed by at least `headingFilter`.
    func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading)
    /// Whether the compass calibration should show; the default answers `false`.
    /// StrollSimulation's device asks once each time heading updates start, before
    /// the first heading; its compass needs no calibration, so the answer changes nothing.
    func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager) -> Bool
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error)
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
    func locationManager(_ manager: CLLocationManager, didChangeAuthorization status: CLAuthorizationStatus)
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion)
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion)
    func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error)
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion)
    func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager)
    func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager)
    /// A visit's arrival (`departureDate` is `Date.distantFuture`) or departure.
    func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit)
}

extension CLLocationManagerDelegate {
    public func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
    /// Does nothing.
    public func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {}
    /// Answers `false`: no calibration display.
    public func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager) -> Bool { false }
    public func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}
    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {}
    public func locationManager(_ manager: CLLocationManager, didChangeAuthorization status: CLAuthorizationStatus) {}
    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {}
    public func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error) {}
    public func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {}
    public func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) {}
    public func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) {}
    /// Does nothing: a delegate that does not implement it ignores visits.
    public func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {}
}

/// CoreLocation's manager, with Apple's defaults (best accuracy, no distance
/// filter, automatic pausing on). It holds the app's settings and passes its
/// requests to the device (``CLDevice/current``), which delivers fixes with
/// this manager's own `desiredAccuracy` and `distanceFilter`.
///
/// Not isolated to any actor, as Apple's (`open class CLLocationManager:
/// NSObject`): a nonisolated class may make one, configure it and be its
/// delegate. Its state lives on the main queue, beside the device (which
/// belongs to the main actor) and the delegate callbacks, which arrive there:
/// used from the main actor or the main thread, every call takes effect
/// before it returns, as before; called from another thread, a member runs
/// on the main queue and returns when it has (`DispatchQueue.main.sync`), so
/// the device sees the calls of every thread in order. Such a call waits for
/// the main queue: it must not be made while the main actor is blocked
/// waiting for the calling thread. With no device installed,
/// `startUpdatingLocation()` reports `CLError.locationUnknown` to the delegate.
open class CLLocationManager: NSObject {
    /// Everything the manager keeps, read and written on the main queue only.
    private struct State {
        weak var delegate: (any CLLocationManagerDelegate)?
        var desiredAccuracy: CLLocationAccuracy = kCLLocationAccuracyBest
        var distanceFilter: CLLocationDistance = kCLDistanceFilterNone
        var activityType: CLActivityType = .other
        var pausesLocationUpdatesAutomatically = true
        var allowsBackgroundLocationUpdates = false
        var showsBackgroundLocationIndicator = false
        var headingFilter: CLLocationDegrees = 1
        var headingOrientation: CLDeviceOrientation = .portrait
        var heading: CLHeading?
        var isUpdatingHeading = false
        var location: CLLocation?
        var monitoredRegions: Set<CLRegion> = []
        var isUpdatingLocation = false
        var isMonitoringSignificantLocationChanges = false
        var isMonitoringVisits = false
        var foundLater: (any CLLocationDevice)?
        var warnedNoDevice = false
    }

    private var state = State()

    open var delegate: (any CLLocationManagerDelegate)? {
        get { MainQueue.sync { state.delegate } }
        set {
            let current = currentIfNeeded
            MainQueue.sync {
                state.delegate = newValue
                if let device = device(current) { tell(device) { $0.delegateDidChange(for: $1) } }
            }
        }
    }
    open var desiredAccuracy: CLLocationAccuracy {
        get { MainQueue.sync { state.desiredAccuracy } }
        set { MainQueue.sync { state.desiredAccuracy = newValue } }
    }
    open var distanceFilter: CLLocationDistance {
        get { MainQueue.sync { state.distanceFilter } }
        set { MainQueue.sync { state.distanceFilter = newValue } }
    }
    open var activityType: CLActivityType {
        get { MainQueue.sync { state.activityType } }
        set { MainQueue.sync { state.activityType = newValue } }
    }
    open var pausesLocationUpdatesAutomatically: Bool {
        get { MainQueue.sync { state.pausesLocationUpdatesAutomatically } }
        set { MainQueue.sync { state.pausesLocationUpdatesAutomatically = newValue } }
    }
    open var allowsBackgroundLocationUpdates: Bool {
        get { MainQueue.sync { state.allowsBackgroundLocationUpdates } }
        set { MainQueue.sync { state.allowsBackgroundLocationUpdates = newValue } }
    }
    open var showsBackgroundLocationIndicator: Bool {
        get { MainQueue.sync { state.showsBackgroundLocationIndicator } }
        set { MainQueue.sync { state.showsBackgroundLocationIndicator = newValue } }
    }
    /// Degrees a heading must have turned from the last one delivered (its
    /// magnetic heading, the shorter way round) to be delivered; 1 by default, as
    /// on iOS. `kCLHeadingFilterNone` delivers every heading. Read at each heading.
    open var headingFilter: CLLocationDegrees {
        get { MainQueue.sync { state.headingFilter } }
        set { MainQueue.sync { state.headingFilter = newValue } }
    }
    /// The edge of the device headings are measured along: kept, no effect
    /// (Stroll's device points its top along the walk).
    open var headingOrientation: CLDeviceOrientation {
        get { MainQueue.sync { state.headingOrientation } }
        set { MainQueue.sync { state.headingOrientation = newValue } }
    }
    /// The most recent heading delivered to this manager.
    open var heading: CLHeading? { MainQueue.sync { state.heading } }
    /// Whether heading updates are on (not a CoreLocation property; for tests and the device).
    public var isUpdatingHeading: Bool { MainQueue.sync { state.isUpdatingHeading } }
    /// The most recent fix delivered to this manager.
    open var location: CLLocation? { MainQueue.sync { state.location } }
    open var monitoredRegions: Set<CLRegion> { MainQueue.sync { state.monitoredRegions } }
    /// The largest radius a monitored region may have: monitoring a larger
    /// one fails with `regionMonitoringFailure`, as on iOS. iOS's value is
    /// the device's; Stroll's is a constant.
    open var maximumRegionMonitoringDistance: CLLocationDistance { 1_000_000 }
    /// Whether updates are on (not a CoreLocation property; for tests and the device).
    public var isUpdatingLocation: Bool { MainQueue.sync { state.isUpdatingLocation } }
    /// Whether significant-change monitoring is on (not a CoreLocation property; for tests and the device).
    public var isMonitoringSignificantLocationChanges: Bool { MainQueue.sync { state.isMonitoringSignificantLocationChanges } }
    /// Whether visit monitoring is on (not a CoreLocation property; for tests and the device).
    public var isMonitoringVisits: Bool { MainQueue.sync { state.isMonitoringVisits } }

    /// The device current where the manager was made (``CLDevice/current``),
    /// else the first one current when the manager asked for one.
    private let madeWith: (any CLLocationDevice)?

    /// Made anywhere (a stored property's default value in any class), as on
    /// iOS. It keeps the device current where it is made: in a test, that test's.
    public override init() {
        madeWith = CLDevice.current
        super.init()
    }

    /// The device current for the caller when this manager has none of its
    /// own: read on the calling thread, before any hop to the main queue,
    /// since what is current depends on the task (a test's device).
    private var currentIfNeeded: (any CLLocationDevice)? { madeWith == nil ? CLDevice.current : nil }

    /// This manager's device (on the main queue): the one current where it
    /// was made, else `current` (the caller's, ``currentIfNeeded``), kept from
    /// then on. With none, a message on standard error (once per manager)
    /// says how to install one.
    private func device(_ current: (any CLLocationDevice)?) -> (any CLLocationDevice)? {
        if let madeWith { return madeWith }
        if let foundLater = state.foundLater { return foundLater }
        state.foundLater = current
        if current == nil && !state.warnedNoDevice {
            state.warnedNoDevice = true
            FileHandle.standardError.write(Data(("CLLocationManager: no device is installed where this manager was made or used, so it reports "
                + "CLError.locationUnknown: set SimulatedDevice.current before making the manager (in the same test), or make it inside "
                + "withSimulatedDevice(...) or a test with the .simulatedDevice(replaying:) trait\n").utf8))
        }
        return current
    }

    /// Hands this manager to `device` (on the main queue, which is the main
    /// actor's executor: ``MainQueue/sync(_:)`` has put the caller there).
    private func tell(_ device: any CLLocationDevice, _ call: @MainActor (any CLLocationDevice, CLLocationManager) -> Void) {
        // nonisolated(unsafe): the manager is not Sendable (nor is Apple's), so
        // the compiler sees handing it to the main actor as sending it out of
        // the caller's region. Every use of the manager's state is on the main
        // queue (each member goes through MainQueue.sync), where the device runs
        // too, so the two never race; this local is the one place that says so.
        nonisolated(unsafe) let manager = self
        MainActor.assumeIsolated { call(device, manager) }
    }

    /// As ``tell(_:_:)``, with a region (not Sendable, kept on the main queue like the manager).
    private func tell(_ device: any CLLocationDevice, about region: CLRegion,
                      _ call: @MainActor (any CLLocationDevice, CLRegion, CLLocationManager) -> Void) {
        // nonisolated(unsafe): as in tell(_:_:), the manager and the region are
        // used on the main queue only.
        nonisolated(unsafe) let manager = self
        nonisolated(unsafe) let region = region
        MainActor.assumeIsolated { call(device, region, manager) }
    }

    /// The status of this manager's device (else of the current one).
    open var authorizationStatus: CLAuthorizationStatus {
        let current = CLDevice.current
        return MainQueue.sync {
            guard let device = madeWith ?? state.foundLater ?? current else { return .notDetermined }
            return MainActor.assumeIsolated { device.authorizationStatus }
        }
    }
    open var accuracyAuthorization: CLAccuracyAuthorization { .fullAccuracy }

    open class func authorizationStatus() -> CLAuthorizationStatus {
        guard let device = CLDevice.current else { return .notDetermined }
        return MainQueue.sync { MainActor.assumeIsolated { device.authorizationStatus } }
    }
    /// Whether a device is installed: answered on the calling thread (Apple
    /// advises calling it off the main thread).
    open class func locationServicesEnabled() -> Bool { CLDevice.current != nil }
    open class func isMonitoringAvailable(for regionClass: AnyClass) -> Bool { regionClass is CLCircularRegion.Type }
    open class func significantLocationChangeMonitoringAvailable() -> Bool { true }
    /// Whether headings can be had: a device is installed.
    open class func headingAvailable() -> Bool { CLDevice.current != nil }

    open func requestWhenInUseAuthorization() {
        let current = currentIfNeeded
        MainQueue.sync {
            guard let device = device(current) else { return }
            MainActor.assumeIsolated { device.requestAuthorization(always: false) }
        }
    }

    open func requestAlwaysAuthorization() {
        let current = currentIfNeeded
        MainQueue.sync {
            guard let device = device(current) else { return }
            MainActor.assumeIsolated { device.requestAuthorization(always: true) }
        }
    }

    open func startUpdatingLocation() {
        let current = currentIfNeeded
        MainQueue.sync {
            state.isUpdatingLocation = true
            guard let device = device(current) else { return receive(.failure(CLError(.locationUnknown))) }
            tell(device) { $0.startUpdatingLocation(for: $1) }
        }
    }

    open func stopUpdatingLocation() {
        let current = currentIfNeeded
        MainQueue.sync {
            state.isUpdatingLocation = false
            if let device = device(current) { tell(device) { $0.stopUpdatingLocation(for: $1) } }
        }
    }

    /// Headings from the device's compass, each delivered when it turned by at
    /// least `headingFilter`. It runs beside location updates; `trueHeading` is
    /// valid only while this manager's location updates are on, as on iOS.
    /// With no device installed it reports `CLError.headingFailure`.
    open func startUpdatingHeading() {
        let current = currentIfNeeded
        MainQueue.sync {
            state.isUpdatingHeading = true
            guard let device = device(current) else { return receive(.failure(CLError(.headingFailure))) }
            tell(device) { $0.startUpdatingHeading(for: $1) }
        }
    }

    /// Stops heading updates; `heading` keeps the last one.
    open func stopUpdatingHeading() {
        let current = currentIfNeeded
        MainQueue.sync {
            state.isUpdatingHeading = false
            if let device = device(current) { tell(device) { $0.stopUpdatingHeading(for: $1) } }
        }
    }

    /// Hides the compass calibration: nothing to hide in Stroll.
    open func dismissHeadingCalibrationDisplay() {}

    open func requestLocation() {
        let current = currentIfNeeded
        MainQueue.sync {
            guard let device = device(current) else { return receive(.failure(CLError(.locationUnknown))) }
            tell(device) { $0.requestLocation(for: $1) }
        }
    }

    /// Significant changes, a service of its own: the device's current fix,
    /// then one each time the device has moved about 500 m, whatever
    /// `distanceFilter` and `desiredAccuracy` say (neither is changed). It
    /// runs beside `startUpdatingLocation()`: stopping one leaves the other on.
    /// Starting it again while it runs gives no new first fix, as on iOS.
    open func startMonitoringSignificantLocationChanges() {
        let current = currentIfNeeded
        MainQueue.sync {
            state.isMonitoringSignificantLocationChanges = true
            guard let device = device(current) else { return receive(.failure(CLError(.locationUnknown))) }
            tell(device) { $0.startMonitoringSignificantLocationChanges(for: $1) }
        }
    }

    open func stopMonitoringSignificantLocationChanges() {
        let current = currentIfNeeded
        MainQueue.sync {
            state.isMonitoringSignificantLocationChanges = false
            if let device = device(current) { tell(device) { $0.stopMonitoringSignificantLocationChanges(for: $1) } }
        }
    }

    /// Visits, a service of its own: `locationManager(_:didVisit:)` when the
    /// device has stayed in one place (an arrival) and when it leaves (a
    /// departure), whatever `distanceFilter` and `desiredAccuracy` say. It
    /// runs beside updates and significant changes.
    open func startMonitoringVisits() {
        let current = currentIfNeeded
        MainQueue.sync {
            state.isMonitoringVisits = true
            guard let device = device(current) else { return receive(.failure(CLError(.locationUnknown))) }
            tell(device) { $0.startMonitoringVisits(for: $1) }
        }
    }

    /// Stops visit deliveries; updates and significant changes go on.
    open func stopMonitoringVisits() {
        let current = currentIfNeeded
        MainQueue.sync {
            state.isMonitoringVisits = false
            if let device = device(current) { tell(device) { $0.stopMonitoringVisits(for: $1) } }
        }
    }

    open func startMonitoring(for region: CLRegion) {
        let current = currentIfNeeded
        MainQueue.sync {
            state.monitoredRegions.remove(region)
            state.monitoredRegions.insert(region)
            guard let device = device(current) else { return receive(.monitoringFailed(region, CLError(.regionMonitoringFailure))) }
            tell(device, about: region) { $0.startMonitoring(for: $1, manager: $2) }
        }
    }

    open func stopMonitoring(for region: CLRegion) {
        let current = currentIfNeeded
        MainQueue.sync {
            state.monitoredRegions.remove(region)
            if let device = device(current) { tell(device, about: region) { $0.stopMonitoring(for: $1, manager: $2) } }
        }
    }

    open func requestState(for region: CLRegion) {
        let current = currentIfNeeded
        MainQueue.sync {
            guard let device = device(current) else { return receive(.determinedState(.unknown, region)) }
            tell(device, about: region) { $0.requestState(for: $1, manager: $2) }
        }
    }

    /// The device's delivery: keeps `location` and `heading` and calls the
    /// delegate, on the main queue (where the device delivers).
    public func receive(_ event: CLDeviceEvent) {
        MainQueue.sync { deliver(event) }
    }

    private func deliver(_ event: CLDeviceEvent) {
        let delegate = state.delegate
        switch event {
        case .locations(let locations):
            state.location = locations.last ?? state.location
            delegate?.locationManager(self, didUpdateLocations: locations)
        case .heading(let newHeading):
            state.heading = newHeading
            delegate?.locationManager(self, didUpdateHeading: newHeading)
        case .headingCalibration:
            _ = delegate?.locationManagerShouldDisplayHeadingCalibration(self)
        case .failure(let error):
            if error.code == .denied {
                state.isUpdatingLocation = false
                state.isMonitoringSignificantLocationChanges = false
                state.isMonitoringVisits = false
            }
            delegate?.locationManager(self, didFailWithError: error)
        case .authorizationChanged(let status):
            delegate?.locationManagerDidChangeAuthorization(self)
            delegate?.locationManager(self, didChangeAuthorization: status)
        case .entered(let region):
            delegate?.locationManager(self, didEnterRegion: region)
        case .exited(let region):
            delegate?.locationManager(self, didExitRegion: region)
        case .determinedState(let regionState, let region):
            delegate?.locationManager(self, didDetermineState: regionState, for: region)
        case .monitoringFailed(let region, let error):
            delegate?.locationManager(self, monitoringDidFailFor: region, withError: error)
        case .didStartMonitoring(let region):
            delegate?.locationManager(self, didStartMonitoringFor: region)
        case .paused:
            delegate?.locationManagerDidPauseLocationUpdates(self)
        case .resumed:
            delegate?.locationManagerDidResumeLocationUpdates(self)
        case .visit(let visit):
            delegate?.locationManager(self, didVisit: visit)
        }
    }
}

/// The main dispatch queue, the main actor's executor: on Linux, once the
/// main thread has handed the queue to `dispatchMain()` (an async `main`,
/// Swift Testing), the queue runs on another thread, so being on it is not
/// `Thread.isMainThread`.
enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main queue (or on the main thread, before it drains the queue).
    static var isCurrent: Bool { Thread.isMainThread || DispatchQueue.getSpecific(key: key) == true }

    /// Runs `body` on the main queue and returns its result: at once when
    /// the caller is there, else through `DispatchQueue.main.sync`.
    static func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent { return try body() }
        return try DispatchQueue.main.sync(execute: body)
    }
}
#endif
