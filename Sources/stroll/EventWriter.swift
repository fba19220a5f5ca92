import Foundation
import LocationSimulation
import Map
import Proximity
import Replay
import Traces

/// Writes replay events as JSON Lines (the contract in ../shared/CLI.md) or
/// as a table for people: the ranked list with moved rows marked.
struct EventWriter {
    let jsonl: Bool
    let realtime: Bool
    let redraw: Bool
    /// The ranked groups: the screen is redrawn after the last one's ranking.
    let groups: [String]
    /// The walk's start (seconds since 1970) and length, for the progress line.
    var startTime = 0.0
    var duration = 0.0
    private var delivered = 0
    private var previousOrder: [String: [String]] = [:]
    private var screen: [String: [String]] = [:]
    private var lastLocation: Location?

    /// The time shown for an event: the walk's own (since its first fix). In
    /// virtual time that is the event's `t`; with --realtime `t` is the wall
    /// clock's, so the walk's time of the last delivered fix is shown instead.
    private func shown(_ t: Double) -> Double {
        guard realtime, let l = lastLocation else { return t }
        return l.timestamp - startTime
    }

    init(format: String, realtime: Bool, groups: [String]) {
        jsonl = format == "jsonl"
        self.groups = groups
        self.realtime = realtime
        redraw = !jsonl && realtime && isatty(STDOUT_FILENO) == 1
    }

    /// Prints one event: its JSON line, or what the table shows of it.
    mutating func write(_ event: ReplayEvent) {
        if jsonl {
            print(event.jsonLine)
            return
        }
        switch event {
        case .location(let l, _):
            lastLocation = l
            delivered += 1
            if groups.isEmpty { progress(elapsed: l.timestamp - startTime) }
        case .ranking(let u, let group, let t):
            ranking(u, group: group, t: t)
            if group == groups.last, let l = lastLocation { progress(elapsed: l.timestamp - startTime) }
        case .filtered, .map:
            break
        case .region(let id, let entered, let initial, let t):
            if !redraw { print("\(Self.clock(shown(t)))  region \(id): \(entered ? (initial ? "inside at start" : "entered") : "exited")") }
        case .pause(let t):
            if !redraw { print("\(Self.clock(shown(t)))  updates paused (standing still)") }
        case .resume(let t):
            if !redraw { print("\(Self.clock(shown(t)))  updates resumed") }
        case .error(let e, let t):
            printError("\(Self.clock(shown(t)))  \(e.code.rawValue): \(e.message)")
        case .summary(let s):
            summary(s)
        }
    }

    mutating func begin(trace: String, groups: [String], places: Int, notes: [String]) {
        guard !jsonl else { return }
        print("Replaying \(trace) against \(places) places (\(groups.joined(separator: ", ")))")
        for note in notes { print("  note: \(note)") }
    }

    private mutating func ranking(_ u: RankingUpdate, group: String, t: Double) {
        let rows = table(u, group: group, t: t)
        previousOrder[group] = u.order
        if redraw {
            screen[group] = rows
        } else if u.changed {
            print(rows.joined(separator: "\n"))
        }
    }

    /// The ranked list: `*` the nearest, `▲`/`▼` rows that moved up or down, `+` new rows.
    private func table(_ u: RankingUpdate, group: String, t: Double) -> [String] {
        var lines: [String] = []
        let clock = Self.clock(shown(t))
        let position = lastLocation.map { String(format: "%.5f, %.5f", $0.coordinate.latitude, $0.coordinate.longitude) } ?? ""
        lines.append("")
        lines.append("\(clock)  \(position)  \(group)\(u.changed ? "" : " (unchanged)")")
        let before = previousOrder[group].map { Dictionary($0.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) } ?? [:]
        let moved = Set(u.moves.map(\.to))
        let shown = min(u.order.count, 12)
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

    static func clock(_ t: Double) -> String { ElapsedTime.clock(t) }

    /// On a terminal with --realtime: the screen redrawn in place with a progress line.
    private func progress(elapsed: Double) {
        guard redraw else { return }
        var text = "\u{1B}[H\u{1B}[2J"
        for group in screen.keys.sorted() { text += (screen[group] ?? []).joined(separator: "\n") + "\n" }
        text += "\n\(Self.clock(elapsed)) of \(Self.clock(duration))  \(delivered) fixes delivered\n"
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func summary(_ s: ReplaySummary) {
        let counts = s.counts
        print("")
        print("Summary: read \(s.read) points (\(s.rejected.values.reduce(0, +)) rejected), replayed \(counts.generated) fixes "
              + "(\(counts.interpolated) interpolated): \(counts.delivered) delivered, \(counts.filteredTotal) held back by the filters; "
              + "\(s.rankingChanges) order changes.")
        if counts.outages > 0 { print("  lost to outages: \(counts.outageFixes) fixes in \(counts.outages) outages") }
        if counts.dropouts > 0 { print("  lost to dropouts: \(counts.dropouts) fixes") }
        for (category, n) in s.rejected.sorted(by: { $0.key < $1.key }) { print("  rejected \(category): \(n)") }
    }
}
