#if !canImport(Darwin)
import Foundation
import Synchronization

/// iOS 17's condition monitor: conditions added under identifiers, each with a
/// state (`satisfied`, `unsatisfied`, `unknown`), reported through ``CLMonitor/events``
/// when it changes and kept in a ``CLMonitor/Record``.
///
/// Under Stroll the installed device (`StrollSimulation`'s `SimulatedDevice`)
/// evaluates the conditions of every live monitor as the walk plays, with the
/// same crossing rules and the same fixes as `startMonitoring(for:)`: the
/// device's reported fix (its own estimate, noise included), as iOS evaluates
/// monitoring on its location estimate and not on a truth it cannot know.
/// A monitor lives while the app holds it: conditions are not kept between runs.
public actor CLMonitor {
    /// A condition a monitor can watch; Stroll evaluates ``CLMonitor/CircularGeographicCondition``.
    /// (`BeaconIdentityCondition` is absent: Stroll has no beacons.)
    public protocol Condition: Sendable {}

    /// A circle on the ground: satisfied while the device is within `radius`
    /// metres of `center` (the WGS84 geodesic), as `CLCircularRegion`.
    public struct CircularGeographicCondition: Condition {
        /// The circle's centre.
        public let center: CLLocationCoordinate2D
        /// The circle's radius in metres.
        public let radius: CLLocationDistance

        /// A circle of `radius` metres around `center`.
        public init(center: CLLocationCoordinate2D, radius: CLLocationDistance) {
            self.center = center
            self.radius = radius
        }
    }

    /// A change of one condition's state, or why it cannot be evaluated.
    public struct Event: Sendable {
        /// The state of a monitored condition.
        public enum State: Int, Sendable {
            /// Not yet determined, or cannot be (see the event's flags).
            case unknown = 0
            /// The condition holds: the device is inside the circle.
            case satisfied = 1
            /// The condition does not hold: the device is outside the circle.
            case unsatisfied = 2
            /// The condition is no longer monitored.
            case unmonitored = 3
        }

        /// The identifier the condition was added under.
        public let identifier: String
        /// The most specific condition the event applies to: `nil` for a
        /// circle (iOS refines beacon conditions only).
        public let refinement: (any Condition)?
        /// The condition's state from this event on.
        public let state: State
        /// When the state was determined: the time of the fix that decided it.
        public let date: Date
        /// iOS 18: the condition is past the 20 an app may monitor and is not evaluated.
        public let conditionLimitExceeded: Bool
        /// iOS 18: the condition is of a kind the device cannot evaluate.
        public let conditionUnsupported: Bool
        /// iOS 18: reduced accuracy keeps the condition from being evaluated; never under Stroll (full accuracy).
        public let accuracyLimited: Bool
        /// iOS 18: the app is not authorized for location.
        public let authorizationDenied: Bool
        /// iOS 18: location services are off for the whole device; never under Stroll.
        public let authorizationDeniedGlobally: Bool
        /// iOS 18: location use is restricted (parental controls); never under Stroll.
        public let authorizationRestricted: Bool
        /// iOS 18: the app is not in use for a when-in-use authorization; never under Stroll (the app is always in use).
        public let insufficientlyInUse: Bool
        /// iOS 18: the condition's state cannot be kept; never under Stroll.
        public let persistenceUnavailable: Bool
        /// iOS 18: a `CLServiceSession` is needed; never under Stroll (it has none).
        public let serviceSessionRequired: Bool

        /// An event as the device reports it; every flag false unless given.
        public init(identifier: String, state: State, date: Date, refinement: (any Condition)? = nil,
                    conditionLimitExceeded: Bool = false, conditionUnsupported: Bool = false, authorizationDenied: Bool = false) {
            self.identifier = identifier
            self.refinement = refinement
            self.state = state
            self.date = date
            self.conditionLimitExceeded = conditionLimitExceeded
            self.conditionUnsupported = conditionUnsupported
            accuracyLimited = false
            self.authorizationDenied = authorizationDenied
            authorizationDeniedGlobally = false
            authorizationRestricted = false
            insufficientlyInUse = false
            persistenceUnavailable = false
            serviceSessionRequired = false
        }

        /// Whether `other` tells the app something this one did not: another state or another reason.
        func differs(from other: Event) -> Bool {
            state != other.state || conditionLimitExceeded != other.conditionLimitExceeded
                || conditionUnsupported != other.conditionUnsupported || authorizationDenied != other.authorizationDenied
        }
    }

    /// A condition and the last event about it.
    public struct Record: Sendable {
        /// The condition as it was added.
        public let condition: any Condition
        /// The last event: the assumed state (dated `Date.distantPast`) until the device first decides.
        public let lastEvent: Event
    }

    /// The events of a monitor, as an `AsyncSequence`, from the moment it is made.
    public struct Events: AsyncSequence, Sendable {
        /// A monitor's event.
        public typealias Element = Event
        let stream: AsyncStream<Event>

        /// Hands out the events as the device makes them.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Event>.Iterator

            /// The next event; `nil` once the replayed walk has ended.
            public mutating func next() async -> Event? {
                await base.next()
            }
        }

        /// An iterator over the events.
        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
    }

    /// The monitor's name: requesting it again while this monitor lives gives this monitor.
    public nonisolated let name: String
    private let state: MonitorStorage

    init(name: String, state: MonitorStorage = MonitorStorage()) {
        self.name = name
        self.state = state
    }

    /// A monitor named `name`, as Apple declares it (`init(_ name: String)
    /// async`): while a monitor of that name lives (iOS keeps one per name),
    /// this one shares its conditions, records and events; else it starts
    /// with none. It is evaluated by the device current where it is made
    /// (``CLDevice/current``), from the device's next step.
    public init(_ name: String) async {
        self.name = name
        state = CLDevice.storage(named: name)
        CLDevice.register(self)
    }

    /// The monitor named `name`: the live one of that name if the app still
    /// holds it (iOS allows one instance per name), else a new one with no
    /// conditions. The device starts evaluating it at its next step.
    public static func requestMonitor(named name: String) async -> CLMonitor {
        CLDevice.monitor(named: name)
    }

    /// The identifiers of the monitored conditions, in the order they were added.
    public var identifiers: [String] {
        state.withLock { $0.identifiers }
    }

    /// Monitors `condition` under `identifier`, replacing a condition added
    /// under it before. Its state is `assuming` until the device first
    /// evaluates it, from its next step on; as on iOS, that first evaluation
    /// gives an event only when it finds another state than the one assumed.
    public func add(_ condition: any Condition, identifier: String, assuming: Event.State = .unknown) {
        state.withLock { state in
            if state.records[identifier] == nil { state.identifiers.append(identifier) }
            state.records[identifier] = Record(condition: condition, lastEvent: Event(identifier: identifier, state: assuming, date: .distantPast))
            state.revision += 1
        }
    }

    /// Stops monitoring the condition under `identifier`: no event about it follows.
    public func remove(_ identifier: String) {
        state.withLock { state in
            guard state.records.removeValue(forKey: identifier) != nil else { return }
            state.identifiers.removeAll { $0 == identifier }
            state.revision += 1
        }
    }

    /// The condition under `identifier` and its last event; `nil` when none is monitored under it.
    public func record(for identifier: String) -> Record? {
        state.withLock { $0.records[identifier] }
    }

    /// The monitor's events from now on: each access gives a sequence of its own,
    /// and every sequence gets every event. Under Stroll a sequence ends when the
    /// replayed walk ends (`SimulatedDevice.run()`); on iOS it never ends.
    public var events: Events {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        state.withLock { $0.continuations.append(continuation) }
        return Events(stream: stream)
    }

    // MARK: The device's side

    /// Bumped by every `add` and `remove`: the device evaluates the conditions afresh when it changes.
    public nonisolated var revision: Int {
        state.withLock { $0.revision }
    }

    /// The monitored conditions with their identifiers, in the order they were added.
    public nonisolated var conditions: [(identifier: String, condition: any Condition)] {
        state.withLock { state in state.identifiers.compactMap { id in state.records[id].map { (id, $0.condition) } } }
    }

    /// The device's evaluation of a condition: recorded and sent to every
    /// ``CLMonitor/events`` sequence when its state or reason differs from the record's
    /// last event; ignored for an identifier no longer monitored.
    public nonisolated func receive(_ event: Event) {
        let continuations: [AsyncStream<Event>.Continuation] = state.withLock { state in
            guard let record = state.records[event.identifier], event.differs(from: record.lastEvent) else { return [] }
            state.records[event.identifier] = Record(condition: record.condition, lastEvent: event)
            return state.continuations
        }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Ends the ``CLMonitor/events`` sequences made so far: the replayed walk is over.
    public nonisolated func finishEvents() {
        let continuations = state.withLock { state in
            defer { state.continuations.removeAll() }
            return state.continuations
        }
        for continuation in continuations { continuation.finish() }
    }
}

/// A monitor's conditions, records and event sequences: shared by the
/// monitors of one name that live at once.
final class MonitorStorage: Sendable {
    struct Storage {
        var identifiers: [String] = []
        var records: [String: CLMonitor.Record] = [:]
        var continuations: [AsyncStream<CLMonitor.Event>.Continuation] = []
        var revision = 0
    }

    private let mutex = Mutex(Storage())

    func withLock<R: Sendable>(_ body: (inout Storage) -> R) -> R {
        mutex.withLock { body(&$0) }
    }
}

/// A monitor the registry does not keep alive.
private struct WeakMonitor {
    weak var monitor: CLMonitor?
}

/// A monitor's name, for the device it was made under (nil: none was current).
private struct MonitorKey: Hashable {
    var device: ObjectIdentifier?
    var name: String
}

extension CLDevice {
    private static let monitors = Mutex<[MonitorKey: [WeakMonitor]]>([:])

    /// The monitors the app holds that `device` evaluates, one per name: those
    /// made while it was current, and those made with no device current.
    public static func liveMonitors(for device: any CLLocationDevice) -> [CLMonitor] {
        let id = ObjectIdentifier(device)
        return monitors.withLock { monitors in
            guard !monitors.isEmpty else { return [] }
            for key in monitors.keys {
                monitors[key]?.removeAll { $0.monitor == nil }
                if monitors[key]?.isEmpty == true { monitors[key] = nil }
            }
            return monitors.keys.filter { $0.device == id || $0.device == nil }
                .sorted { ($0.name, $0.device == nil ? 1 : 0) < ($1.name, $1.device == nil ? 1 : 0) }
                .compactMap { monitors[$0]?.first?.monitor }
        }
    }

    private static var monitorKeyDevice: ObjectIdentifier? { current.map { ObjectIdentifier($0) } }

    static func monitor(named name: String) -> CLMonitor {
        let key = MonitorKey(device: monitorKeyDevice, name: name)
        return monitors.withLock { monitors in
            if let live = monitors[key]?.lazy.compactMap(\.monitor).first { return live }
            let monitor = CLMonitor(name: name)
            monitors[key] = [WeakMonitor(monitor: monitor)]
            return monitor
        }
    }

    /// The storage of the live monitor named `name`, else a new one.
    static func storage(named name: String) -> MonitorStorage {
        let key = MonitorKey(device: monitorKeyDevice, name: name)
        return monitors.withLock { monitors in
            monitors[key]?.lazy.compactMap(\.monitor).first?.sharedStorage ?? MonitorStorage()
        }
    }

    /// Keeps `monitor` (made by `init(_:)`) where the device finds it.
    static func register(_ monitor: CLMonitor) {
        let key = MonitorKey(device: monitorKeyDevice, name: monitor.name)
        monitors.withLock { $0[key, default: []].append(WeakMonitor(monitor: monitor)) }
    }
}

extension CLMonitor {
    /// The storage this monitor shares with the others of its name.
    nonisolated var sharedStorage: MonitorStorage { state }
}
#endif
