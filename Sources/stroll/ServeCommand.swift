import ArgumentParser
import Foundation
import LocationSimulation
import Logging
import Replay
import Serve
import Streets

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Replay a walk in real time to running software: gpsd's protocol, NMEA over TCP, a live web view.",
        discussion: """
        The walk is replayed on the wall clock at --speed, with the same simulation as \
        replay (accuracy, distance filter, noise, places, sorting). Each delivered fix goes to:
          --gpsd HOST:PORT  gpsd's JSON protocol (default 127.0.0.1:2947, or a
                            free port when that is taken): VERSION on connect,
                            ?WATCH, ?POLL, ?DEVICES, ?VERSION; TPV reports to
                            JSON watchers, NMEA sentences to "nmea":true
                            watchers. gpspipe -w, python3-gps and anything
                            else that reads gpsd can connect.
          --nmea HOST:PORT  NMEA 0183 over TCP: GGA, RMC, GSA and GST per fix,
                            checksummed (gpsd -N -n tcp://HOST:PORT, Android's
                            emulator, marine software).
          --http HOST:PORT  a live web view: the run's map with the walker
                            moving, the map region, the rankings re-sorting,
                            and buttons to pause, resume and change speed;
                            with --osm FILE the extract's streets and
                            footpaths are drawn under the walk.
        Port 0 picks a free port; the addresses are printed on standard output when \
        listening starts. A client that stops reading is dropped once 256 KiB wait for it.
        With --loop the walk starts again when it ends; otherwise serve ends with the walk. \
        Ctrl-C ends it cleanly. An address in use: exit 69.

        Examples:
          stroll serve traces/campus-loop.gpx --speed 10
          stroll serve --gpsd 127.0.0.1:2947 --nmea 127.0.0.1:10110 \\
              --http 127.0.0.1:8080 --loop
          gpspipe -w 127.0.0.1:2947
        """
    )

    @Argument(help: "GPX, CSV or any trace format (default: the bundled Lime Street to campus walk).")
    var trace: String?

    @OptionGroup var simulation: SimulationOptions

    @Option(help: ArgumentHelp("gpsd's JSON protocol on this address (default 127.0.0.1:2947, or a free port when taken).", valueName: "HOST:PORT"))
    var gpsd: String?

    @Option(help: ArgumentHelp("NMEA 0183 sentences over TCP on this address.", valueName: "HOST:PORT"))
    var nmea: String?

    @Option(help: ArgumentHelp("The live web view on this address.", valueName: "HOST:PORT"))
    var http: String?

    @Option(help: ArgumentHelp("Draw this OpenStreetMap extract's streets and footpaths (.osm.pbf or .osm) under the walk in the live view.", valueName: "FILE"))
    var osm: String?

    @Option(help: ArgumentHelp("Replay speed: a multiple of real time.", valueName: "X"))
    var speed: Double = 1

    @Flag(help: "Start the walk again when it ends.")
    var loop = false

    @Option(name: .customLong("wait-for-clients"), help: ArgumentHelp("Start the walk once this many clients listen (gpsd watchers, NMEA, web pages).", valueName: "N"))
    var waitForClients = 0

    @OptionGroup var logging: VerboseOption

    func validate() throws {
        guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be more than 0") }
        guard waitForClients >= 0 else { throw ValidationError("--wait-for-clients must be 0 or more") }
        for (name, value) in [("gpsd", gpsd), ("nmea", nmea), ("http", http)] {
            if let value, Endpoint(parsing: value) == nil { throw ValidationError("--\(name) takes HOST:PORT, not \(value)") }
        }
    }

    func run() async throws {
        let log = logging.logger("stroll.serve")
        let inputs = try simulation.load(trace: trace, log: log)
        let configuration = simulation.configuration(groups: inputs.activeGroups, regions: inputs.monitored, environments: inputs.environments,
                                                     sortMode: simulation.sort ?? .distance, select: inputs.selectID)
        let name = (inputs.tracePath as NSString).lastPathComponent
        @Sendable func makeReplay() throws -> Replay {
            try Replay(trace: inputs.trace, places: inputs.placeSet, configuration: configuration,
                       about: "stroll serve \(name), groups \(inputs.activeGroups.joined(separator: ", "))")
        }
        let first: Replay
        do {
            first = try makeReplay()
        } catch {
            throw failure("error: \(error)", StrollExit.usage)
        }
        var map = RunMap(report: RunReport(trace: inputs.trace, groups: first.groups), places: first.places, distanceFilter: simulation.settings.distanceFilter)
        if let osm { map.drawStreets(try loadStreetNetwork(osm).mapStreets(in: map.visibleBounds)) }
        var settings = LiveServer.Configuration(
            gpsd: gpsd.flatMap(Endpoint.init(parsing:)) ?? Endpoint(host: "127.0.0.1", port: 2947),
            nmea: nmea.flatMap(Endpoint.init(parsing:)),
            http: http.flatMap(Endpoint.init(parsing:)))
        settings.gpsdFallback = gpsd == nil
        settings.device = "stroll://\(name)"
        let control = ReplayControl()
        let server: LiveServer
        do {
            server = try await LiveServer.start(settings, page: LivePage(map: map, title: inputs.trace.name ?? name), control: control, speed: speed) { line in
                printError(line)
            }
        } catch {
            throw failure("error: \(error.description)", error.isAddressInUse ? StrollExit.unavailable : StrollExit.usage)
        }
        // Ctrl-C and SIGTERM are caught before the banner says the server is
        // up, so that one sent as soon as it is read ends the walk cleanly.
        let (interrupts, interrupt, sources) = Interrupts.stream()
        defer { sources.forEach { $0.cancel() } }
        // Written at once (not buffered): scripts and tests read the addresses from here.
        let banner = server.banner
            + "replaying \(name) at \(speed)x against \(count(first.places.count, "place"))\(loop ? ", looping" : "")\(waitForClients > 0 ? " once \(waitForClients) clients listen" : "")\n"
        FileHandle.standardOutput.write(Data(banner.utf8))
        let outcome = await LiveRun.run(server: server, speed: speed, control: control, loop: loop, waitForClients: waitForClients,
                                        until: interrupts, makeReplay: makeReplay)
        interrupt.finish()
        await server.shutdown()
        let dropped = server.droppedClients
        FileHandle.standardOutput.write(Data("\(outcome); \(dropped) slow clients dropped\n".utf8))
        if case .failed = outcome { throw StrollExit.internalError }
    }
}

extension ServeError {
    var isAddressInUse: Bool {
        if case .addressInUse = self { return true }
        return false
    }
}
