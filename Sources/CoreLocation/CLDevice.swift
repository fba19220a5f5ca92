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
///
/// What ``current`` means depends on where the code runs, so that tests
/// running in parallel each have their own device:
/// - inside ``withDevice(_:addresses:isolation:operation:)`` (StrollSimulation's
///   `withSimulatedDevice` and its test trait), that scope's device;
/// - else, where a scope resolver answers (StrollSimulation installs one
///   for Swift Testing: the running test), the device assigned to
///   ``current`` in that scope;
/// - else the device assigned to ``current`` for the whole process.
///
/// A `CLLocationManager`, a `CLMonitor` and a `liveUpdates()` sequence take
/// the device current where they are made and keep it.
public enum CLDevice {
    /// The device of the enclosing ``withDevice(_:addresses:isolation:operation:)``.
    @TaskLocal public static var scoped: (any CLLocationDevice)?
    /// The addresses of the enclosing ``withDevice(_:addresses:isolation:operation:)``.
    @TaskLocal static var scopedAddresses: AddressIndex??

    private static let installed = Mutex<[String: any CLLocationDevice]>([:])
    private static let processWide = Mutex<(any CLLocationDevice)?>(nil)
    private static let installedAddresses = Mutex<[String: AddressIndex?]>([:])
    private static let processAddresses = Mutex<AddressIndex?>(nil)
    private static let resolver = Mutex<(@Sendable () -> [String])?>(nil)
    private static let liveUpdateRequests = Mutex<[ObjectIdentifier?: [AsyncStream<CLLocationUpdate>.Continuation]]>([:])

    /// The scopes (named by strings) that assigning ``current`` is kept for, most particular
    /// first (StrollSimulation's: the running Swift Testing test's task, then
    /// the test); none outside them, where ``current`` is the process's.
    public static func setScopeResolver(_ resolve: @escaping @Sendable () -> [String]) {
        resolver.withLock { $0 = resolve }
    }

    private static var scopeKeys: [String] { resolver.withLock { $0 }?() ?? [] }

    /// The device of the code running now (see ``CLDevice``). Setting it
    /// installs a device for the current scope (a test) or, outside any, for
    /// the process. Read and set from any thread.
    public static var current: (any CLLocationDevice)? {
        get {
            if let scoped { return scoped }
            let keys = scopeKeys
            if !keys.isEmpty, let found = installed.withLock({ installed in Self.first(of: keys, in: installed) }) { return found }
            return processWide.withLock { $0 }
        }
        set {
            let keys = scopeKeys
            guard !keys.isEmpty else { return processWide.withLock { $0 = newValue } }
            installed.withLock { installed in for key in keys { installed[key] = newValue } }
        }
    }

    /// Runs `operation` with `device` (and `addresses`, for `CLGeocoder`) as
    /// the current ones, in this task and the tasks it starts.
    public static func withDevice<R>(_ device: any CLLocationDevice, addresses: AddressIndex?,
                                     isolation: isolated (any Actor)? = #isolation,
                                     operation: () async throws -> R) async rethrows -> R {
        try await $scoped.withValue(device) {
            try await $scopedAddresses.withValue(.some(addresses)) { try await operation() }
        }
    }

    /// The addresses a `CLGeocoder` made with `init()` answers from: the
    /// current device's, scoped as ``current`` is (StrollSimulation's
    /// `SimulatedDevice` sets its own as it is installed); `nil` for a phone
    /// offline, whose geocodes fail with `CLError.network`. Read and set from
    /// any thread, so that a request takes the addresses of the moment it is made.
    public static var addresses: AddressIndex? {
        get {
            if let scopedAddresses { return scopedAddresses }
            let keys = scopeKeys
            if !keys.isEmpty, let found = installedAddresses.withLock({ installed in Self.first(of: keys, in: installed) }) { return found }
            return processAddresses.withLock { $0 }
        }
        set {
            let keys = scopeKeys
            guard !keys.isEmpty else { return processAddresses.withLock { $0 = newValue } }
            installedAddresses.withLock { installed in for key in keys { installed[key] = .some(newValue) } }
        }
    }

    /// The value kept under the first of `keys` that has one.
    private static func first<Value: Sendable>(of keys: [String], in values: [String: Value]) -> Value? {
        for key in keys {
            if let value = values[key] { return value }
        }
        return nil
    }

    /// `CLLocationUpdate.liveUpdates()` sequences made for `device` (or with
    /// no device current) since it last asked; the device feeds each from
    /// the moment it takes it, before any later fix.
    public static func takeLiveUpdateRequests(for device: any CLLocationDevice) -> [AsyncStream<CLLocationUpdate>.Continuation] {
        liveUpdateRequests.withLock { requests in
            let mine = requests.removeValue(forKey: ObjectIdentifier(device)) ?? []
            let unbound = requests.removeValue(forKey: nil) ?? []
            return unbound + mine
        }
    }

    static func requestLiveUpdates(_ continuation: AsyncStream<CLLocationUpdate>.Continuation) {
        let key = current.map { ObjectIdentifier($0) }
        liveUpdateRequests.withLock { $0[key, default: []].append(continuation) }
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
