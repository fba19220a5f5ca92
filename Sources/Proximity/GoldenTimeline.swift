import Foundation

/// A replay's order changes, kept in a JSON file so a later replay can be
/// checked against them (a golden file).
public struct GoldenTimeline: Codable, Equatable, Sendable {
    /// One order change: when, in which group, the order and the nearest place.
    public struct Entry: Codable, Equatable, Sendable {
        /// Seconds since the replay began.
        public var t: Double
        public var group: String
        public var order: [String]
        public var nearest: String?
        /// The places' names, in `order`'s order: for people reading the
        /// file and its diffs; absent from timelines written without them.
        /// Comparisons go by ids (``sameChange(as:)``).
        public var names: [String]?

        public init(t: Double, group: String, order: [String], nearest: String?, names: [String]? = nil) {
            self.t = t
            self.group = group
            self.order = order
            self.nearest = nearest
            self.names = names
        }

        /// The same order change: time (to the millisecond kept), group and
        /// order of ids; names aside.
        public func sameChange(as other: Entry) -> Bool {
            group == other.group && abs(t - other.t) < 0.0005 && order == other.order && nearest == other.nearest
        }
    }

    /// What was replayed, for people reading the file.
    public var about: String
    public var entries: [Entry]

    public init(about: String, entries: [Entry] = []) {
        self.about = about
        self.entries = entries
    }

    /// Adds an update if it changed the order.
    public mutating func record(_ update: RankingUpdate, group: String, t: Double) {
        guard update.changed else { return }
        entries.append(Entry(t: (t * 1000).rounded() / 1000, group: group, order: update.order, nearest: update.nearest))
    }

    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    public static func read(_ path: String) throws -> GoldenTimeline {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return try decode(data)
    }

    public static func decode(_ data: Data) throws -> GoldenTimeline {
        try JSONDecoder().decode(GoldenTimeline.self, from: data)
    }

    /// The first place where `actual` departs from this timeline, described for a person; nil when they agree.
    public func firstDivergence(from actual: GoldenTimeline, names: [String: String] = [:]) -> String? {
        func label(_ id: String) -> String { names[id].map { "\($0) (\(id))" } ?? id }
        for (k, pair) in zip(entries, actual.entries).enumerated() {
            let (want, got) = pair
            if want.group != got.group || abs(want.t - got.t) > 0.0005 {
                return "change \(k + 1): expected group \(want.group) at t=\(want.t) s, got group \(got.group) at t=\(got.t) s"
            }
            if want.order != got.order {
                let row = zip(want.order, got.order).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(want.order.count, got.order.count)
                let w = row < want.order.count ? label(want.order[row]) : "nothing"
                let g = row < got.order.count ? label(got.order[row]) : "nothing"
                return "change \(k + 1) at t=\(want.t) s, group \(want.group): row \(row + 1) should be \(w), got \(g)"
            }
        }
        if entries.count != actual.entries.count {
            let k = min(entries.count, actual.entries.count)
            if k < entries.count {
                let e = entries[k]
                return "change \(k + 1) missing: expected group \(e.group) at t=\(e.t) s (nearest \(e.nearest.map(label) ?? "none")); the replay had only \(actual.entries.count) changes"
            }
            let e = actual.entries[k]
            return "unexpected change \(k + 1): group \(e.group) at t=\(e.t) s (nearest \(e.nearest.map(label) ?? "none")); the golden file has \(entries.count)"
        }
        return nil
    }
}
