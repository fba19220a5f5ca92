import Foundation

/// Decides when each event is handed over: at once (virtual time) or on the
/// wall clock, scaled by a speed multiplier.
public protocol ReplayClock: Sendable {
    associatedtype Pacer: ReplayPacer
    /// A pacer for one replay whose first event is at `start` (seconds since 1970).
    func makePacer(start: Double) -> Pacer
}

public protocol ReplayPacer {
    /// Returns when the event at `timestamp` is due.
    mutating func wait(until timestamp: Double) async throws
    /// Seconds since the replay began: virtual for a virtual clock, real for a real one.
    func elapsed(at timestamp: Double) -> Double
}

/// Instant, deterministic time: every event is due at once. The default for tests and batch runs.
public struct VirtualClock: ReplayClock {
    public init() {}

    public struct Pacer: ReplayPacer {
        let start: Double
        public mutating func wait(until timestamp: Double) async throws {}
        public func elapsed(at timestamp: Double) -> Double { timestamp - start }
    }

    public func makePacer(start: Double) -> Pacer { Pacer(start: start) }
}

/// Pauses and resumes a real-time replay while it runs.
public actor ReplayControl {
    private var pausedAt: ContinuousClock.Instant?
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public var isPaused: Bool { pausedAt != nil }

    public func pause() {
        if pausedAt == nil { pausedAt = .now }
    }

    public func resume() {
        pausedAt = nil
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed { waiter.resume() }
    }

    /// Waits while paused; returns how long the pause lasted.
    func waitWhilePaused() async -> Duration {
        guard let since = pausedAt else { return .zero }
        await withCheckedContinuation { waiters.append($0) }
        return ContinuousClock.now - since
    }
}

/// Wall-clock pacing: an event `d` seconds into the trace is due `d / speed`
/// seconds after the replay began, plus any time spent paused.
public struct RealTimeClock: ReplayClock {
    public let speed: Double
    public let control: ReplayControl?

    public init(speed: Double = 1, control: ReplayControl? = nil) {
        self.speed = speed > 0 ? speed : 1
        self.control = control
    }

    public struct Pacer: ReplayPacer {
        let start: Double
        let speed: Double
        let control: ReplayControl?
        var origin: ContinuousClock.Instant

        public mutating func wait(until timestamp: Double) async throws {
            if let control { origin += await control.waitWhilePaused() }
            let due = origin + .seconds((timestamp - start) / speed)
            if due > .now { try await Task.sleep(until: due, clock: .continuous) }
            if let control { origin += await control.waitWhilePaused() }
        }

        public func elapsed(at timestamp: Double) -> Double {
            let d = ContinuousClock.now - origin
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
    }

    public func makePacer(start: Double) -> Pacer {
        Pacer(start: start, speed: speed, control: control, origin: .now)
    }
}
