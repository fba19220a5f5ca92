import ArgumentParser
import Foundation
import Replay
import Geodesy
import LocationSimulation
import Map
import Proximity
import SpatialIndex
import Traces

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Per-update latency of proximity re-sorting, from 10 places to millions.",
        discussion: """
        Places are spread uniformly (seeded) over 6 km x 6 km around 53.4055, -2.9660. \
        A walk is replayed with the 25 m distance filter, back and forth as needed, for \
        at least 1000 delivered updates; each update computes, by variant:
          full            the exact order of all places and the distances of the first 20
          full-distances  that, and every distance
          moves           the minimal row moves between consecutive full orders
          topk            the --k nearest in exact order with distances
          region          the places inside a --region-span square centred on the walker
          map-pan         the map model's visible set as a delta (pins in, pins out) when a
                          --region-span region follows the walker (the places as pins)
          map-zoom        the same while the region also zooms out and in by a factor of 2
                          (with --cluster, the pins clustered: clusters in, clusters out)
          pipeline        one delivered fix through the simulator's filters, every group's
                          ranking and the map model to its JSON event lines, as stroll replay
                          --format jsonl prints them (the bundled 24 places, or --places N
                          in two groups)
        Orders are the exact WGS84 geodesic order of the command-line contract.

        Examples:
          stroll bench --places 100000 --variant topk
          stroll bench --places 1000 --json --dump-places places.csv
        """
    )

    @Option(name: .customLong("places"), help: "How many places (default 1000; pipeline: the bundled 24).")
    var placesOption: Int?

    var count: Int { placesOption ?? (variant == "pipeline" ? 24 : 1000) }

    @Option(help: ArgumentHelp("What each update computes.", valueName: "full|full-distances|moves|topk|region|map-pan|map-zoom|pipeline"))
    var variant: String = "full"

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

    @Option(name: .customLong("dump-regions"), help: ArgumentHelp("map-pan and map-zoom: write each update's region as CSV lat,lon,latDelta,lonDelta,zoom.", valueName: "FILE"))
    var dumpRegions: String?

    func validate() throws {
        guard ["full", "full-distances", "moves", "topk", "region", "map-pan", "map-zoom", "pipeline"].contains(variant) else {
            throw ValidationError("--variant must be full, full-distances, moves, topk, region, map-pan, map-zoom or pipeline")
        }
        guard count >= 1 else { throw ValidationError("--places must be at least 1") }
        guard k >= 1 else { throw ValidationError("--k must be at least 1") }
        guard regionSpan > 0, regionSpan.isFinite else { throw ValidationError("--region-span must be more than 0") }
        guard mapWidth > 0, mapWidth.isFinite, mapWidth <= 100_000 else { throw ValidationError("--map-width must be more than 0 and at most 100000 points") }
        guard threads >= 1, threads <= 64 else { throw ValidationError("--threads must be 1 to 64") }
        guard !cluster || variant.hasPrefix("map-") else { throw ValidationError("--cluster goes with --variant map-pan or map-zoom") }
    }

    static let centre = (latitude: 53.4055, longitude: -2.9660)

    /// The monotonic clock in nanoseconds, read as the C floor reads it
    /// (`clock_gettime`, without libdispatch's wrapper around it).
    @inline(__always)
    static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(truncatingIfNeeded: t.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: t.tv_nsec)
    }

    /// The benchmark's places: uniform in 6 km x 6 km around the centre, from `seed`.
    static func places(count: Int, seed: UInt64) -> [Coordinate] {
        var rng = SeededGenerator(seed: seed)
        let span = Ellipsoid.wgs84.degrees(metresNorthSouth: 6000, metresEastWest: 6000, atLatitude: centre.latitude)
        return (0..<count).map { _ in
            let lat = centre.latitude + (Double(rng.next() >> 11) / 9_007_199_254_740_992 - 0.5) * span.latitudeDelta
            let lon = centre.longitude + (Double(rng.next() >> 11) / 9_007_199_254_740_992 - 0.5) * span.longitudeDelta
            return Coordinate(computedLatitude: lat, longitude: lon)
        }
    }

    /// Walker positions: the walk's delivered fixes with the 25 m filter, back and forth to at least `minimum`.
    static func walker(tracePath: String, minimum: Int) throws -> [Coordinate] {
        let trace: Trace
        do {
            trace = try TraceReader.read(tracePath)
        } catch {
            printError(error.description)
            throw error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput
        }
        var simulator = try LocationSimulator(trace: trace)
        var path: [Coordinate] = []
        while let e = simulator.next() { if case .location(let l) = e { path.append(l.coordinate) } }
        guard path.count >= 2 else {
            printError("\(tracePath): the walk delivers fewer than two fixes")
            throw StrollExit.badInput
        }
        var positions = path
        var forward = false
        while positions.count < minimum {
            positions += (forward ? path : path.reversed()).dropFirst()
            forward.toggle()
        }
        return positions
    }

    /// On a terminal: the phase and the updates done, elapsed and left (standard error).
    var progress: ProgressLine { Self.progressLine }
    private static let progressLine = ProgressLine()

    /// Draws "update K of N" after an update (outside its timing).
    func updated(_ done: Int, of total: Int, samples: [Double]) {
        guard progress.live else { return }
        progress.update {
            let elapsed = progress.elapsed
            let left = done > 0 && done < total ? ", about \(EventWriter.clock(elapsed / Double(done) * Double(total - done))) left" : ""
            let last = samples.last.map { String(format: ", last %.1f µs", $0) } ?? ""
            return "\(variant) over \(count) places: update \(done) of \(total)\(last), elapsed \(EventWriter.clock(elapsed))\(left)"
        }
    }

    func run() throws {
        if variant == "pipeline" { return try pipeline() }
        progress.phase { "making \(count) places" }
        let coordinates = Self.places(count: count, seed: seed)
        let ids = coordinates.indices.map { "p\($0)" }
        if let path = dumpPlaces {
            var text = "id,latitude,longitude\n"
            for (id, c) in zip(ids, coordinates) { text += "\(id),\(c.latitude),\(c.longitude)\n" }
            do {
                try TraceWriter.writeAtomically(text, to: path)
            } catch {
                printError("error: cannot write \(path): \(error.localizedDescription)")
                throw StrollExit.internalError
            }
        }
        let positions = try Self.walker(tracePath: trace ?? Bundled.path(Bundled.walk), minimum: 1000)
        if variant.hasPrefix("map-") {
            let result = mapSamples(coordinates: coordinates, ids: ids, positions: positions)
            // The index alone, without making the pins: the grid, or the cluster tree over every zoom.
            let t0 = Self.now()
            let built = cluster ? ClusterTree(coordinates: coordinates, pins: Array(coordinates.indices), settings: ClusterSettings(mapWidth: mapWidth)).levels.count
                : PointGrid(coordinates).rows
            let indexMs = Double(Self.now() - t0) / 1e6
            return report((result.0, result.1, result.2, result.3 + Double(built)), indexMs: indexMs)
        }
        progress.phase { "building the index over \(count) places" }
        let buildStart = Self.now()
        var index = RankingIndex(coordinates: coordinates, names: ids, ids: ids)
        index.threads = threads
        let buildMs = Double(Self.now() - buildStart) / 1e6
        var samples: [Double] = []
        samples.reserveCapacity(positions.count)
        var nearest: [(index: Int, distance: Double)] = []
        var inside: [Int] = []
        var diff = OrderDiff()
        diff.threads = threads
        var moves: [RowMove] = []
        var previous: [UInt32] = []
        var sink = 0.0
        // The variant decided once, so that no string is compared inside the timed updates.
        let ranksAll = ["full", "full-distances", "moves"].contains(variant), findsMoves = variant == "moves", nearestOnly = variant == "topk"
        let shown = variant == "full-distances" ? index.count : min(20, index.count)
        for walker in positions {
            let t0 = Self.now()
            switch (ranksAll, nearestOnly) {
            case (true, _):
                // Moves: half the distances on the diff's spinning thread while it waits (one thread with --threads 1).
                if findsMoves { index.rankAll(from: walker, beside: diff) } else { index.rankAll(from: walker) }
                // Four partial sums taking turns, so that the checksum's own additions do not form one chain.
                var sums = (0.0, 0.0, 0.0, 0.0)
                for r in 0..<shown { sums = (sums.1, sums.2, sums.3, sums.0 + index.distance(atRank: r)) }
                sink += (sums.0 + sums.1) + (sums.2 + sums.3)
                if findsMoves {
                    if !previous.isEmpty { diff.moves(from: previous, to: index.order, into: &moves) }
                    sink += Double(moves.count)
                    // Copied into the buffer it already has: assigning would share the order's storage,
                    // and the next ranking would then copy it to a new allocation.
                    previous.removeAll(keepingCapacity: true)
                    previous.append(contentsOf: index.order)
                }
            case (false, true):
                index.nearest(k, from: walker, into: &nearest)
                sink += nearest.last?.distance ?? 0
            default:
                let span = Ellipsoid.wgs84.degrees(metresNorthSouth: regionSpan, metresEastWest: regionSpan, atLatitude: walker.latitude)
                index.inside(center: walker, latitudeDelta: span.latitudeDelta, longitudeDelta: span.longitudeDelta, into: &inside)
                sink += Double(inside.count)
            }
            samples.append(Double(Self.now() - t0) / 1000)
            updated(samples.count, of: positions.count, samples: samples)
        }
        report((samples, buildMs, index.bytesPerPlace, sink))
    }

    /// The map variants: pins at the places, a region of --region-span following the
    /// walker (map-zoom: twice as wide every other update), answered as deltas.
    func mapSamples(coordinates: [Coordinate], ids: [String], positions: [Coordinate]) -> ([Double], Double, Double, Double) {
        progress.phase { "adding \(coordinates.count) pins\(cluster ? " and clustering them" : "")" }
        let buildStart = Self.now()
        var map = MapModel()
        map.indexThreshold = 0
        _ = map.add(zip(ids, coordinates).map { Annotation(id: $0, coordinate: $1, title: $0, clusteringIdentifier: cluster ? "pins" : nil) })
        let settings = ClusterSettings(mapWidth: mapWidth)
        if cluster { _ = map.setClustering(settings) }
        var delta = VisibleDelta()
        delta.added.reserveCapacity(coordinates.count)
        delta.removed.reserveCapacity(coordinates.count)
        delta.clustersAdded.reserveCapacity(coordinates.count)
        delta.clustersRemoved.reserveCapacity(coordinates.count)
        map.setRegion(MapRegion(center: positions[0], latitudinalMeters: regionSpan, longitudinalMeters: regionSpan), delta: &delta)
        let buildMs = Double(Self.now() - buildStart) / 1e6
        var samples: [Double] = []
        samples.reserveCapacity(positions.count)
        var sink = 0.0
        var regions = ""
        for (k, walker) in positions.dropFirst().enumerated() {
            let span = variant == "map-zoom" && k % 2 == 0 ? regionSpan * 2 : regionSpan
            let region = MapRegion(center: walker, latitudinalMeters: span, longitudinalMeters: span)
            if dumpRegions != nil {
                regions += "\(region.center.latitude),\(region.center.longitude),\(region.latitudeDelta),\(region.longitudeDelta),\(settings.level(of: region))\n"
            }
            let t0 = Self.now()
            map.setRegion(region, delta: &delta)
            samples.append(Double(Self.now() - t0) / 1000)
            updated(samples.count, of: positions.count - 1, samples: samples)
            sink += Double(delta.added.count - delta.removed.count + delta.clustersAdded.count - delta.clustersRemoved.count)
        }
        if let path = dumpRegions {
            do {
                try TraceWriter.writeAtomically("lat,lon,latDelta,lonDelta,zoom\n" + regions, to: path)
            } catch {
                printError("error: cannot write \(path): \(error.localizedDescription)")
            }
        }
        return (samples, buildMs, map.indexBytesPerPin, sink + Double(map.visibleCount))
    }

    /// The whole pipeline per delivered fix: the replay's events for it (filter,
    /// every group's ranking, the map) each made into its JSON line, timed from
    /// the delivered fix to the last line before the next one. The walk is
    /// replayed again (set-up untimed) until at least 1000 fixes are measured.
    func pipeline() throws {
        var set = PlaceSet()
        var groups: [String]
        let buildStart = Self.now()
        if let n = placesOption {
            let coordinates = Self.places(count: n, seed: seed)
            set = PlaceSet(places: coordinates.enumerated().map { i, c in
                Place(id: "p\(i)", name: "Place \(i)", coordinate: c, group: i % 2 == 0 ? "cafes" : "theatres")
            }, groups: ["cafes", "theatres"])
            groups = n > 1 ? ["cafes", "theatres"] : ["cafes"]
        } else {
            for file in [Bundled.coffeeHouses, Bundled.lectureTheatres] {
                do {
                    set.merge(try PlaceSet.load(Bundled.path(file)))
                } catch {
                    printError(error.description)
                    throw StrollExit.missingInput
                }
            }
            groups = Bundled.groups
        }
        let tracePath = trace ?? Bundled.path(Bundled.walk)
        let walk: Trace
        do {
            walk = try TraceReader.read(tracePath)
        } catch {
            printError(error.description)
            throw error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput
        }
        var configuration = ReplayConfiguration()
        configuration.groups = groups
        configuration.follow = true
        func makeReplay() throws -> Replay {
            do {
                return try Replay(trace: walk, places: set, configuration: configuration)
            } catch {
                printError("error: \(error.description)")
                throw StrollExit.badInput
            }
        }
        var replay = try makeReplay()
        let buildMs = Double(Self.now() - buildStart) / 1e6
        var samples: [Double] = []
        samples.reserveCapacity(1100)
        var bytes = 0
        var current = 0.0
        var open = false
        while samples.count < 1000 {
            let t0 = Self.now()
            guard let event = replay.next() else {
                if open { samples.append(current) }
                open = false
                current = 0
                replay = try makeReplay()
                continue
            }
            let line = event.jsonLine
            let took = Double(Self.now() - t0) / 1000
            bytes += line.utf8.count
            if case .location = event {
                if open { samples.append(current) }
                open = true
                current = 0
            }
            current += took
            if case .location = event { updated(samples.count, of: 1000, samples: samples) }
        }
        report((samples, buildMs, 0, Double(bytes)))
    }

    /// The threads the variant's updates run on (moves: the longest run's two halves, and
    /// the distances', from `OrderDiff.splitFrom` rows, the rest from `RankingIndex.parallelThreshold`).
    var threadsUsed: Int {
        guard ["full", "full-distances", "moves"].contains(variant) else { return 1 }
        if count >= RankingIndex.parallelThreshold { return threads }
        return variant == "moves" && count >= OrderDiff.splitFrom ? min(threads, 2) : 1
    }

    func report(_ result: ([Double], Double, Double, Double), indexMs: Double? = nil) {
        let (samples, buildMs, bytesPerPlace, sink) = result
        progress.clear()
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))] }
        let mean = samples.reduce(0, +) / Double(samples.count)
        let p50 = percentile(0.5), p99 = percentile(0.99)
        let perSecond = 1e6 / mean
        if json {
            print(JSON.object([("variant", .string(variant)), ("places", .int(count)), ("updates", .int(samples.count)),
                               ("p50_us", .number(p50)), ("p99_us", .number(p99)), ("mean_us", .number(mean)),
                               ("updates_per_s", .number(perSecond)), ("build_ms", .number(buildMs)),
                               ("bytes_per_place", .number(bytesPerPlace)), ("checksum", .number(sink)), ("threads", .int(threadsUsed))]
                              + (indexMs.map { [("index_ms", JSON.number($0))] } ?? [])).text)
        } else {
            print("\(variant) over \(count) places, \(samples.count) updates: "
                  + String(format: "p50 %.2f µs, p99 %.2f µs, mean %.2f µs, %.0f updates/s; index built in %.1f ms (%.0f bytes/place)",
                           p50, p99, mean, perSecond, buildMs, bytesPerPlace)
                  + (indexMs.map { String(format: "; the index alone %.1f ms", $0) } ?? "") + (threadsUsed > 1 ? "; \(threadsUsed) threads" : ""))
        }
    }
}
