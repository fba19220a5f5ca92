#if !canImport(Darwin)
import Foundation
import Streets
import Synchronization

/// The device behind every `CLLocationManager`: what a phone's location
/// stack does. StrollSimulation's `SimulatedDevice` is one; with none installed a
/// manager reports `CLError.locationUnknown`. Everything here runs on the main
/// actor, where the callbacks arrive.
@MainActor
public protocol CLLocationDevice: AnyObject, Sendable {
    var authorizationStatus: CLAuthorizationStatus { get }
    /// The app asked for permission; `always` for `requestAlwaysAuthorization()`.
    func requestAuthorization(always: Bool)
    /// A manager's delegate was set: iOS answers with the authorization callback.
    func delegateDidChange(for manager: CLLocationManager)
    func startUpdatingLocation(for manager: CLLocationManager)
    func stopUpdatingLocation(for manager: CLLocationManager)
    func requestLocation(for manager: CLLocationManager)
    /// Significant-change monitoring, a service of its own beside standard
    /// updates: starting or stopping one leaves the other as it is.
    func startMonitoringSignificantLocationChanges(for manager: CLLocationManager)
    func stopMonitoringSignificantLocationChanges(for manager: CLLocationManager)
    /// Visit monitoring, a service of its own beside updates and significant changes.
    func startMonitoringVisits(for manager: CLLocationManager)
    /// Stops a manager's visit monitoring; its other services go on.
    func stopMonitoringVisits(for manager: CLLocationManager)
    func startMonitoring(for region: CLRegion, manager: CLLocationManager)
    func stopMonitoring(for region: CLRegion, manager: CLLocationManager)
    func requestState(for region: CLRegion, manager: CLLocationManager)
    /// Heading updates, a service of their own beside location updates.
    func startUpdatingHeading(for manager: CLLocationManager)
    func stopUpdatingHeading(for manager: CLLocationManager)
}

extension CLLocationDevice {
    /// A device without a compass: heading updates fail with `CLError.headingFailure`.
    public func startUpdatingHeading(for manager: CLLocationManager) {
        manager.receive(.failure(CLError(.headingFailure)))
    }

    /// A device without a compass has nothing to stop.
    public func stopUpdatingHeading(for manager: CLLocationManager) {}
}

extension CLLocationDevice {
    /// A device without visits: monitoring them delivers none.
    public func startMonitoringVisits(for manager: CLLocationManager) {}
    /// A device without visits: nothing to stop.
    public func stopMonitoringVisits(for manager: CLLocationManager) {}
}

/// Where managers find the device.
public enum CLDevice {
    @MainActor public static var current: (any CLLocationDevice)?

    private static let liveUpdateRequests = Mutex<[AsyncStream<CLLocationUpdate>.Continuation]>([])
    private static let installedAddresses = Mutex<AddressIndex?>(nil)

    /// The addresses a `CLGeocoder` made with `init()` answers from: the
    /// installed device's (StrollSimulation's `SimulatedDevice` sets its own
    /// as it is installed); `nil` for a phone offline, whose geocodes fail
    /// with `CLError.network`. Read and set from any thread, so that a request
    /// takes the addresses of the moment it is made.
    public static var addresses: AddressIndex? {
        get { installedAddresses.withLock { $0 } }
        set { installedAddresses.withLock { $0 = newValue } }
    }

    /// `CLLocationUpdate.liveUpdates()` sequences made since the device last
    /// asked; the device feeds each from the moment it takes it, before any
    /// later fix.
    public static func takeLiveUpdateRequests() -> [AsyncStream<CLLocationUpdate>.Continuation] {
        liveUpdateRequests.withLock { requests in
            defer { requests.removeAll() }
            return requests
        }
    }

    static func requestLiveUpdates(_ continuation: AsyncStream<CLLocationUpdate>.Continuation) {
        liveUpdateRequests.withLock { $0.append(continuation) }
    }
}

/// What the device tells one manager; `CLLocationManager.receive(_:)` turns it
/// into the delegate callback.
public enum CLDeviceEvent {
    case locations([CLLocation])
    /// A compass reading: kept as the manager's `heading`, then `locationManager(_:didUpdateHeading:)`.
    case heading(CLHeading)
    /// The device asks whether to show the compass calibration:
    /// `locationManagerShouldDisplayHeadingCalibration(_:)`.
    case headingCalibration
    case failure(CLError)
    case authorizationChanged(CLAuthorizationStatus)
    case entered(CLRegion)
    case exited(CLRegion)
    case determinedState(CLRegionState, CLRegion)
    case monitoringFailed(CLRegion?, CLError)
    case didStartMonitoring(CLRegion)
    case paused
    case resumed
    /// A visit's arrival or departure (`locationManager(_:didVisit:)`).
    case visit(CLVisit)
}
#endif
