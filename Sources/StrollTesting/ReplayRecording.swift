import Foundation
import LocationSimulation
import Places
import Proximity
import Replay

/// A place as a recording's answers carry it: its id, its name and its group.
public struct RecordedPlace: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The place's id (the ids the bundled files give are in docs/Places.md).
    public let id: String
    /// The place's name, as the list shows it.
    public let name: String
    /// The group the place was ranked in.
    public let group: String

    /// `Name (id, group)`.
    public var description: String { "\(name) (\(id), \(group))" }
}

/// A question a recording cannot answer as asked: a group or a place it does
/// not have. The message names the ones it has, so a mistyped name
/// (`"Liverpool"` for `"liverpool"`) never reads as an empty answer.
public struct RecordingQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was asked and what the recording has.
    public let description: String

    /// An error saying `description`.
    public init(description: String) { self.description = description }
}

/// A finished replay, kept for assertions: every event, the golden timeline
/// of its order changes, and questions a test asks of a sorted list. Every
/// question checks its group and place ids against the replay's and answers
/// with ``RecordedPlace``s.
public struct ReplayRecording: Sendable {
    /// Every event of the replay, in order.
    public let events: [ReplayEvent]
    /// The replay's order changes, as a golden timeline keeps them.
    public let golden: GoldenTimeline
    /// Place names by id, for messages.
    public let names: [String: String]
    /// The ranked groups, in the replay's order.
    public let groups: [String]
    /// The ranked places by id.
    public let places: [String: RecordedPlace]
    /// The replay's summary: its counts, `rankingChanges` among them.
    public let summary: ReplaySummary?

    /// Replays a copy of `replay` to its end in virtual time; `replay` itself
    /// is left as it was made (``init(replaying:)`` runs it instead).
    public init(_ replay: Replay) {
        var copy = replay
        self.init(replaying: &copy)
    }

    /// Replays `replay` itself to its end in virtual time: afterwards it is as
    /// running it would leave it (its `rankingChanges`, its `golden`).
    public init(replaying replay: inout Replay) {
        events = replay.run()
        golden = replay.golden
        names = Dictionary(replay.places.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        groups = replay.groups
        places = Dictionary(replay.places.map { ($0.id, RecordedPlace(id: $0.id, name: $0.name, group: $0.group)) }, uniquingKeysWith: { a, _ in a })
        summary = events.lazy.compactMap { event -> ReplaySummary? in
            if case .summary(let s) = event { return s }
            return nil
        }.last
    }

    /// The place with this id; an unknown id is an error listing some known ones.
    public func place(_ id: String) throws(RecordingQueryError) -> RecordedPlace {
        guard let place = places[id] else {
            let known = places.keys.sorted()
            let shown = known.prefix(12).joined(separator: ", ") + (known.count > 12 ? ", … (\(known.count) in all)" : "")
            throw RecordingQueryError(description: "no place with id \"\(id)\" in this replay; its ids are: \(shown)")
        }
        return place
    }

    /// The place with this name (exactly, within `group` when given); no
    /// place or several are errors naming the candidates.
    public func place(named name: String, group: String? = nil) throws(RecordingQueryError) -> RecordedPlace {
        if let group { try check(group) }
        let found = places.values.filter { $0.name == name && (group == nil || $0.group == group) }.sorted { $0.id < $1.id }
        guard found.count == 1, let place = found.first else {
            if found.isEmpty {
                let near = places.values.filter { $0.name.lowercased().contains(name.lowercased()) }.map(\.description).sorted()
                throw RecordingQueryError(description: "no place named \"\(name)\"\(group.map { " in group \($0)" } ?? "")"
                                          + (near.isEmpty ? "" : "; places with it in their names: \(near.joined(separator: "; "))"))
            }
            throw RecordingQueryError(description: "\(found.count) places are named \"\(name)\": \(found.map(\.description).joined(separator: "; ")); ask by id")
        }
        return place
    }

    /// Every ranking of `group` (all groups when nil), with its time. An
    /// unknown group is an error naming the replay's groups.
    public func rankings(group: String? = nil) throws(RecordingQueryError) -> [(t: Double, group: String, update: RankingUpdate)] {
        if let group { try check(group) }
        return events.compactMap { event in
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

    /// The nearest place at time `t`: the last ranking of `group` at or before `t` (nil before the first).
    public func nearest(at t: Double, group: String) throws(RecordingQueryError) -> RecordedPlace? {
        guard let id = try rankings(group: group).last(where: { $0.t <= t + 0.0005 })?.update.nearest else { return nil }
        return places[id]
    }

    /// Every change of the nearest place of `group`: the first ranking, then each time another place became nearest.
    public func nearestChanges(group: String) throws(RecordingQueryError) -> [(t: Double, place: RecordedPlace)] {
        var changes: [(t: Double, place: RecordedPlace)] = []
        for (t, _, update) in try rankings(group: group) {
            guard let id = update.nearest, changes.last?.place.id != id, let place = places[id] else { continue }
            changes.append((t, place))
        }
        return changes
    }

    /// The first time `place` is listed above `other` in `group`, having been
    /// below it (nil if it never moves above). Both are ids of the group's places.
    public func firstTime(_ place: String, movesAbove other: String, group: String) throws(RecordingQueryError) -> Double? {
        for id in [place, other] where try self.place(id).group != group {
            throw RecordingQueryError(description: "\(try self.place(id)) is not in group \(group)")
        }
        var wasBelow = false
        for (t, _, update) in try rankings(group: group) {
            guard let a = update.order.firstIndex(of: place), let b = update.order.firstIndex(of: other) else { continue }
            if a > b { wasBelow = true } else if wasBelow { return t }
        }
        return nil
    }

    private func check(_ group: String) throws(RecordingQueryError) {
        guard groups.contains(group) else {
            throw RecordingQueryError(description: "no group \"\(group)\" in this replay; its groups are: \(groups.joined(separator: ", "))")
        }
    }
}
