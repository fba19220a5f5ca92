#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Proximity
import Replay
import Traces

/// The replay pipeline one delivered fix at a time, as `stroll replay
/// --format jsonl` runs it: each ``update()`` writes the lines of one
/// delivered fix (its location, rankings and map lines, and the held-back
/// fixes after it) to /dev/null and runs the replay on to the next delivered
/// fix, whose rankings and map it computes. The ordo-one suite times it and
/// counts its allocations per update; `stroll bench --variant pipeline`
/// times the same work.
///
/// The walk is played in loops (``configuration(groups:)``), so that the
/// replay never ends and no update pays for setting one up again.
public struct PipelineStepper: ~Copyable {
    private var replay: Replay
    private var out = JSONBytes(capacity: 1 << 16)
    private var next: ReplayEvent?
    private let sink: Int32
    /// Bytes written so far.
    public private(set) var bytes = 0

    /// A stepper over `walk` with `places` in `groups`, the map following the walker.
    public init(walk: Trace, places: PlaceSet, groups: [String]) throws(ReplaySetupError) {
        replay = try Replay(trace: walk, places: places, configuration: Self.configuration(groups: groups))
        sink = open("/dev/null", O_WRONLY)
        next = nil
        next = firstLocation()
    }

    deinit {
        if sink >= 0 { close(sink) }
    }

    /// The configuration the pipeline benchmark replays with: the groups,
    /// the map following the walker, the walk in a million loops (each
    /// starts one interpolation step after the last ended), and no golden
    /// timeline kept, as `stroll replay` keeps none unless asked.
    public static func configuration(groups: [String]) -> ReplayConfiguration {
        var configuration = ReplayConfiguration()
        configuration.groups = groups
        configuration.follow = true
        configuration.replay.loops = 1_000_000
        configuration.recordsGolden = false     // as `stroll replay` without --record or --verify
        return configuration
    }

    /// The first location event from the start (nil for a walk that delivers none).
    private mutating func firstLocation() -> ReplayEvent? {
        while let event = replay.next() {
            if case .location = event { return event }
        }
        return nil
    }

    /// One delivered fix's lines encoded and written, and the replay run on
    /// to the next delivered fix; the bytes written (0 when the walk delivers nothing).
    @discardableResult
    public mutating func update() -> Int {
        guard let location = next else { return 0 }
        location.writeJSONLine(to: &out)
        out.byte(10)
        next = nil
        while let event = replay.next() {
            if case .location = event {
                next = event
                break
            }
            event.writeJSONLine(to: &out)
            out.byte(10)
        }
        let written = out.count
        out.withUnsafeBytes { _ = write(sink, $0.baseAddress, $0.count) }
        out.removeAll()
        bytes += written
        return written
    }
}
