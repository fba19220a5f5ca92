import Synchronization

/// A clock for tests of real-time pacing: `sleep(until:)` returns at once and
/// moves `now` to the deadline, so a paced replay runs instantly while every
/// due time it asked for is exact and can be asserted. `advance(by:)` stands
/// for time passing outside the replay (a pause held for a while).
public final class ImmediateClock: Clock, Sendable {
    /// A moment of the clock: the time since it was made.
    public struct Instant: InstantProtocol {
        /// Time since the clock was made.
        public let offset: Duration

        public init(offset: Duration = .zero) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant()
        var sleeps: [Instant] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// Every deadline a sleep asked for, in order.
    public var sleeps: [Instant] { state.withLock { $0.sleeps } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock {
            $0.sleeps.append(deadline)
            if $0.now < deadline { $0.now = deadline }
        }
    }

    public func advance(by duration: Duration) {
        state.withLock { $0.now = $0.now.advanced(by: duration) }
    }
}
