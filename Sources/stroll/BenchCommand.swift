import ArgumentParser
import BenchmarkWorkload
import Foundation
import Geodesy
import Proximity
import Traces

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Per-update latency of proximity re-sorting, from 10 places to millions.",
        discussion: """
        Places are spread uniformly (seeded) over 6 km x 6 km around 53.4055, -2.9660. \
        A walk is replayed with the 25 m distance filter, back and forth as needed, for \
        at least 1000 delivered updates (the proximity variants: after one untimed update, \
        passes over them, forwards and backwards in turn, until 0.3 s of updates are timed, \
        as perf-floor's C program times its own); each update computes, by variant:
          full            the exact order of all places and the distances of
                          the first 20
          full-distances  that, and every distance
          moves           the minimal row moves between consecutive full orders
          topk            the --k nearest in exact order with distances
          region          the places inside a --region-span square centred on
                          the walker
          map-pan         the map model's visible set as a delta (pins in, pins
                          out) when a --region-span region follows the walker
                          (the places as pins)
          map-zoom        the same while the region also zooms out and in by a
                          factor of 2 (with --cluster, the pins clustered:
                          clusters in, clusters out)
          pipeline        one delivered fix through the simulator's filters,
                          every group's ranking and the map model to its JSON
                          event lines, as stroll replay --format jsonl prints
                          them (the bundled 24 places, or --places N in two
                          groups)
          route           the shortest walking route between two random nodes
                          of --osm's walking network, snapping included
                          (--places N queries, default 1000), after the
                          network's build time and peak resident memory; with
                          --pairs FILE, the routes between the pairs it lists
                          instead
        Orders are the exact WGS84 geodesic order of the command-line contract.

        Examples:
          stroll bench --places 100000 --variant topk
          stroll bench --places 1000 --json --dump-places places.csv
          stroll bench --variant route --osm Fixtures/osm/monaco-latest.osm.pbf
        """
    )

    @Option(name: .customLong("places"), help: "How many places (default 1000; pipeline: the bundled 24).")
    var placesOption: Int?

    var count: Int { placesOption ?? (variant == "pipeline" ? 24 : 1000) }

    @Option(help: ArgumentHelp("What each update computes.", valueName: "full|full-distances|moves|topk|region|map-pan|map-zoom|pipeline|route"))
    var variant: String = "full"

    @Option(help: ArgumentHelp("route: the OpenStreetMap extract whose walking network is routed on.", valueName: "FILE"))
    var osm: String?

    @Option(help: ArgumentHelp("route: time the routes between these pairs instead of --places N random nodes: a pair a line, FROM and TO (LAT,LON or a place name) separated by a tab, as `stroll route -` reads them.", valueName: "FILE"))
    var pairs: String?

    @Option(help: "How many nearest places for topk.")
    var k: Int = 20

    @Option(name: .customLong("region-span"), help: ArgumentHelp("Side of the region square for region, metres.", valueName: "METRES"))
    var regionSpan: Double = 1000

    @Option(help: ArgumentHelp("The walk (default: the bundled Lime Street to campus walk).", valueName: "FILE"))
    var trace: String?

    @Option(help: "Seed for the places.")
    var seed: UInt64 = 1

    @Flag(help: "One JSON object: variant, places, updates, p50_us, p99_us, mean_us, updates_per_s, build_ms.")
    var json = false

    @Option(name: .customLong("dump-places"), help: ArgumentHelp("Write the places as CSV id,latitude,longitude.", valueName: "FILE"))
    var dumpPlaces: String?

    @Option(help: ArgumentHelp("Threads for the full order (full, full-distances, moves) from 200 000 places on, and for moves from 8192 places: the two halves of the minimal moves, and the distance pass before them; default: every core. The other variants use one.", valueName: "N"))
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "map-pan and map-zoom: the pins share a clustering identifier and are drawn clustered.")
    var cluster = false

    @Option(name: .customLong("map-width"), help: ArgumentHelp("map-pan and map-zoom with --cluster: the map's width in points.", valueName: "POINTS"))
    var mapWidth: Double = 390

    @Option(name: .customLong("dump-lines"), help: ArgumentHelp("pipeline: write the JSON lines of one replay of the walk, the lines each update encodes (Benchmarks/pipeline-floor formats them in C).", valueName: "FILE"))
    var dumpLines: String?

    @Option(name: .customLong("dump-regions"), help: ArgumentHelp("map-pan and map-zoom: write each update's region as CSV lat,lon,latDelta,lonDelta,zoom.", valueName: "FILE"))
    var dumpRegions: String?

    func validate() throws {
        guard ["full", "full-distances", "moves", "topk", "region", "map-pan", "map-zoom", "pipeline", "route"].contains(variant) else {
            throw ValidationError("--variant must be full, full-distances, moves, topk, region, map-pan, map-zoom, pipeline or route")
        }
        guard (variant == "route") == (osm != nil) else { throw ValidationError("--osm FILE goes with --variant route, and route needs it") }
        guard pairs == nil || variant == "route" else { throw ValidationError("--pairs FILE goes with --variant route") }
        guard count >= 1 else { throw ValidationError("--places must be at least 1") }
        guard k >= 1 else { throw ValidationError("--k must be at least 1") }
        guard regionSpan > 0, regionSpan.isFinite else { throw ValidationError("--region-span must be more than 0") }
        guard mapWidth > 0, mapWidth.isFinite, mapWidth <= 100_000 else { throw ValidationError("--map-width must be more than 0 and at most 100000 points") }
        guard threads >= 1, threads <= 64 else { throw ValidationError("--threads must be 1 to 64") }
        guard !cluster || variant.hasPrefix("map-") else { throw ValidationError("--cluster goes with --variant map-pan or map-zoom") }
    }

    /// The walker's positions; a walk that cannot drive the benchmark is an error naming it.
    func positions() throws -> [Coordinate] {
        let path = trace ?? Bundled.path(Bundled.walk)
        do {
            return try BenchmarkWorkload.walker(tracePath: path, minimum: 1000)
        } catch {
            throw failure(error.description, error.unreadable ? StrollExit.missingInput : StrollExit.badInput)
        }
    }

    /// On a terminal: the phase and the updates done, elapsed and left (standard error).
    var progress: ProgressLine { Self.progressLine }
    private static let progressLine = ProgressLine()

    /// Draws "update K of N" after an update (outside its timing).
    func updated(_ done: Int, of total: Int, samples: [Double]) {
        guard progress.live else { return }
        progress.update {
            let elapsed = progress.elapsed
            let left = done > 0 && done < total ? ", about \(ElapsedTime.clock(elapsed / Double(done) * Double(total - done))) left" : ""
            let last = samples.last.map { String(format: ", last %.1f µs", $0) } ?? ""
            return "\(variant) over \(count) places: update \(done) of \(total)\(last), elapsed \(ElapsedTime.clock(elapsed))\(left)"
        }
    }

    func run() throws {
        #if DEBUG
        printError("warning: this stroll is a debug build, several times slower than a release build: "
                   + "time a release build (`make build`, or `swift build -c release`)")
        #endif
        if variant == "pipeline" { return try pipeline() }
        if variant == "route" { return try route() }
        progress.phase { "making \(count) places" }
        let coordinates = BenchmarkWorkload.places(count: count, seed: seed)
        let ids = coordinates.indices.map { "p\($0)" }
        if let path = dumpPlaces {
            var text = "id,latitude,longitude\n"
            for (id, c) in zip(ids, coordinates) { text += "\(id),\(c.latitude),\(c.longitude)\n" }
            try write(text, to: path)
        }
        let positions = try positions()
        if variant.hasPrefix("map-") {
            progress.phase { "adding \(coordinates.count) pins\(cluster ? " and clustering them" : "")" }
            let (result, regions) = MapBenchmark.run(variant: variant, coordinates: coordinates, ids: ids, positions: positions, regionSpan: regionSpan,
                                                     cluster: cluster, mapWidth: mapWidth, keepRegions: dumpRegions != nil, progress: updated)
            if let path = dumpRegions { try write("lat,lon,latDelta,lonDelta,zoom\n" + regions, to: path) }
            return report(result)
        }
        progress.phase { "building the index over \(count) places" }
        report(ProximityBenchmark.run(variant: variant, coordinates: coordinates, ids: ids, positions: positions, threads: threads,
                                      k: k, regionSpan: regionSpan, progress: updated))
    }

    /// The whole pipeline per delivered fix (PipelineBenchmark), over the bundled places or --places N.
    func pipeline() throws {
        do {
            report(try PipelineBenchmark.run(tracePath: trace ?? Bundled.path(Bundled.walk), placeFiles: [Bundled.coffeeHouses, Bundled.lectureTheatres].map(Bundled.path),
                                             groups: Bundled.groups, count: placesOption, seed: seed, lines: dumpLines, progress: updated))
        } catch {
            throw failure(error.description, error.unreadable ? StrollExit.missingInput : StrollExit.badInput)
        }
    }

    private func write(_ text: String, to path: String) throws {
        do {
            try TraceWriter.writeAtomically(text, to: path)
        } catch {
            throw failure("error: cannot write \(path): \(ErrorWords.reason(error))", StrollExit.internalError)
        }
    }

    func report(_ result: BenchmarkSamples) {
        progress.clear()
        let threadsUsed = ProximityBenchmark.threadsUsed(variant: variant, places: count, threads: threads)
        print(json ? result.json(variant: variant, places: count, threads: threadsUsed).text : result.line(variant: variant, places: count, threads: threadsUsed))
    }
}
