import ArgumentParser
import Foundation
import LocationSimulation
import Logging
import Proximity
import Replay
import RunFiles
import Streets
import Traces

/// One replay from the command line: loads its inputs, runs the location
/// simulator, ranks each group on every delivered fix, keeps the map model,
/// and writes events as a table or JSON Lines.
struct ReplaySession {
    let command: ReplayCommand
    let inputs: SimulationInputs
    var selectID: String?
    var sortMode: SortMode = .distance
    var out: EventWriter
    let log: Logger
    /// The walking network of --osm, read once: for --route, and for the streets of --svg and --html.
    let network: StreetNetwork?
    /// The route --route walks, for the JSON Lines' `route` event.
    let route: StreetRoute?

    init(command: ReplayCommand) throws {
        self.command = command
        log = command.logging.logger("stroll.replay")
        network = command.route.count == 2 || command.drawsStreets ? try command.street.network() : nil
        let routed = try command.routedWalk(on: network)
        route = routed?.route
        inputs = try command.simulation.load(trace: command.trace, routed: routed.map { ($0.label, $0.trace) }, log: log) { error in
            if command.format == "jsonl" {
                let e = JSON.object([("type", .string("error")), ("t", .int(0)), ("code", .string("badInput")), ("message", .string(error.reason)),
                                     ("file", .string(error.file)), ("line", error.line > 0 ? .int(error.line) : .null)])
                print(e.text)
            }
        }
        selectID = inputs.selectID
        let active = try inputs.placeSet.places(inGroups: inputs.activeGroups)
        out = EventWriter(format: command.format, realtime: command.realtime, groups: inputs.activeGroups)
        if let statePath = command.state {
            let (remembered, warning) = RememberedState.load(statePath)
            if let warning { printError("warning: \(statePath): \(warning)") }
            sortMode = remembered.sortMode
            if selectID == nil, let id = remembered.selected, active.contains(where: { $0.id == id }) { selectID = id }
        }
        if let sort = command.simulation.sort { sortMode = sort }
    }

    mutating func run() async throws {
        var configuration = command.simulation.configuration(groups: inputs.activeGroups, regions: inputs.monitored, environments: inputs.environments, sortMode: sortMode, select: selectID)
        configuration.visits = command.visitSettings
        configuration.recordsGolden = command.record != nil || command.verify != nil
        var replay: Replay
        do {
            replay = try Replay(trace: inputs.trace, places: inputs.placeSet, configuration: configuration,
                                about: "stroll replay \((inputs.tracePath as NSString).lastPathComponent), groups \(inputs.activeGroups.joined(separator: ", "))")
        } catch {
            throw failure("error: \(error.description)", StrollExit.usage)
        }
        let names = Dictionary(replay.places.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        var report = RunReport(trace: inputs.trace, groups: replay.groups)
        let routeNote = route.map { r in
            String(format: "route: %.0f m through %d OpenStreetMap nodes, %d crossings", r.distance, r.nodes.count, r.crossings.count)
        }
        out.begin(trace: (inputs.tracePath as NSString).lastPathComponent, places: replay.places.count, notes: replay.notes + (routeNote.map { [$0] } ?? []),
                  route: route.map { r in
                      .object([("type", .string("route")), ("t", .int(0))]
                              + routeFields(r, speed: command.simulation.walkingSpeed, pauseAtCrossings: command.street.pauseAtCrossings))
                  })
        out.text.duration = replay.endTime - replay.startTime
        out.text.startTime = replay.startTime
        if command.realtime {
            var pacer = RealTimeClock(speed: command.speed).makePacer(start: replay.startTime)
            while let event = try await replay.next(pacedBy: &pacer) { record(event, into: &report, names: names) }
        } else {
            while let event = replay.next() { record(event, into: &report, names: names) }
        }
        out.lines.flush() // in JSON Lines nothing else goes to standard output
        if let code = out.lines.failure { throw standardOutputFailure(code) }
        if replay.failed { throw StrollExit.badInput }
        let counts = replay.counts
        log.debug("replayed \(counts.generated) fixes: \(counts.delivered) delivered, \(counts.filteredTotal) filtered, \(replay.rankingChanges) order changes")
        report.selected = replay.map.selected
        try writeOutputs(report, active: replay.places)
        if let statePath = command.state {
            do {
                try RememberedState.remember(selected: replay.map.selected, sortMode: sortMode, group: inputs.activeGroups.first, at: statePath)
            } catch {
                printError("warning: cannot write the state file \(statePath): \(ErrorWords.reason(error))")
            }
        }
        if let path = command.record {
            do {
                try replay.golden.write(to: path)
            } catch {
                throw writeFailure(error, path: path)
            }
        }
        if let path = command.verify {
            let expected: GoldenTimeline
            do {
                expected = try GoldenTimeline.read(path)
            } catch {
                throw failure("error: cannot read golden timeline \(path): \(ErrorWords.reason(error))", FileManager.default.fileExists(atPath: path) ? StrollExit.badInput : StrollExit.missingInput)
            }
            if let divergence = expected.firstDivergence(from: replay.golden, names: names) {
                throw failure("verify: \(path): \(divergence)", StrollExit.checkFailed)
            }
            printError("verify: \(path): \(replay.golden.entries.count) order changes match")
        }
    }

    /// Prints an event and keeps what the file outputs need.
    private mutating func record(_ event: ReplayEvent, into report: inout RunReport, names: [String: String]) {
        out.write(event)
        report.record(event, names: names, history: files.needsHistory, orderChanges: files.needsOrderChanges)
    }

    /// The files the run is written to (--geojson, --gpx, --gpkg, --svg, --html).
    private var files: RunFiles {
        RunFiles(geoJSON: command.geojson, gpx: command.gpx, geoPackage: command.gpkg, svg: command.svg, html: command.html)
    }

    private func writeOutputs(_ report: RunReport, active: [Place]) throws {
        do {
            var streets: ((_ bounds: (south: Double, west: Double, north: Double, east: Double)) -> [MapStreet])?
            if command.drawsStreets, let network { streets = { network.mapStreets(in: $0) } }
            for path in try files.write(report, places: active, distanceFilter: command.simulation.settings.distanceFilter, streets: streets) {
                log.debug("wrote \(path)")
            }
        } catch let error as OutputFileError {
            throw writeFailure(error, path: error.path)
        } catch {
            throw failure("error: cannot write the run: \(ErrorWords.reason(error))", StrollExit.ioError)
        }
    }
}
