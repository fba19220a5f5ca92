import Foundation
import Geodesy
import LocationSimulation
import Proximity
import Traces

/// Replay events as text for people, as `stroll replay` without `--format
/// jsonl` prints them: the ranked list with its moved rows marked, the lines
/// of regions and pauses, and the summary. Feed it every event in order with
/// ``render(_:)`` and write what it returns; it keeps what the text needs
/// (each group's previous order, the last fix, and with ``redraw`` the screen).
public struct ReplayText: Sendable {
    /// Text to write: to standard output, and to standard error (errors).
    public struct Output: Sendable, Equatable {
        /// Text for standard output, if any.
        public var standardOutput: String?
        /// Text for standard error (an error event), if any.
        public var standardError: String?
    }

    /// The ranked groups: a redrawn screen is drawn after the last one's ranking.
    public let groups: [String]
    /// Whether `t` is the wall clock's (a real-time replay): the walk's time of the last fix is shown instead.
    public let realtime: Bool
    /// Whether the screen is redrawn in place (a terminal during a real-time replay)
    /// with a progress line, instead of printing each changed list.
    public let redraw: Bool
    /// The walk's start (seconds since 1970) and length, for the progress line.
    public var startTime = 0.0
    /// The walk's length in seconds.
    public var duration = 0.0
    private var delivered = 0
    private var previousOrder: [String: [String]] = [:]
    private var screen: [String: [String]] = [:]
    private var lastLocation: Location?
    /// The last visit line, kept on a redrawn screen above the progress line.
    private var visitLine: String?

    /// Text for a replay of `groups`; `realtime` when `t` is the wall clock's,
    /// `redraw` to redraw a terminal's screen in place.
    public init(groups: [String], realtime: Bool, redraw: Bool) {
        self.groups = groups
        self.realtime = realtime
        self.redraw = redraw
    }

    /// The first lines: what is replayed against how many places, and the replay's notes.
    public func begin(trace: String, places: Int, notes: [String]) -> String {
        (["Replaying \(trace) against \(places) \(places == 1 ? "place" : "places")\(groups.isEmpty ? "" : " (\(groups.joined(separator: ", ")))")"] + notes.map { "  note: \($0)" }).joined(separator: "\n")
    }

    /// The text of one event, if it shows any.
    public mutating func render(_ event: ReplayEvent) -> Output {
        switch event {
        case .location(let l, _):
            lastLocation = l
            delivered += 1
            return Output(standardOutput: groups.isEmpty ? screenText() : nil)
        case .ranking(let u, let group, let t):
            let rows = Self.ranking(u, group: group, clock: ElapsedTime.clock(shown(t)), position: lastLocation?.coordinate, previous: previousOrder[group])
            previousOrder[group] = u.order
            if redraw {
                screen[group] = rows
                return Output(standardOutput: group == groups.last ? screenText() : nil)
            }
            return Output(standardOutput: u.changed ? rows.joined(separator: "\n") : nil)
        case .filtered, .map:
            return Output()
        case .region, .pause, .resume:
            return Output(standardOutput: redraw ? nil : Self.line(event, clock: ElapsedTime.clock(shown(event.t ?? 0))))
        case .visit(_, let t):
            let line = Self.line(event, clock: ElapsedTime.clock(shown(t)))
            guard redraw else { return Output(standardOutput: line) }
            visitLine = line
            return Output(standardOutput: screenText())
        case .error(_, let t):
            return Output(standardError: Self.line(event, clock: ElapsedTime.clock(shown(t))))
        case .summary(let s):
            return Output(standardOutput: Self.summary(s).joined(separator: "\n"))
        }
    }

    /// The time shown for an event: the walk's own (since its first fix). In
    /// virtual time that is the event's `t`; in real time `t` is the wall
    /// clock's, so the walk's time of the last delivered fix is shown instead.
    private func shown(_ t: Double) -> Double {
        guard realtime, let l = lastLocation else { return t }
        return l.timestamp - startTime
    }

    /// With ``redraw``: the screen cleared and drawn again, with a progress line
    /// (the walk's time of the last fix, of its length, and the fixes delivered).
    private func screenText() -> String? {
        guard redraw, let l = lastLocation else { return nil }
        var text = "\u{1B}[H\u{1B}[2J"
        // The groups in the replay's order, as the lists are printed without redrawing (and as the HTML page lists them).
        for group in groups + screen.keys.filter({ !groups.contains($0) }).sorted() {
            guard let rows = screen[group] else { continue }
            text += rows.joined(separator: "\n") + "\n"
        }
        if let visitLine { text += "\n" + visitLine + "\n" }
        text += "\n\(ElapsedTime.clock(l.timestamp - startTime)) of \(ElapsedTime.clock(duration))  \(delivered) fixes delivered"
        return text
    }

    /// The rows of a ranked list shown at most.
    public static let shownRows = 12

    /// The ranked list after an update: a heading with the time, the position
    /// and the group, then up to ``shownRows`` rows, `*` marking the nearest
    /// and `▲`/`▼` the rows that moved up or down since `previous` (the
    /// group's order before), `+` the rows new to it.
    public static func ranking(_ u: RankingUpdate, group: String, clock: String, position: Coordinate?, previous: [String]?) -> [String] {
        var lines: [String] = []
        let where_ = position.map { String(format: "%.5f, %.5f", $0.latitude, $0.longitude) } ?? ""
        lines.append("")
        lines.append("\(clock)  \(where_)  \(group)\(u.changed ? "" : " (unchanged)")")
        let before = previous.map { Dictionary($0.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) } ?? [:]
        let moved = Set(u.moves.map(\.to))
        let shown = min(u.order.count, shownRows)
        for row in 0..<shown {
            let id = u.order[row]
            var mark = " "
            if let old = before[id] {
                if moved.contains(row) || old != row { mark = old > row ? "▲" : (old < row ? "▼" : " ") }
            } else if !before.isEmpty {
                mark = "+"
            }
            let nearest = id == u.nearest ? "*" : " "
            let name = u.names[row].replacingOccurrences(of: "\n", with: " ")
            let padded = name.count >= 34 ? String(name.prefix(33)) + "…" : name.padding(toLength: 34, withPad: " ", startingAt: 0)
            let distance = u.displayDistances[row]
            lines.append("  \(nearest)\(mark) \(String(format: "%2d", row + 1)). \(padded) \(String(repeating: " ", count: max(0, 8 - distance.count)))\(distance)")
        }
        if u.order.count > shown { lines.append("       … \(u.order.count - shown) more") }
        if u.order.isEmpty { lines.append("       (no places)") }
        return lines
    }

    /// The line of a region, pause, resume, visit or error event (nil for the others), after `clock`.
    public static func line(_ event: ReplayEvent, clock: String) -> String? {
        switch event {
        case .region(let id, let entered, let initial, _):
            "\(clock)  region \(id): \(entered ? (initial ? "inside at start" : "entered") : "exited")"
        case .pause:
            "\(clock)  updates paused (standing still)"
        case .resume:
            "\(clock)  updates resumed"
        case .error(let e, _):
            "\(clock)  \(e.code.rawValue): \(e.message)"
        case .visit(let v, _):
            "\(clock)  visit \(v.departure == nil ? "arrived" : "departed") "
                + String(format: "%.5f, %.5f (±%.0f m), ", v.coordinate.latitude, v.coordinate.longitude, v.horizontalAccuracy)
                + "since \(ISO8601Time.format(v.arrival))" + (v.departure.map { ", left \(ISO8601Time.format($0))" } ?? "")
        default:
            nil
        }
    }

    /// The summary at the end of a replay: what was read, replayed, delivered,
    /// held back and lost, and what was rejected by category.
    public static func summary(_ s: ReplaySummary) -> [String] {
        let counts = s.counts
        var lines = ["", "Summary: read \(s.read) points (\(s.rejected.values.reduce(0, +)) rejected), replayed \(counts.generated) fixes "
            + "(\(counts.interpolated) interpolated): \(counts.delivered) delivered, \(counts.filteredTotal) held back by the filters; "
            + "\(s.rankingChanges) order changes."]
        if counts.outages > 0 { lines.append("  lost to outages: \(counts.outageFixes) fixes in \(counts.outages) outages") }
        if counts.dropouts > 0 { lines.append("  lost to dropouts: \(counts.dropouts) fixes") }
        for (category, n) in s.rejected.sorted(by: { $0.key < $1.key }) { lines.append("  rejected \(category): \(n)") }
        return lines
    }
}
