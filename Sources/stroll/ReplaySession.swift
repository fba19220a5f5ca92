import ArgumentParser
import Foundation
import Geodesy
import LocationSimulation
import Logging
import Map
import Proximity
import Scenarios
import Traces

/// One replay from the command line: loads its inputs, runs the location
/// simulator, ranks each group on every delivered fix, keeps the map model,
/// and writes events as a table or JSON Lines.
struct ReplaySession {
    let command: ReplayCommand
    let tracePath: String
    let trace: Trace
    let placeSet: PlaceSet
    let activeGroups: [String]
    let monitored: [MonitoredRegion]
    var selectID: String?
    var sortMode: SortMode = .distance
    var out: EventWriter
    let log: Logger

    init(command: ReplayCommand) throws {
        self.command = command
        log = command.logging.logger("stroll.replay")
        tracePath = command.trace ?? Bundled.path(Bundled.walk)
        log.debug("reading trace \(tracePath)")
        do {
            trace = try TraceReader.read(tracePath)
        } catch {
            printError(error.description)
            if command.format == "jsonl" {
                let e = JSON.object([("type", .string("error")), ("t", .int(0)), ("code", .string("badInput")), ("message", .string(error.reason)),
                                     ("file", .string(error.file)), ("line", error.line > 0 ? .int(error.line) : .null)])
                print(e.text)
            }
            throw error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput
        }
        log.debug("trace: \(trace.replaySegments.count) segments, \(trace.replaySegments.map(\.fixes.count).reduce(0, +)) fixes, \(trace.rejected.count) rejected")
        for note in trace.notes { log.info("\(note)") }
        var set = PlaceSet()
        let placeFiles = command.places.isEmpty ? [Bundled.path(Bundled.coffeeHouses), Bundled.path(Bundled.lectureTheatres)] : command.places
        for file in placeFiles {
            do {
                set.merge(try PlaceSet.load(file))
            } catch {
                printError(error.description)
                throw error.unreadable ? StrollExit.missingInput : StrollExit.badInput
            }
        }
        for r in set.rejected { printError("warning: \(r.description)") }
        placeSet = set
        log.debug("places: \(set.places.count) in groups \(set.groups.joined(separator: ", ")); \(set.rejected.count) rejected")
        if command.groups.isEmpty {
            activeGroups = command.places.isEmpty ? Bundled.groups.filter { set.groups.contains($0) } : set.groups
        } else {
            for g in command.groups where !set.groups.contains(g) {
                printError("error: unknown group \"\(g)\"; the groups are: \(set.groups.joined(separator: ", "))")
                throw StrollExit.usage
            }
            activeGroups = command.groups
        }
        if let file = command.regions {
            do {
                monitored = try MonitoredRegion.loadGeoJSON(file)
            } catch {
                printError(error.description)
                throw error.unreadable ? StrollExit.missingInput : StrollExit.badInput
            }
        } else {
            monitored = []
        }
        let active = set.places(inGroups: activeGroups)
        if let wanted = command.select {
            selectID = try Self.resolveSelection(wanted, among: active)
        }
        out = EventWriter(format: command.format, realtime: command.realtime)
        log.debug("active groups: \(activeGroups.joined(separator: ", ")); accuracy \(command.accuracy) m, distance filter \(command.distanceFilter), rate \(command.rate) Hz, noise \(command.noise) (seed \(command.seed))")
        if let statePath = command.state {
            let (remembered, warning) = RememberedState.load(statePath)
            if let warning { printError("warning: \(statePath): \(warning)") }
            sortMode = remembered.sortMode
            if selectID == nil, let id = remembered.selected, active.contains(where: { $0.id == id }) { selectID = id }
        }
    }

    /// `--select`: an id exactly, else a name exactly within the active groups.
    static func resolveSelection(_ wanted: String, among places: [Place]) throws -> String {
        if let p = places.first(where: { $0.id == wanted }) { return p.id }
        let named = places.filter { $0.name == wanted }
        if named.count == 1 { return named[0].id }
        if named.isEmpty {
            let close = places.filter { $0.name.localizedCaseInsensitiveContains(wanted) || $0.id.localizedCaseInsensitiveContains(wanted) }
            let hint = close.isEmpty ? "" : "; similar: " + close.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
            printError("error: --select \"\(wanted)\" matches no place id or name in the active groups\(hint)")
        } else {
            printError("error: --select \"\(wanted)\" matches \(named.count) places; use an id: " + named.map { "\($0.id) (\($0.name))" }.joined(separator: ", "))
        }
        throw StrollExit.usage
    }

    mutating func run() async throws {
        var simulator: LocationSimulator
        do {
            simulator = try LocationSimulator(trace: trace, settings: command.settings, replay: command.replayOptions,
                                              sensor: command.sensorOptions, regions: monitored)
        } catch {
            printError("error: \(error.description)")
            throw StrollExit.usage
        }
        var engines: [(group: String, engine: ProximityEngine)] = activeGroups.map { g in
            (g, ProximityEngine(places: placeSet.places.filter { $0.group == g }, sortMode: sortMode))
        }
        let active = placeSet.places(inGroups: activeGroups)
        let names = Dictionary(active.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        var map = MapModel()
        map.trackingMode = command.follow ? .follow : .none
        _ = map.add(active.map { Annotation(id: $0.id, coordinate: $0.coordinate, title: $0.name, subtitle: $0.subtitle) })
        var golden = GoldenTimeline(about: "stroll replay \((tracePath as NSString).lastPathComponent), groups \(activeGroups.joined(separator: ", "))")
        var report = RunReport(trace: trace)
        var rankingChanges = 0
        var lastMap: MapSnapshot?
        var pendingSelect = selectID
        let clock: any ReplayPacer = command.realtime
            ? RealTimeClock(speed: command.speed).makePacer(start: simulator.startTime)
            : VirtualClock().makePacer(start: simulator.startTime)
        var pacer = clock
        let duration = simulator.endTime - simulator.startTime
        out.begin(trace: (tracePath as NSString).lastPathComponent, groups: activeGroups, places: active.count, notes: trace.notes + simulator.notes)

        while let event = simulator.next() {
            try await pacer.wait(until: event.timestamp)
            let t = pacer.elapsed(at: event.timestamp)
            switch event {
            case .location(let l):
                out.location(l, t: t)
                report.delivered.append((l, t))
                _ = map.updateUserLocation(l.coordinate)
                if map.region == nil {
                    _ = map.setRegion(MapRegion(center: l.coordinate, latitudinalMeters: command.regionSpan, longitudinalMeters: command.regionSpan))
                }
                for k in engines.indices {
                    let update = engines[k].engine.update(from: l.coordinate)
                    if update.changed && report.rankings[engines[k].group] != nil { rankingChanges += 1 }
                    if let previous = report.rankings[engines[k].group], previous.nearest != update.nearest, let n = update.nearest {
                        report.nearestChanges.append((engines[k].group, n, names[n] ?? n, l.coordinate, t))
                    }
                    report.rankings[engines[k].group] = update
                    if command.html != nil { report.history[engines[k].group, default: []].append(update) }
                    golden.record(update, group: engines[k].group, t: t)
                    out.ranking(update, group: engines[k].group, t: t)
                }
                if let id = pendingSelect, engines.contains(where: { $0.engine.places.contains { $0.id == id } }) {
                    pendingSelect = nil
                    if case .success = map.select(id), let pin = map.annotation(id) { _ = map.setCenter(pin.coordinate) }
                }
                let snapshot = MapSnapshot(map)
                if snapshot != lastMap {
                    out.map(snapshot, t: t)
                    lastMap = snapshot
                }
                out.progress(elapsed: event.timestamp - simulator.startTime, of: duration, delivered: report.delivered.count)
            case .filtered(let l, let reason, let distance):
                out.filtered(l, reason: reason, distance: distance, t: t)
            case .regionState(let id, let inside, _):
                if inside { out.region(id, event: "enter", initial: true, t: t) }
            case .regionEntered(let id, _):
                out.region(id, event: "enter", initial: false, t: t)
            case .regionExited(let id, _):
                out.region(id, event: "exit", initial: false, t: t)
            case .paused:
                out.simple("pause", t: t)
            case .resumed:
                out.simple("resume", t: t)
            case .error(let e, _):
                out.error(e, t: t)
                if e.code == .badInput {
                    out.summary(trace: trace, counts: simulator.counts, rankingChanges: rankingChanges, placesRejected: placeSet.rejected.count)
                    throw StrollExit.badInput
                }
            }
        }
        out.summary(trace: trace, counts: simulator.counts, rankingChanges: rankingChanges, placesRejected: placeSet.rejected.count)
        log.debug("replayed \(simulator.counts.generated) fixes: \(simulator.counts.delivered) delivered, \(simulator.counts.filteredTotal) filtered, \(rankingChanges) order changes")
        report.selected = map.selected
        try writeOutputs(report, active: active)
        if let statePath = command.state {
            let (before, _) = RememberedState.load(statePath)
            var state = before
            state.selected = map.selected
            state.sortMode = sortMode
            state.group = activeGroups.first
            do {
                try state.save(statePath)
            } catch {
                printError("warning: cannot write the state file \(statePath): \(error.localizedDescription)")
            }
        }
        if let path = command.record {
            do {
                try golden.write(to: path)
            } catch {
                printError("error: cannot write \(path): \(error.localizedDescription)")
                throw StrollExit.internalError
            }
        }
        if let path = command.verify {
            let expected: GoldenTimeline
            do {
                expected = try GoldenTimeline.read(path)
            } catch {
                printError("error: cannot read golden timeline \(path): \(error.localizedDescription)")
                throw FileManager.default.fileExists(atPath: path) ? StrollExit.badInput : StrollExit.missingInput
            }
            if let divergence = expected.firstDivergence(from: golden, names: names) {
                printError("verify: \(path): \(divergence)")
                throw StrollExit.checkFailed
            }
            printError("verify: \(path): \(golden.entries.count) order changes match")
        }
    }

    private func writeOutputs(_ report: RunReport, active: [Place]) throws {
        do {
            if let path = command.geojson {
                try TraceWriter.writeAtomically(report.geoJSON(places: active).text + "\n", to: path)
            }
            if let path = command.gpx {
                try TraceWriter.writeAtomically(TraceWriter.gpx(report.deliveredTrace()), to: path)
            }
            if command.svg != nil || command.html != nil {
                let map = RunMap(report: report, places: active, distanceFilter: command.settings.distanceFilter)
                if let path = command.svg {
                    try TraceWriter.writeAtomically(map.svg(), to: path)
                    log.debug("wrote \(path)")
                }
                if let path = command.html {
                    try TraceWriter.writeAtomically(map.html(), to: path)
                    log.debug("wrote \(path)")
                }
            }
        } catch {
            printError("error: cannot write output: \(error.localizedDescription)")
            throw StrollExit.internalError
        }
    }
}

/// What the map looked like after an update: what a `map` event reports.
struct MapSnapshot: Equatable {
    var region: MapRegion?
    var visible: [String]
    var selected: String?

    init(_ map: MapModel) {
        region = map.region
        visible = map.visible
        selected = map.selected
    }
}


