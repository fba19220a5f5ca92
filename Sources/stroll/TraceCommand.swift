import ArgumentParser
import Foundation
import Replay
import Traces

struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Inspect trace files (GPX 1.0/1.1, CSV).",
        subcommands: [Info.self]
    )

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What a trace holds: tracks, segments, points, length, times, bounds, rejected points.",
            discussion: """
            Rejected points are listed with the line of their start tag (or CSV row) and the \
            reason. A well-formed file with no points reports zeros. A file that cannot be \
            read prints FILE:LINE:COLUMN: reason on standard error and exits 65 (66 when it \
            is missing or unreadable).

            Example:
              stroll trace info traces/lime-street-to-campus.gpx --json
            """
        )

        @Argument(help: "The GPX or CSV file.")
        var file: String

        @Flag(help: "One JSON object with the keys of the command-line contract.")
        var json = false

        func run() throws {
            let stats: TraceStatistics
            do {
                stats = try TraceStatistics.read(file)
            } catch {
                printError(error.description)
                throw error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput
            }
            print(json ? Self.json(stats).text : Self.table(stats))
        }

        static func json(_ s: TraceStatistics) -> JSON {
            .object([
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
            ])
        }

        static func table(_ s: TraceStatistics) -> String {
            func duration(_ seconds: Double?) -> String {
                guard let seconds else { return "no times" }
                let t = Int(seconds.rounded())
                return String(format: "%d:%02d:%02d", t / 3600, (t / 60) % 60, t % 60)
            }
            var lines = [
                "format      \(s.format.rawValue)",
                "tracks      \(s.tracks) (\(s.segments) segments: \(s.pointsPerSegment.map(String.init).joined(separator: ", ")) points)",
                "routes      \(s.routes) (\(s.routePoints) points)",
                "waypoints   \(s.waypoints)",
                "length      \(String(format: "%.1f", s.length)) m",
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
}
