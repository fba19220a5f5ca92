import ArgumentParser
import Foundation
import Replay
import Streets
import Traces

struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "The shortest walking route between two points on an OpenStreetMap extract, as a timed trace.",
        discussion: """
        FROM, TO and each --via are LAT,LON in degrees or the name of a node or way of the \
        extract. Each is snapped to the nearest point of the nearest walkable way (within \
        1 km); the route is the exact shortest path between the snapped points on the \
        walking network (docs/Routing.md says which ways a pedestrian may use). The walk is \
        timed at --speed from --start; OUT's extension chooses its format (GPX on standard \
        output without -o). --json prints one object: distance_m, duration_s (with the pauses \
        of --pause-at-crossings), nodes (the OpenStreetMap node ids passed, in order), from \
        and to (lat, lon after snapping), crossings (how many the walker waits at).

        With FROM `-` (and no TO) and --json, the routes of many pairs on one reading of \
        the extract: standard input holds a pair a line, FROM and TO separated by a tab, and \
        each line's answer is printed as one line: the route's object, or {"error": REASON, \
        "exit": CODE} with the exit code that pair alone would give.

        Exit codes: 65 when no walkable path joins the points, a point is too far from the \
        network, a place name is unknown or the extract holds no walkable way; 66 when the \
        extract is missing.

        Examples:
          stroll route 43.7396,7.4272 43.7316,7.4197 \\
              --osm Fixtures/osm/monaco-latest.osm.pbf -o walk.gpx
          stroll route "Place du Casino" "Musée Océanographique" \\
              --osm Fixtures/osm/monaco-latest.osm.pbf --json
        """
    )

    @Argument(help: ArgumentHelp("Where the walk starts: LAT,LON or a place name in the extract.", valueName: "FROM"))
    var from: String

    @Argument(help: ArgumentHelp("Where the walk ends: LAT,LON or a place name in the extract.", valueName: "TO"))
    var to: String?

    @OptionGroup var street: StreetOptions

    @Option(help: ArgumentHelp("Walking speed in metres per second.", valueName: "M/S"))
    var speed: Double = 1.4

    @Option(help: ArgumentHelp("The time the walk starts.", valueName: "ISO8601"))
    var start: String = "2001-01-01T00:00:00Z"

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the walk to this file; its extension chooses the format (gpx, kml, kmz, tcx, csv, geojson, nmea).", valueName: "OUT"))
    var output: String?

    @Flag(help: "Print one JSON object: distance_m, duration_s, nodes, from, to, crossings.")
    var json = false

    func validate() throws {
        if from == "-" {
            guard to == nil, json else { throw ValidationError("FROM - reads the pairs from standard input: give no TO, and --json") }
        } else if to == nil {
            throw ValidationError("give TO, where the walk ends")
        }
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be more than 0") }
        guard ISO8601Time.parse(start) != nil else { throw ValidationError("--start \(start) is not an ISO 8601 date-time") }
        if let output, TraceWriter.OutputFormat(fileName: output) == nil {
            throw ValidationError("cannot tell the trace format from \(output)'s extension (gpx, kml, kmz, tcx, csv, geojson, nmea)")
        }
    }

    func run() throws {
        try checkOutputs([output])
        guard let to else { return try routes() }
        let route = try street.route(from: from, to: to)
        let trace = route.trace(speed: speed, start: ISO8601Time.parse(start)?.seconds ?? 0, name: "\(from) to \(to)",
                                pauseAtCrossings: street.pauseAtCrossings)
        if let output, let format = TraceWriter.OutputFormat(fileName: output) {
            do {
                let (written, _) = try TraceWriter.write(trace, as: format, to: output)
                printError(String(format: "wrote %@ (%@): %d points, %.0f m", output, format.rawValue, written, route.distance))
            } catch {
                throw writeFailure(error, path: output)
            }
        }
        if json {
            print(answer(route).text)
        } else if output == nil {
            print(TraceWriter.write(trace, as: .gpx), terminator: "")
        }
    }

    /// The contract's object for a route.
    private func answer(_ route: StreetRoute) -> JSON {
        .object(routeFields(route, speed: speed, pauseAtCrossings: street.pauseAtCrossings))
    }

    /// `FROM -`: a route for each tab-separated pair of standard input, one answer a line.
    private func routes() throws {
        let network = try street.network()
        var number = 0
        while let line = readLine() {
            number += 1
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let text: String
            if fields.count != 2 {
                text = JSON.object([("error", .string("standard input line \(number): not FROM and TO separated by a tab")),
                                    ("exit", .int(Int(StrollExit.badInput.rawValue)))]).text
            } else {
                do {
                    text = answer(try street.route(on: network, from: fields[0], to: fields[1])).text
                } catch {
                    text = JSON.object([("error", .string(error.description)), ("exit", .int(Int(StrollExit.badInput.rawValue)))]).text
                }
            }
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }
}

/// The options that choose a walking route's network: the extract, the via
/// points and whether to avoid steps; shared by `stroll route` and `stroll replay --route`.
struct StreetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The OpenStreetMap extract (.osm.pbf or .osm) whose streets and footpaths the walk follows.", valueName: "FILE"))
    var osm: String?

    @Option(help: ArgumentHelp("Pass through this point (LAT,LON or a place name); repeatable, in order.", valueName: "POINT"))
    var via: [String] = []

    @Flag(name: .customLong("avoid-steps"), help: "Leave out ways tagged highway=steps.")
    var avoidSteps = false

    @Option(name: .customLong("pause-at-crossings"), help: ArgumentHelp("Stand this many seconds at each crossing of a road or railway the route passes (a node tagged highway=crossing, highway=traffic_signals, railway=crossing or railway=level_crossing).", valueName: "SECONDS"))
    var pauseAtCrossings: Double = 0

    func validate() throws {
        guard pauseAtCrossings >= 0, pauseAtCrossings.isFinite else { throw ValidationError("--pause-at-crossings must be 0 or more seconds") }
    }

    /// The route from `from` to `to` through the via points; errors are printed
    /// and become the contract's exit codes.
    func route(from: String, to: String, on loaded: StreetNetwork? = nil) throws -> StreetRoute {
        let network = try loaded ?? network()
        do {
            return try route(on: network, from: from, to: to)
        } catch {
            throw failure("error: \(error.description)", StrollExit.badInput)
        }
    }

    /// The walking network of --osm; errors are printed and become the contract's exit codes.
    func network() throws -> StreetNetwork {
        guard let osm else { throw failure("error: a route needs --osm FILE, the OpenStreetMap extract to walk on", StrollExit.usage) }
        return try loadStreetNetwork(osm)
    }

    /// The route from `from` to `to` through the via points on `network`.
    func route(on network: StreetNetwork, from: String, to: String) throws(StreetError) -> StreetRoute {
        let via = try self.via.map { (text: String) throws(StreetError) in try network.coordinate(of: text) }
        return try network.route(from: try network.coordinate(of: from), to: try network.coordinate(of: to), via: via,
                                 options: RouteOptions(avoidsSteps: avoidSteps))
    }
}

/// A route's fields as `stroll route --json` prints them (and the JSON
/// Lines' `route` event of `stroll replay --route`): its length, its time at
/// `speed` with the waits at crossings, its nodes, its snapped ends and how
/// many crossings it passes.
func routeFields(_ route: StreetRoute, speed: Double, pauseAtCrossings: Double) -> [(String, JSON)] {
    let point = { (s: StreetSnap) in JSON.object([("lat", .number(s.coordinate.latitude)), ("lon", .number(s.coordinate.longitude))]) }
    return [
        ("distance_m", .number(route.distance)),
        ("duration_s", .number(route.duration(atSpeed: speed) + Double(route.crossings.count) * pauseAtCrossings)),
        ("nodes", .array(route.nodes.map { .int(Int($0)) })),
        ("from", point(route.from)),
        ("to", point(route.to)),
        ("crossings", .int(route.crossings.count)),
    ]
}

/// The walking network of the extract at `path`; errors are printed and
/// become the contract's exit codes (66 for a missing file, 65 for one that
/// is not an extract or has no walkable way).
func loadStreetNetwork(_ path: String) throws -> StreetNetwork {
    do {
        return try StreetNetwork.load(path)
    } catch {
        throw failure("error: \(error.description)", error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput)
    }
}

extension StreetNetwork {
    /// The network's lines within `bounds` as a run's map draws them.
    func mapStreets(in bounds: (south: Double, west: Double, north: Double, east: Double)) -> [MapStreet] {
        lines(south: bounds.south, west: bounds.west, north: bounds.north, east: bounds.east).map { line in
            MapStreet(kind: MapStreet.Kind(rawValue: line.kind.rawValue) ?? .street, coordinates: line.coordinates)
        }
    }
}
