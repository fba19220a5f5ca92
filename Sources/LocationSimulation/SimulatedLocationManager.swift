import Foundation
import Traces

/// CoreLocation-style callbacks. Every method has a default that does nothing.
public protocol LocationManagerDelegate: AnyObject {
    func locationManager(_ manager: SimulatedLocationManager, didUpdateLocations locations: [Location])
    func locationManager(_ manager: SimulatedLocationManager, didFailWithError error: LocationError)
    func locationManager(_ manager: SimulatedLocationManager, didFilter location: Location, reason: FilterReason, distance: Double)
    func locationManager(_ manager: SimulatedLocationManager, didDetermineState inside: Bool, forRegion identifier: String)
    func locationManager(_ manager: SimulatedLocationManager, didEnterRegion identifier: String)
    func locationManager(_ manager: SimulatedLocationManager, didExitRegion identifier: String)
    func locationManagerDidPauseLocationUpdates(_ manager: SimulatedLocationManager)
    func locationManagerDidResumeLocationUpdates(_ manager: SimulatedLocationManager)
}

extension LocationManagerDelegate {
    public func locationManager(_ manager: SimulatedLocationManager, didUpdateLocations locations: [Location]) {}
    public func locationManager(_ manager: SimulatedLocationManager, didFailWithError error: LocationError) {}
    public func locationManager(_ manager: SimulatedLocationManager, didFilter location: Location, reason: FilterReason, distance: Double) {}
    public func locationManager(_ manager: SimulatedLocationManager, didDetermineState inside: Bool, forRegion identifier: String) {}
    public func locationManager(_ manager: SimulatedLocationManager, didEnterRegion identifier: String) {}
    public func locationManager(_ manager: SimulatedLocationManager, didExitRegion identifier: String) {}
    public func locationManagerDidPauseLocationUpdates(_ manager: SimulatedLocationManager) {}
    public func locationManagerDidResumeLocationUpdates(_ manager: SimulatedLocationManager) {}
}

/// A location manager an app's logic can talk to as it talks to
/// `CLLocationManager`, fed by a trace instead of a GPS.
///
/// In virtual time (the default) `startUpdatingLocation()` delivers the whole
/// replay to the delegate at once, deterministically; `stopUpdatingLocation()`
/// from inside a callback stops it there. `run(clock:)` paces the same
/// callbacks on a real clock. `events()` gives the events as values instead.
public final class SimulatedLocationManager {
    public weak var delegate: (any LocationManagerDelegate)?
    public var settings: LocationSettings
    public var replay: ReplayOptions
    public var sensor: SensorOptions
    public private(set) var monitoredRegions: [MonitoredRegion] = []
    public let trace: Trace
    public private(set) var isUpdating = false
    /// The last delivered location (`CLLocationManager.location`).
    public private(set) var location: Location?
    public private(set) var counts = ReplayCounts()

    public var desiredAccuracy: Double {
        get { settings.desiredAccuracy }
        set { settings.desiredAccuracy = newValue }
    }

    public var distanceFilter: Double {
        get { settings.distanceFilter }
        set { settings.distanceFilter = newValue }
    }

    public var pausesLocationUpdatesAutomatically: Bool {
        get { settings.pausesLocationUpdatesAutomatically }
        set { settings.pausesLocationUpdatesAutomatically = newValue }
    }

    public var authorizationStatus: AuthorizationStatus {
        get { settings.authorization }
        set { settings.authorization = newValue }
    }

    public init(trace: Trace, settings: LocationSettings = LocationSettings(), replay: ReplayOptions = ReplayOptions(),
                sensor: SensorOptions = SensorOptions()) {
        self.trace = trace
        self.settings = settings
        self.replay = replay
        self.sensor = sensor
    }

    /// Starts monitoring a region; the limit is `settings.maximumRegions` (20, as CoreLocation).
    public func startMonitoring(for region: MonitoredRegion) throws(RegionError) {
        guard monitoredRegions.count < settings.maximumRegions else { throw .tooMany(limit: settings.maximumRegions) }
        monitoredRegions.removeAll { $0.identifier == region.identifier }
        monitoredRegions.append(region)
    }

    public func stopMonitoring(for identifier: String) {
        monitoredRegions.removeAll { $0.identifier == identifier }
    }

    /// A fresh engine for the current settings.
    public func makeSimulator() throws(RegionError) -> LocationSimulator {
        try LocationSimulator(trace: trace, settings: settings, replay: replay, sensor: sensor, regions: monitoredRegions)
    }

    /// Delivers the replay to the delegate in virtual time.
    public func startUpdatingLocation() {
        var simulator: LocationSimulator
        do {
            simulator = try makeSimulator()
        } catch {
            delegate?.locationManager(self, didFailWithError: LocationError(code: .badInput, message: error.description))
            return
        }
        isUpdating = true
        while isUpdating, let event = simulator.next() {
            deliver(event)
        }
        counts = simulator.counts
        isUpdating = false
    }

    /// Paces the replay's callbacks on `clock` (for example a real clock at 60x).
    public func run(clock: some ReplayClock) async throws {
        var simulator = try makeSimulator()
        isUpdating = true
        var pacer = clock.makePacer(start: simulator.startTime)
        while isUpdating, let event = simulator.next() {
            try await pacer.wait(until: event.timestamp)
            deliver(event)
        }
        counts = simulator.counts
        isUpdating = false
    }

    public func stopUpdatingLocation() {
        isUpdating = false
    }

    /// One location, as `requestLocation()`: the first fix at least as accurate
    /// as desired, or the best within ten seconds of the first, ignoring the
    /// distance filter; then updates stop.
    public func requestLocation() {
        var oneShot = settings
        oneShot.distanceFilter = distanceFilterNone
        var simulator: LocationSimulator
        do {
            simulator = try LocationSimulator(trace: trace, settings: oneShot, replay: replay, sensor: sensor)
        } catch {
            return
        }
        var best: Location?
        var firstTime: Double?
        while let event = simulator.next() {
            switch event {
            case .location(let l):
                firstTime = firstTime ?? l.timestamp
                if best == nil || l.horizontalAccuracy < (best?.horizontalAccuracy ?? .infinity) { best = l }
                let goodEnough = settings.desiredAccuracy <= 0 ? l.horizontalAccuracy <= defaultHorizontalAccuracy(desiredAccuracy: settings.desiredAccuracy)
                    : l.horizontalAccuracy <= settings.desiredAccuracy
                if goodEnough || l.timestamp - (firstTime ?? l.timestamp) >= 10 {
                    if let best { deliver(.location(best)) }
                    return
                }
            case .error(let e, _) where e.code == .denied || e.code == .badInput:
                delegate?.locationManager(self, didFailWithError: e)
                return
            default:
                continue
            }
        }
        if let best {
            deliver(.location(best))
        } else {
            delegate?.locationManager(self, didFailWithError: LocationError(code: .locationUnknown, message: "no fix could be had"))
        }
    }

    private func deliver(_ event: LocationEvent) {
        switch event {
        case .location(let l):
            location = l
            delegate?.locationManager(self, didUpdateLocations: [l])
        case .filtered(let l, let reason, let distance):
            delegate?.locationManager(self, didFilter: l, reason: reason, distance: distance)
        case .regionState(let id, let inside, _):
            delegate?.locationManager(self, didDetermineState: inside, forRegion: id)
        case .regionEntered(let id, _):
            delegate?.locationManager(self, didEnterRegion: id)
        case .regionExited(let id, _):
            delegate?.locationManager(self, didExitRegion: id)
        case .paused:
            delegate?.locationManagerDidPauseLocationUpdates(self)
        case .resumed:
            delegate?.locationManagerDidResumeLocationUpdates(self)
        case .error(let e, _):
            delegate?.locationManager(self, didFailWithError: e)
            if e.code == .denied { isUpdating = false }
        }
    }
}

/// The same events as an `AsyncSequence`, paced by a clock. The engine is
/// made inside the iterator, where it runs, so nothing unsafe crosses tasks.
public struct LocationEvents<Clock: ReplayClock>: AsyncSequence {
    public typealias Element = LocationEvent
    public let trace: Trace
    public let settings: LocationSettings
    public let replay: ReplayOptions
    public let sensor: SensorOptions
    public let regions: [MonitoredRegion]
    public let clock: Clock

    public init(trace: Trace, settings: LocationSettings = LocationSettings(), replay: ReplayOptions = ReplayOptions(),
                sensor: SensorOptions = SensorOptions(), regions: [MonitoredRegion] = [], clock: Clock) {
        self.trace = trace
        self.settings = settings
        self.replay = replay
        self.sensor = sensor
        self.regions = regions
        self.clock = clock
    }

    /// Runs the simulator and waits on the clock for each event.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var simulator: LocationSimulator?
        var pacer: Clock.Pacer?
        var failure: RegionError?

        public mutating func next() async throws -> LocationEvent? {
            if let failure {
                self.failure = nil
                simulator = nil
                throw failure
            }
            guard let event = simulator?.next() else { return nil }
            try await pacer?.wait(until: event.timestamp)
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        do {
            let simulator = try LocationSimulator(trace: trace, settings: settings, replay: replay, sensor: sensor, regions: regions)
            return AsyncIterator(simulator: simulator, pacer: clock.makePacer(start: simulator.startTime))
        } catch {
            return AsyncIterator(simulator: nil, pacer: nil, failure: error)
        }
    }
}
