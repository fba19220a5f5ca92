import ArgumentParser
import Foundation
import Logging
import LocationSimulation
import PlaceSources
import Proximity
import Replay
import Traces

/// The inputs the options name, loaded and checked.
struct SimulationInputs {
    let tracePath: String
    let trace: Trace
    let placeSet: PlaceSet
    let activeGroups: [String]
    let monitored: [MonitoredRegion]
    let selectID: String?
    let environments: [EnvironmentArea]
}

extension SimulationOptions {
    /// Reads the trace, the places and the regions, and resolves the groups and
    /// the selection; errors are printed and become the contract's exit codes.
    /// `onTraceError` runs before a trace that cannot be read ends the command.
    /// A `routed` walk (`replay --route`), named by its label, is replayed instead of a trace file.
    func load(trace: String?, routed: (label: String, trace: Trace)? = nil, log: Logger, onTraceError: (TraceError) -> Void = { _ in }) throws -> SimulationInputs {
        let tracePath = routed?.label ?? trace ?? Bundled.path(Bundled.walk)
        let trace: Trace
        if let routed {
            trace = routed.trace
        } else {
            log.debug("reading trace \(tracePath)")
            do {
                trace = try TraceReader.read(tracePath)
            } catch {
                printError("error: " + error.description)
                onTraceError(error)
                throw error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput
            }
        }
        log.debug("trace: \(trace.replaySegments.count) segments, \(trace.replaySegments.map(\.fixes.count).reduce(0, +)) fixes, \(trace.rejected.count) rejected")
        for note in trace.notes { log.info("\(note)") }
        let (set, activeGroups, monitored, selectID) = try loadPlaces(log: log)
        let areas = try loadEnvironments()
        log.debug("active groups: \(activeGroups.joined(separator: ", ")); accuracy \(accuracy) m, distance filter \(distanceFilter), rate \(rate) Hz, noise \(effectiveNoise.rawValue) (seed \(seed)), environment \(environment ?? "none"), \(areas.count) environment areas")
        return SimulationInputs(tracePath: tracePath, trace: trace, placeSet: set, activeGroups: activeGroups, monitored: monitored, selectID: selectID,
                                environments: areas)
    }

    /// The places, the active groups, the monitored regions and the selection, checked.
    func loadPlaces(log: Logger) throws -> (PlaceSet, [String], [MonitoredRegion], String?) {
        var set = PlaceSet()
        let placeFiles = places.isEmpty ? [Bundled.path(Bundled.coffeeHouses), Bundled.path(Bundled.lectureTheatres)] : places
        for file in placeFiles {
            let loaded = try Self.loadPlaceFile(file, choice: placeChoice)
            if loaded.places.isEmpty {
                printError("warning: \(file): no places\(loaded.rejected.isEmpty ? "" : " (\(loaded.rejected.count) rejected, below)"): nothing to rank from it")
            }
            set.merge(loaded)
        }
        for r in set.rejected { printError("warning: \(r.description)") }
        log.debug("places: \(set.places.count) in groups \(set.groups.joined(separator: ", ")); \(set.rejected.count) rejected")
        let activeGroups: [String]
        do {
            activeGroups = try set.groups(chosen: groups, defaults: places.isEmpty ? Bundled.groups : nil)
        } catch {
            throw failure("error: \(error)", StrollExit.usage)
        }
        let monitored: [MonitoredRegion]
        if let file = regions {
            do {
                monitored = try MonitoredRegion.loadGeoJSON(file)
            } catch {
                throw failure(error.description, error.unreadable ? StrollExit.missingInput : StrollExit.badInput)
            }
        } else {
            monitored = []
        }
        let active = try set.places(inGroups: activeGroups)
        var selectID: String?
        if let wanted = select {
            do {
                selectID = try Replay.resolve(wanted, among: active)
            } catch {
                throw failure("error: \(error.description)", StrollExit.usage)
            }
        }
        return (set, activeGroups, monitored, selectID)
    }

    static func exitCode(_ failure: PlaceSourceFailure) -> ExitCode {
        switch failure {
        case .unreadable: StrollExit.missingInput
        case .badData: StrollExit.badInput
        case .usage: StrollExit.usage
        }
    }

    /// One place source of any kind, through ``PlaceSources``; its notes and
    /// errors are printed, and its failures become the contract's exit codes.
    static func loadPlaceFile(_ file: String, choice: PlaceChoice) throws -> PlaceSet {
        do {
            let (set, notes) = try PlaceSources.load(file, options: choice.options)
            for note in notes { printError(note) }
            return set
        } catch {
            throw failure(error.message, exitCode(error.kind))
        }
    }
}
