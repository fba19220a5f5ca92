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
/// It belongs to the main actor, where iOS apps use it and where the device
/// delivers callbacks (`@preconcurrency`, so Swift 5 code that uses it without
/// annotations compiles unchanged). With no device installed,
/// `startUpdatingLocation()` reports `CLError.locationUnknown` to the delegate.
@preconcurrency @MainActor
open class CLLocationManager: NSObject {
    open weak var delegate: (any CLLocationManagerDelegate)? {
        didSet { device?.delegateDidChange(for: self) }
    }
    open var desiredAccuracy: CLLocationAccuracy = kCLLocationAccuracyBest
    open var distanceFilter: CLLocationDistance = kCLDistanceFilterNone
    open var activityType: CLActivityType = .other
    open var pausesLocationUpdatesAutomatically = true
    open var allowsBackgroundLocationUpdates = false
    open var showsBackgroundLocationIndicator = false
    /// Degrees a heading must have turned from the last one delivered (its
    /// magnetic heading, the shorter way round) to be delivered; 1 by default, as
    /// on iOS. `kCLHeadingFilterNone` delivers every heading. Read at each heading.
    open var headingFilter: CLLocationDegrees = 1
    /// The edge of the device headings are measured along: kept, no effect
    /// (Stroll's device points its top along the walk).
    open var headingOrientation: CLDeviceOrientation = .portrait
    /// The most recent heading delivered to this manager.
    open private(set) var heading: CLHeading?
    /// Whether heading updates are on (not a CoreLocation property; for tests and the device).
    public private(set) var isUpdatingHeading = false
    /// The most recent fix delivered to this manager.
    open private(set) var location: CLLocation?
    open private(set) var monitoredRegions: Set<CLRegion> = []
    /// The largest radius a monitored region may have: monitoring a larger
    /// one fails with `regionMonitoringFailure`, as on iOS. iOS's value is
    /// the device's; Stroll's is a constant.
    open var maximumRegionMonitoringDistance: CLLocationDistance { 1_000_000 }
    /// Whether updates are on (not a CoreLocation property; for tests and the device).
    public private(set) var isUpdatingLocation = false
    /// Whether significant-change monitoring is on (not a CoreLocation property; for tests and the device).
    public private(set) var isMonitoringSignificantLocationChanges = false
    /// Whether visit monitoring is on (not a CoreLocation property; for tests and the device).
    public private(set) var isMonitoringVisits = false

    /// The device current where the manager was made (``CLDevice/current``),
    /// else the first one current when the manager asked for one.
    private let madeWith: (any CLLocationDevice)?
    private var foundLater: (any CLLocationDevice)?
    private var warnedNoDevice = false

    /// Not isolated, so that a manager can be made anywhere (a stored
    /// property's default value in any class), as on iOS. It keeps the device
    /// current where it is made: in a test, that test's.
    nonisolated public override init() {
        madeWith = CLDevice.current
        super.init()
    }

    /// This manager's device: the one current where it was made, else the
    /// current one, kept from then on. With none, a message on standard
    /// error (once per manager) says how to install one.
    var device: (any CLLocationDevice)? {
        if let madeWith { return madeWith }
        if let foundLater { return foundLater }
        foundLater = CLDevice.current
        if foundLater == nil && !warnedNoDevice {
            warnedNoDevice = true
            FileHandle.standardError.write(Data(("CLLocationManager: no device is installed where this manager was made or used, so it reports "
                + "CLError.locationUnknown: set SimulatedDevice.current before making the manager (in the same test), or make it inside "
                + "withSimulatedDevice(...) or a test with the .simulatedDevice(replaying:) trait\n").utf8))
        }
        return foundLater
    }

    open var authorizationStatus: CLAuthorizationStatus { Self.authorizationStatus() }
    open var accuracyAuthorization: CLAccuracyAuthorization { .fullAccuracy }

    open class func authorizationStatus() -> CLAuthorizationStatus { CLDevice.current?.authorizationStatus ?? .notDetermined }
    open class func locationServicesEnabled() -> Bool { CLDevice.current != nil }
    open class func isMonitoringAvailable(for regionClass: AnyClass) -> Bool { regionClass is CLCircularRegion.Type }
    open class func significantLocationChangeMonitoringAvailable() -> Bool { true }
    /// Whether headings can be had: a device is installed.
    open class func headingAvailable() -> Bool { CLDevice.current != nil }

    open func requestWhenInUseAuthorization() { device?.requestAuthorization(always: false) }
    open func requestAlwaysAuthorization() { device?.requestAuthorization(always: true) }

    open func startUpdatingLocation() {
        isUpdatingLocation = true
        guard let device else { return receive(.failure(CLError(.locationUnknown))) }
        device.startUpdatingLocation(for: self)
    }

    open func stopUpdatingLocation() {
        isUpdatingLocation = false
        device?.stopUpdatingLocation(for: self)
    }

    /// Headings from the device's compass, each delivered when it turned by at
    /// least `headingFilter`. It runs beside location updates; `trueHeading` is
    /// valid only while this manager's location updates are on, as on iOS.
    /// With no device installed it reports `CLError.headingFailure`.
    open func startUpdatingHeading() {
        isUpdatingHeading = true
        guard let device else { return receive(.failure(CLError(.headingFailure))) }
        device.startUpdatingHeading(for: self)
    }

    /// Stops heading updates; `heading` keeps the last one.
    open func stopUpdatingHeading() {
        isUpdatingHeading = false
        device?.stopUpdatingHeading(for: self)
    }

    /// Hides the compass calibration: nothing to hide in Stroll.
    open func dismissHeadingCalibrationDisplay() {}

    open func requestLocation() {
        guard let device else { return receive(.failure(CLError(.locationUnknown))) }
        device.requestLocation(for: self)
    }

    /// Significant changes, a service of its own: the device's current fix,
    /// then one each time the device has moved about 500 m, whatever
    /// `distanceFilter` and `desiredAccuracy` say (neither is changed). It
    /// runs beside `startUpdatingLocation()`: stopping one leaves the other on.
    /// Starting it again while it runs gives no new first fix, as on iOS.
    open func startMonitoringSignificantLocationChanges() {
        isMonitoringSignificantLocationChanges = true
        guard let device else { return receive(.failure(CLError(.locationUnknown))) }
        device.startMonitoringSignificantLocationChanges(for: self)
    }

    open func stopMonitoringSignificantLocationChanges() {
        isMonitoringSignificantLocationChanges = false
        device?.stopMonitoringSignificantLocationChanges(for: self)
    }

    /// Visits, a service of its own: `locationManager(_:didVisit:)` when the
    /// device has stayed in one place (an arrival) and when it leaves (a
    /// departure), whatever `distanceFilter` and `desiredAccuracy` say. It
    /// runs beside updates and significant changes.
    open func startMonitoringVisits() {
        isMonitoringVisits = true
        guard let device else { return receive(.failure(CLError(.locationUnknown))) }
        device.startMonitoringVisits(for: self)
    }

    /// Stops visit deliveries; updates and significant changes go on.
    open func stopMonitoringVisits() {
        isMonitoringVisits = false
        device?.stopMonitoringVisits(for: self)
    }

    open func startMonitoring(for region: CLRegion) {
        monitoredRegions.remove(region)
        monitoredRegions.insert(region)
        guard let device else { return receive(.monitoringFailed(region, CLError(.regionMonitoringFailure))) }
        device.startMonitoring(for: region, manager: self)
    }

    open func stopMonitoring(for region: CLRegion) {
        monitoredRegions.remove(region)
        device?.stopMonitoring(for: region, manager: self)
    }

    open func requestState(for region: CLRegion) {
        guard let device else { return receive(.determinedState(.unknown, region)) }
        device.requestState(for: region, manager: self)
    }

    /// The device's delivery: keeps `location` and `heading` and calls the delegate.
    public func receive(_ event: CLDeviceEvent) {
        switch event {
        case .locations(let locations):
            location = locations.last ?? location
            delegate?.locationManager(self, didUpdateLocations: locations)
        case .heading(let newHeading):
            heading = newHeading
            delegate?.locationManager(self, didUpdateHeading: newHeading)
        case .headingCalibration:
            _ = delegate?.locationManagerShouldDisplayHeadingCalibration(self)
        case .failure(let error):
            if error.code == .denied {
                isUpdatingLocation = false
                isMonitoringSignificantLocationChanges = false
                isMonitoringVisits = false
            }
            delegate?.locationManager(self, didFailWithError: error)
        case .authorizationChanged(let status):
            delegate?.locationManagerDidChangeAuthorization(self)
            delegate?.locationManager(self, didChangeAuthorization: status)
        case .entered(let region):
            delegate?.locationManager(self, didEnterRegion: region)
        case .exited(let region):
            delegate?.locationManager(self, didExitRegion: region)
        case .determinedState(let state, let region):
            delegate?.locationManager(self, didDetermineState: state, for: region)
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
#endif
