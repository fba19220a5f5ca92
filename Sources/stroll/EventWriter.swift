import Foundation
import LocationSimulation
import Map
import Proximity
import Traces

/// Writes replay events as JSON Lines (the contract in ../shared/CLI.md) or
/// as a table for people: the ranked list with moved rows marked.
struct EventWriter {
    let jsonl: Bool
    let realtime: Bool
    let redraw: Bool
    private var previousOrder: [String: [String]] = [:]
    private var screen: [String: [String]] = [:]
    private var lastLocation: Location?
    private var filteredSinceLast = 0

    init(format: String, realtime: Bool) {
        jsonl = format == "jsonl"
        self.realtime = realtime
        redraw = !jsonl && realtime && isatty(STDOUT_FILENO) == 1
    }

    private func emit(_ fields: [(String, JSON)]) {
        print(JSON.object(fields).text)
    }

    private static func rounded(_ t: Double) -> JSON { .number((t * 1_000_000).rounded() / 1_000_000) }

    mutating func begin(trace: String, groups: [String], places: Int, notes: [String]) {
        guard !jsonl else { return }
        print("Replaying \(trace) against \(places) places (\(groups.joined(separator: ", ")))")
        for note in notes { print("  note: \(note)") }
    }

    mutating func location(_ l: Location, t: Double) {
        lastLocation = l
        if jsonl {
            emit([("type", .string("location")), ("t", Self.rounded(t)), ("timestamp", .string(ISO8601Time.format(l.timestamp))),
                  ("lat", .number(l.coordinate.latitude)), ("lon", .number(l.coordinate.longitude)),
                  ("horizontalAccuracy", .number(l.horizontalAccuracy)), ("altitude", .number(l.altitude)),
                  ("verticalAccuracy", .number(l.verticalAccuracy)), ("course", .number(l.course)), ("speed", .number(l.speed))])
        }
    }

    mutating func filtered(_ l: Location, reason: FilterReason, distance: Double, t: Double) {
        filteredSinceLast += 1
        if jsonl {
            emit([("type", .string("filtered")), ("t", Self.rounded(t)), ("lat", .number(l.coordinate.latitude)),
                  ("lon", .number(l.coordinate.longitude)), ("reason", .string(reason.rawValue)), ("distance", .number(distance))])
        }
    }

    mutating func ranking(_ u: RankingUpdate, group: String, t: Double) {
        if jsonl {
            emit([("type", .string("ranking")), ("t", Self.rounded(t)), ("group", .string(group)),
                  ("order", .array(u.order.map { .string($0) })), ("names", .array(u.names.map { .string($0) })),
                  ("distances", .array(u.distances.map { .number($0) })),
                  ("moves", .array(u.moves.map { .array([.int($0.from), .int($0.to)]) })),
                  ("inserted", .array(u.inserted.map { .string($0) })), ("deleted", .array(u.deleted.map { .string($0) })),
                  ("nearest", .optional(u.nearest)), ("changed", .bool(u.changed))])
            return
        }
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
        let clock = Self.clock(t)
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

    static func clock(_ t: Double) -> String {
        let s = Int(t.rounded(.down))
        return String(format: "%02d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
    }

    mutating func map(_ m: MapSnapshot, t: Double) {
        guard jsonl else { return }
        let region: JSON = m.region.map { r in
            .object([("center", .object([("lat", .number(r.center.latitude)), ("lon", .number(r.center.longitude))])),
                     ("span", .object([("latDelta", .number(r.latitudeDelta)), ("lonDelta", .number(r.longitudeDelta))]))])
        } ?? .null
        emit([("type", .string("map")), ("t", Self.rounded(t)), ("region", region), ("visible", .array(m.visible.map { .string($0) })),
              ("selected", .optional(m.selected))])
    }

    mutating func region(_ id: String, event: String, initial: Bool, t: Double) {
        if jsonl {
            var fields: [(String, JSON)] = [("type", .string("region")), ("t", Self.rounded(t)), ("id", .string(id)), ("event", .string(event))]
            if initial { fields.append(("initial", .bool(true))) }
            emit(fields)
        } else if !redraw {
            print("\(Self.clock(t))  region \(id): \(event == "enter" ? (initial ? "inside at start" : "entered") : "exited")")
        }
    }

    mutating func simple(_ type: String, t: Double) {
        if jsonl {
            emit([("type", .string(type)), ("t", Self.rounded(t))])
        } else if !redraw {
            print("\(Self.clock(t))  updates \(type == "pause" ? "paused (standing still)" : "resumed")")
        }
    }

    mutating func error(_ e: LocationError, t: Double) {
        if jsonl {
            var fields: [(String, JSON)] = [("type", .string("error")), ("t", Self.rounded(t)), ("code", .string(e.code.rawValue)), ("message", .string(e.message))]
            if let file = e.file { fields.append(("file", .string(file))) }
            if let line = e.line { fields.append(("line", .int(line))) }
            emit(fields)
        } else {
            printError("\(Self.clock(t))  \(e.code.rawValue): \(e.message)")
        }
    }

    /// On a terminal with --realtime: the screen redrawn in place with a progress line.
    mutating func progress(elapsed: Double, of total: Double, delivered: Int) {
        guard redraw else { return }
        var text = "\u{1B}[H\u{1B}[2J"
        for group in screen.keys.sorted() { text += (screen[group] ?? []).joined(separator: "\n") + "\n" }
        text += "\n\(Self.clock(elapsed)) of \(Self.clock(total))  \(delivered) fixes delivered\n"
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    mutating func summary(trace: Trace, counts: ReplayCounts, rankingChanges: Int, placesRejected: Int) {
        let read = trace.replaySegments.map(\.fixes.count).reduce(0, +) + trace.rejected.count
        var rejected: [String: Int] = [:]
        for r in trace.rejected { rejected[r.category, default: 0] += 1 }
        if jsonl {
            emit([("type", .string("summary")), ("read", .int(read)),
                  ("rejected", .object(rejected.keys.sorted().map { ($0, .int(rejected[$0] ?? 0)) })),
                  ("delivered", .int(counts.delivered)), ("filtered", .int(counts.filteredTotal)), ("rankingChanges", .int(rankingChanges)),
                  ("generated", .int(counts.generated)), ("interpolated", .int(counts.interpolated)), ("dropouts", .int(counts.dropouts)),
                  ("paused", .int(counts.paused)), ("placesRejected", .int(placesRejected))])
            return
        }
        print("")
        print("Summary: read \(read) points (\(trace.rejected.count) rejected), replayed \(counts.generated) fixes "
              + "(\(counts.interpolated) interpolated): \(counts.delivered) delivered, \(counts.filteredTotal) held back by the filters; "
              + "\(rankingChanges) order changes.")
        for (category, n) in rejected.sorted(by: { $0.key < $1.key }) { print("  rejected \(category): \(n)") }
    }
}
