import Foundation

/// Decides when each event is handed over: at once (virtual time) or on the
/// wall clock, scaled by a speed multiplier.
public protocol ReplayClock: Sendable {
    /// What paces one replay on this clock.
    associatedtype Pacer: ReplayPacer
    /// A pacer for one replay whose first event is at `start` (seconds since 1970).
    func makePacer(start: Double) -> Pacer
}

/// Paces one replay: each event waits until it is due on its ``ReplayClock``.
public protocol ReplayPacer {
    /// Returns when the event at `timestamp` is due.
    nonisolated(nonsending) mutating func wait(until timestamp: Double) async throws
    /// Seconds since the replay began: virtual for a virtual clock, real for a real one.
    func elapsed(at timestamp: Double) -> Double
}

/// Instant, deterministic time: every event is due at once. The default for tests and batch runs.
public struct VirtualClock: ReplayClock {
    public init() {}

    /// Hands every event over at once: virtual time does not wait.
    public struct Pacer: ReplayPacer {
        let start: Double
        nonisolated(nonsending) public mutating func wait(until timestamp: Double) async throws {}
        public func elapsed(at timestamp: Double) -> Double { timestamp - start }
    }

    public func makePacer(start: Double) -> Pacer { Pacer(start: start) }
}

/// Pauses and resumes real-time replays while they run. A pause takes effect
/// at the next event a replay is about to hand over; on resume that event is
/// due at once and the rest follow at the replay's speed from there.
public actor ReplayControl {
    private var paused = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var speedOverride: Double?

    public init() {}

    public var isPaused: Bool { paused }

    /// The speed set while running (nil: the clock's own). A change applies
    /// from the next event on: the time between events is divided by the new speed.
    public var speed: Double? { speedOverride }

    /// Sets the speed (a positive multiple of real time); other values are ignored.
    public func setSpeed(_ speed: Double) {
        guard speed > 0, speed.isFinite else { return }
        speedOverride = speed
    }

    /// How many replays are held by the pause right now.
    public var heldReplays: Int { waiters.count }

    public func pause() {
        paused = true
    }

    public func resume() {
        paused = false
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed { waiter.resume() }
    }

    /// Waits while paused; returns whether it waited.
    func waitWhilePaused() async -> Bool {
        guard paused else { return false }
        await withCheckedContinuation { waiters.append($0) }
        return true
    }
}

/// Wall-clock pacing: an event `d` seconds into the trace is due `d / speed`
/// seconds after the replay began, plus any time spent paused.
///
/// The clock it sleeps on is injected: `ContinuousClock` by default, an
/// ``ImmediateClock`` in tests, which then assert exact due times without
/// waiting for them.
public struct RealTimeClock<C: Clock>: ReplayClock where C.Duration == Duration, C: Sendable {
    public let speed: Double
    public let control: ReplayControl?
    public let clock: C

    public init(speed: Double = 1, control: ReplayControl? = nil, clock: C) {
        self.speed = speed > 0 ? speed : 1
        self.control = control
        self.clock = clock
    }

    /// Waits on the clock until each event is due at the replay's speed, honouring its ``ReplayControl``.
    public struct Pacer: ReplayPacer {
        let start: Double
        var speed: Double
        let control: ReplayControl?
        let clock: C
        var origin: C.Instant
        /// The timestamp of the last event handed over.
        var last: Double?

        /// Where on `clock` the event at `timestamp` is due.
        func due(_ timestamp: Double) -> C.Instant {
            origin.advanced(by: .seconds((timestamp - start) / speed))
        }

        nonisolated(nonsending) public mutating func wait(until timestamp: Double) async throws {
            try await holdWhilePaused(at: timestamp)
            if let control, let wanted = await control.speed, wanted != speed {
                // The last event stays where it was; what follows runs at the new speed.
                let anchor = last ?? start
                origin = clock.now.advanced(by: .zero - .seconds((anchor - start) / wanted))
                speed = wanted
            }
            let due = due(timestamp)
            if due > clock.now { try await clock.sleep(until: due, tolerance: nil) }
            try await holdWhilePaused(at: timestamp)
            last = timestamp
        }

        /// After a pause the event at `timestamp` is due now.
        nonisolated(nonsending) private mutating func holdWhilePaused(at timestamp: Double) async throws {
            guard let control, await control.waitWhilePaused() else { return }
            try Task.checkCancellation()
            origin = clock.now.advanced(by: .zero - .seconds((timestamp - start) / speed))
        }

        public func elapsed(at timestamp: Double) -> Double {
            let d = origin.duration(to: clock.now)
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
    }

    public func makePacer(start: Double) -> Pacer {
        Pacer(start: start, speed: speed, control: control, clock: clock, origin: clock.now)
    }
}

extension RealTimeClock where C == ContinuousClock {
    /// Pacing on the wall clock.
    public init(speed: Double = 1, control: ReplayControl? = nil) {
        self.init(speed: speed, control: control, clock: ContinuousClock())
    }
}
