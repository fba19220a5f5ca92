#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a replay's time goes, in nanoseconds of the monotonic clock, summed
/// since the counters were last reset: the simulator (its timeline, sensor
/// model and filters, to each fix delivered or held back), the rankings (every
/// group's distances, order and row moves), the map model (the user's
/// location, the region, the visible pins and their snapshot) and the events
/// (assembling each delivered fix's events and the golden timeline).
///
/// Set ``Replay/timings`` to measure; `stroll bench --variant pipeline`
/// reports these parts per delivered fix, with the encoding and the writing
/// of the event lines that it measures itself.
public struct ReplayTimings: Sendable, Equatable {
    /// In the location simulator: timeline, sensor, filters.
    public var simulator: UInt64 = 0
    /// In every group's ranking: distances, order, row moves.
    public var rankings: UInt64 = 0
    /// In the map model.
    public var map: UInt64 = 0
    /// Assembling the events and the golden timeline.
    public var events: UInt64 = 0

    /// Counters at zero.
    public init() {}

    /// The monotonic clock in nanoseconds (`clock_gettime`).
    @inline(__always)
    public static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(truncatingIfNeeded: t.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: t.tv_nsec)
    }

    enum Part { case rankings, map, events }

    /// Adds the time since `start` to `part` and restarts `start`.
    @inline(__always)
    mutating func lap(_ start: inout UInt64, _ part: Part) {
        let now = Self.now()
        switch part {
        case .rankings: rankings &+= now &- start
        case .map: map &+= now &- start
        case .events: events &+= now &- start
        }
        start = now
    }
}
