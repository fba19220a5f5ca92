import ArgumentParser
import Foundation
import LocationSimulation
import Proximity
import Streets
import Traces

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a walk as CoreLocation would deliver it, and re-sort places on every update.",
        discussion: """
        The trace's recorded fixes keep their times; fixes are interpolated between them \
        along the geodesic at --rate; a fix is delivered when it is --distance-filter metres \
        or more from the last delivered one (the first always is). On every delivered fix \
        each group of places is re-sorted by exact WGS84 geodesic distance (millimetres, \
        then name, then id) and the map region, visible pins and selection are updated.

        Without a trace, the bundled walk from Lime Street station to the campus is \
        replayed; without --places, the CoffeeShop13 coffee houses and the University \
        lecture theatres are used (groups liverpool and lecture-theatres).

        Examples:
          stroll replay traces/campus-loop.gpx
          stroll replay traces/lime-street-to-campus.csv \\
              --places Fixtures/lecture-theatres.json --format jsonl
          stroll replay --realtime --speed 60
          stroll replay traces/pier-head-to-guild.gpx --record golden.json
          stroll replay traces/pier-head-to-guild.gpx --verify golden.json
          stroll replay traces/bold-street-long-stop.gpx --visits --distance-filter none
        """
    )

    @Argument(help: "GPX, CSV or any trace format (default: the bundled Lime Street to campus walk).")
    var trace: String?

    @OptionGroup var simulation: SimulationOptions

    @Option(help: ArgumentHelp("Replay speed multiplier with --realtime.", valueName: "X"))
    var speed: Double = 1

    @Flag(help: "Pace events on the wall clock (default: virtual time, instant).")
    var realtime = false

    @Option(help: ArgumentHelp("Remember and restore the selection and sort mode in this JSON file.", valueName: "FILE"))
    var state: String?

    @Option(help: ArgumentHelp("table (default) or jsonl: one JSON object per event.", valueName: "table|jsonl"))
    var format: String = "table"

    @Option(help: ArgumentHelp("Write the run as GeoJSON.", valueName: "FILE"))
    var geojson: String?

    @Option(help: ArgumentHelp("Write the delivered fixes as GPX.", valueName: "FILE"))
    var gpx: String?

    @Option(help: ArgumentHelp("Write the run as a GeoPackage: layers fixes and places, and the table order_changes.", valueName: "FILE"))
    var gpkg: String?

    @Option(help: ArgumentHelp("Write an SVG map of the run: trace, fixes with filter circles, pins, nearest changes (and --osm's streets under them).", valueName: "FILE"))
    var svg: String?

    @Option(help: ArgumentHelp("Write one self-contained HTML page: the map (with --osm, the extract's streets and footpaths under the walk) and a time slider that replays the ranking.", valueName: "FILE"))
    var html: String?

    @Option(help: ArgumentHelp("Write a golden timeline of the order changes.", valueName: "FILE"))
    var record: String?

    @Option(help: ArgumentHelp("Check the order changes against a golden timeline; exit 1 at the first difference.", valueName: "FILE"))
    var verify: String?

    @Flag(help: "Detect visits in the delivered fixes (a stay within --visit-radius for --visit-minutes): visit events at arrival and departure.")
    var visits = false

    @Option(name: .customLong("visit-radius"), help: ArgumentHelp("With --visits: the fixes of a stay are within this many metres of its first.", valueName: "METRES"))
    var visitRadius: Double = 100

    @Option(name: .customLong("visit-minutes"), help: ArgumentHelp("With --visits: a stay lasts at least this many minutes.", valueName: "MIN"))
    var visitMinutes: Double = 5

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Replay the shortest walking route between two points (LAT,LON or place names) on --osm's streets, timed at --walking-speed from --start.", valueName: "FROM TO"))
    var route: [String] = []

    @OptionGroup var street: StreetOptions

    @OptionGroup var logging: VerboseOption

    func validate() throws {
        guard ["table", "jsonl"].contains(format) else { throw ValidationError("--format must be table or jsonl, not \(format)") }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be more than 0") }
        guard visitRadius > 0, visitRadius.isFinite else { throw ValidationError("--visit-radius must be more than 0 metres") }
        guard visitMinutes > 0, visitMinutes.isFinite else { throw ValidationError("--visit-minutes must be more than 0") }
        if !route.isEmpty {
            guard route.count == 2 else { throw ValidationError("--route takes two points, FROM and TO, not \(route.count)") }
            guard trace == nil else { throw ValidationError("--route replaces the trace: give one or the other") }
            guard street.osm != nil else { throw ValidationError("--route needs --osm FILE, the OpenStreetMap extract to walk on") }
        }
    }

    func run() async throws {
        try checkOutputs([geojson, gpx, gpkg, svg, html, record])
        var session = try ReplaySession(command: self)
        try await session.run()
    }
}

extension ReplayCommand {
    /// The walk of --route, timed as a trace without times would be, and the
    /// route it follows; nil without --route.
    func routedWalk(on network: StreetNetwork? = nil) throws -> (label: String, trace: Trace, route: StreetRoute)? {
        guard route.count == 2 else { return nil }
        let walk = try street.route(from: route[0], to: route[1], on: network)
        let start = ISO8601Time.parse(simulation.start)?.seconds ?? 0
        return ("route \(route[0]) to \(route[1])", walk.trace(speed: simulation.walkingSpeed, start: start, name: "\(route[0]) to \(route[1])",
                                                                   pauseAtCrossings: street.pauseAtCrossings), walk)
    }

    /// Whether the SVG map or the HTML page draws --osm's streets under the walk.
    var drawsStreets: Bool { street.osm != nil && (svg != nil || html != nil) }

    /// The visit thresholds of --visits, --visit-radius and --visit-minutes; nil without --visits.
    var visitSettings: VisitSettings? {
        visits ? VisitSettings(radius: visitRadius, minimumDuration: visitMinutes * 60) : nil
    }
}

extension SortMode: ExpressibleByArgument {}
