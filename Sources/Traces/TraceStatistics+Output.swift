import Foundation

/// What `stroll trace info` prints: the statistics as JSON (the command-line
/// contract's keys) and as a table for a reader.
extension TraceStatistics {
    /// The statistics as `stroll trace info --json` prints them (the command-line contract's keys).
    public var json: JSON {
        let s = self
        return .object([
            ("format", .string(s.format.rawValue)),
            ("tracks", .int(s.tracks)),
            ("segments", .int(s.segments)),
            ("pointsPerSegment", .array(s.pointsPerSegment.map { .int($0) })),
            ("points", .int(s.points)),
            ("routes", .int(s.routes)),
            ("routePoints", .int(s.routePoints)),
            ("waypoints", .int(s.waypoints)),
            ("length_m", .number(s.length)),
            ("duration_s", .optional(s.duration)),
            ("movingTime_s", .optional(s.movingTime)),
            ("bounds", s.bounds.map { b in
                .object([("minLat", .number(b.minLatitude)), ("minLon", .number(b.minLongitude)),
                         ("maxLat", .number(b.maxLatitude)), ("maxLon", .number(b.maxLongitude))])
            } ?? .null),
            ("firstTime", .optional(s.firstTime.map(ISO8601Time.format))),
            ("lastTime", .optional(s.lastTime.map(ISO8601Time.format))),
            ("rejected", .array(s.rejected.map { .object([("line", .int($0.line)), ("reason", .string($0.reason))]) })),
            ("replays", .string(s.replayed?.part ?? "nothing")),
            ("replayedPoints", .int(s.replayed?.points ?? 0)),
            ("replayedLength_m", .number(s.replayed?.length ?? 0)),
        ])
    }

    /// The statistics as `stroll trace info` prints them for a reader.
    public var table: String {
        let s = self
        func duration(_ seconds: Double?) -> String {
            guard let seconds else { return "no times" }
            let t = Int(seconds.rounded())
            return String(format: "%d:%02d:%02d", t / 3600, (t / 60) % 60, t % 60)
        }
        var lines = [
            "format      \(s.format.rawValue)",
            s.tracks == 0 ? "tracks      0"
                : "tracks      \(s.tracks) (\(plural(s.segments, "segment")): \(s.pointsPerSegment.map(String.init).joined(separator: ", ")) \(s.points == 1 ? "point" : "points"))",
            "routes      \(s.routes)\(s.routes == 0 ? "" : " (\(plural(s.routePoints, "point")))")",
            "waypoints   \(s.waypoints)",
            "length      \(String(format: "%.1f", s.length)) m along the tracks",
            "replays     " + (s.replayed.map { "\($0.points) \($0.part), \(String(format: "%.1f", $0.length)) m" } ?? "nothing: no points"),
            "duration    \(duration(s.duration)) (moving \(duration(s.movingTime)))",
            "time        \(s.firstTime.map(ISO8601Time.format) ?? "-") to \(s.lastTime.map(ISO8601Time.format) ?? "-")",
        ]
        if let b = s.bounds {
            lines.append("bounds      \(b.minLatitude), \(b.minLongitude) to \(b.maxLatitude), \(b.maxLongitude)")
        }
        lines.append("rejected    \(s.rejected.count)")
        lines += s.rejected.map { "  line \($0.line): \($0.reason)" }
        return lines.joined(separator: "\n")
    }
}

/// `1 point`, `2 points`.
private func plural(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
