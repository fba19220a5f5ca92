import ArgumentParser
import Foundation
import LocationSimulation
import Replay
import Traces

struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Inspect and convert trace files (GPX, CSV, KML/KMZ, TCX, GeoJSON, NMEA, GeoLife .plt; .gz of any).",
        subcommands: [Info.self, Convert.self]
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

        @Argument(help: "The trace file: GPX, CSV, KML, TCX, GeoJSON, NMEA or GeoLife .plt, plain or .gz.")
        var file: String

        @Flag(help: "One JSON object with the keys of the command-line contract.")
        var json = false

        func run() throws {
            let stats: TraceStatistics
            let progress = ProgressLine()
            do {
                stats = try TraceStatistics.read(file, progress: progress.reading(file))
            } catch {
                progress.clear()
                throw failure(error.description, error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput)
            }
            progress.clear()
            print(json ? stats.json.text : stats.table)
        }
    }
}

extension TraceCommand {
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a trace in another format: for other tools, simulators and emulators.",
            discussion: """
            FORMAT is gpx, kml (gx:Track), kmz (that KML zipped), tcx, csv, geojson, nmea (RMC and GGA, checksummed) \
            or xcode-gpx (timed waypoints, the form Xcode's scheme location and simctl replay); \
            without --to it is told by OUT's extension. With --delivered the trace is first \
            replayed as CoreLocation would deliver it (10 m accuracy, 25 m distance filter) \
            and only the delivered fixes are written. The output is written atomically.

            Examples:
              stroll trace convert Fixtures/real-traces/togeojson/gxtrack.kml walk.gpx
              stroll trace convert traces/campus-loop.gpx campus.nmea
              stroll trace convert traces/campus-loop.gpx campus-xcode.gpx \\
                  --to xcode-gpx --delivered
            """
        )

        @Argument(help: "The trace to read (any format stroll reads).")
        var input: String

        @Argument(help: "The file to write.")
        var output: String

        @Option(help: ArgumentHelp("gpx, kml, kmz, tcx, csv, geojson, nmea or xcode-gpx.", valueName: "FORMAT"))
        var to: String?

        @Flag(help: "Only the fixes a replay with the 25 m distance filter delivers.")
        var delivered = false

        func validate() throws {
            if let to, TraceWriter.OutputFormat(rawValue: to) == nil {
                throw ValidationError("--to must be one of \(TraceWriter.OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")), not \(to)")
            }
            if to == nil, TraceWriter.OutputFormat(fileName: output) == nil {
                throw ValidationError("cannot tell the format from \(output)'s extension; name it with --to")
            }
        }

        func run() throws {
            guard let format = to.flatMap(TraceWriter.OutputFormat.init(rawValue:)) ?? TraceWriter.OutputFormat(fileName: output) else {
                throw StrollExit.usage
            }
            try checkOutputs([output])
            var trace: Trace
            let progress = ProgressLine()
            defer { progress.clear() }
            do {
                trace = try TraceReader.read(input, progress: progress.reading(input))
            } catch {
                progress.clear()
                throw failure(error.description, error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput)
            }
            progress.clear()
            for rejection in trace.rejected { printError("\(input):\(rejection.line): rejected: \(rejection.reason)") }
            if delivered {
                do {
                    trace = try LocationSimulator.delivered(trace) { done, of in
                        if progress.live { progress.update("replaying \((input as NSString).lastPathComponent):", done: done, of: of) { ElapsedTime.clock($0) } }
                    }
                } catch {
                    progress.clear()
                    throw failure("\(input): \(error.message)", StrollExit.badInput)
                }
                progress.clear()
            }
            progress.phase { "writing \((output as NSString).lastPathComponent) (\(format.rawValue)), \(trace.replaySegments.map(\.fixes.count).reduce(0, +)) points" }
            let points: Int
            do {
                let (written, leftOut) = try TraceWriter.write(trace, as: format, to: output)
                progress.clear()
                if leftOut > 0 { printError("warning: \(leftOut) fixes without a time were left out: NMEA needs a time for every fix") }
                points = written
            } catch {
                progress.clear()
                throw writeFailure(error, path: output)
            }
            print("wrote \(output) (\(format.rawValue)): \(points) points\(trace.rejected.isEmpty ? "" : ", \(trace.rejected.count) rejected on reading")")
        }
    }
}
