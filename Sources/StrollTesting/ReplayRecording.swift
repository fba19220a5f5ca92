import Foundation
import LocationSimulation
import Proximity
import Replay

/// A finished replay, kept for assertions: every event, the golden timeline
/// of its order changes, and questions a test asks of a sorted list.
public struct ReplayRecording: Sendable {
    public let events: [ReplayEvent]
    public let golden: GoldenTimeline
    /// Place names by id, for messages.
    public let names: [String: String]

    /// Replays `replay` to its end in virtual time.
    public init(_ replay: Replay) {
        var replay = replay
        events = replay.run()
        golden = replay.golden
        names = Dictionary(replay.places.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
    }

    /// Every ranking of `group` (all groups when nil), with its time.
    public func rankings(group: String? = nil) -> [(t: Double, group: String, update: RankingUpdate)] {
        events.compactMap { event in
            guard case .ranking(let update, let g, let t) = event, group == nil || g == group else { return nil }
            return (t, g, update)
        }
    }

    /// The delivered fix at time `t` (seconds since the replay began), if one was delivered then.
    public func fix(at t: Double) -> Location? {
        for event in events {
            if case .location(let l, let time) = event, abs(time - t) < 0.0005 { return l }
        }
        return nil
    }

    /// The nearest place's id at time `t`: the last ranking of `group` at or before `t`.
    public func nearest(at t: Double, group: String) -> String? {
        rankings(group: group).last { $0.t <= t + 0.0005 }?.update.nearest
    }

    /// Every change of the nearest place of `group`: the first ranking, then each time another place became nearest.
    public func nearestChanges(group: String) -> [(t: Double, id: String)] {
        var changes: [(t: Double, id: String)] = []
        for (t, _, update) in rankings(group: group) {
            guard let id = update.nearest, changes.last?.id != id else { continue }
            changes.append((t, id))
        }
        return changes
    }

    /// The first time `place` is listed above `other` in `group`, having been below it (or nil if it never moves above).
    public func firstTime(_ place: String, movesAbove other: String, group: String) -> Double? {
        var wasBelow = false
        for (t, _, update) in rankings(group: group) {
            guard let a = update.order.firstIndex(of: place), let b = update.order.firstIndex(of: other) else { continue }
            if a > b { wasBelow = true } else if wasBelow { return t }
        }
        return nil
    }
}
