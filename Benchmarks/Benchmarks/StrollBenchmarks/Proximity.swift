import Benchmark
import BenchmarkWorkload
import Foundation
import Geodesy
import LocationSimulation
import Map
import Proximity
import Traces

/// The `stroll bench` workload (BenchmarkWorkload): places uniform over 6 km x 6 km
/// around Liverpool, from seed 1 as `stroll bench` by default.
func benchmarkPlaces(_ n: Int) -> [Coordinate] { BenchmarkWorkload.places(count: n, seed: 1) }

/// The repository's root, for the bundled walks.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The walker of `stroll bench`: the bundled Lime Street walk, back and forth to at least `minimum` positions.
func walkerPositions(_ minimum: Int) -> [Coordinate] {
    do {
        return try BenchmarkWorkload.walker(tracePath: repositoryRoot.appendingPathComponent("traces/lime-street-to-campus.gpx").path, minimum: minimum)
    } catch {
        fatalError("the bundled walk does not drive the benchmark: \(error.description)")
    }
}

/// Updates before the clock from 100 000 places, where a sample is one update after building
/// the index: the build, on one thread, leaves the other core idle, and the first updates
/// after it run slower (the other core waking, the caches holding the build's data) than the
/// updates of a replay, which follow one another. With one update before the clock the suite
/// read the full order of a million places on two threads well above `stroll bench`'s p50;
/// with four, the two agree within the machine's noise.
let warmUpdates = 4

func registerProximity() {
    let sizes = [10, 100, 1000, 10_000, 100_000, 1_000_000]
    let walk = walkerPositions(1000)
    for n in sizes {
        let big = n >= 100_000
        let places = benchmarkPlaces(n)
        // Up to 10 000 places a sample is 1000 updates (the figures are per update): one update there
        // takes well under the framework's own cost of a sample (under a microsecond), which
        // would otherwise be most of what is measured; and at 10 000 the minimal moves' second thread,
        // which spins between diffs, stays awake from one update to the next as in a replay (a sample of
        // one update would time it just started).
        let configuration = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal, .throughput],
                                                    scalingFactor: n <= 10_000 ? .kilo : .one, maxDuration: .seconds(big ? 10 : 3), maxIterations: big ? 60 : 100_000)
        // Every core (the default: split from 200 000 places on), and one thread at the sizes where that differs.
        for threads in big ? [0, 1] : [0] {
            Benchmark("Proximity full N=\(n)" + (threads == 1 ? " threads=1" : ""), configuration: configuration) { benchmark in
                var index = RankingIndex(coordinates: places)
                if threads > 0 { index.threads = threads }
                // Each sample builds its index; one update before the clock starts touches the
                // buffers' pages (a fresh index's first update pays the page faults) and picks
                // the sample's place along the walk, so that samples cover the walk as stroll bench does.
                // From 100 000 places (a sample of one update), ``warmUpdates``.
                var step = Int.random(in: 0..<walk.count)
                for _ in 0..<(big ? warmUpdates : 1) {
                    index.rankAll(from: walk[step % walk.count])
                    step += 1
                }
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    index.rankAll(from: walk[step % walk.count])
                    blackHole(index.distance(atRank: min(19, n - 1)))
                    step += 1
                }
            }
        }
        Benchmark("Proximity moves N=\(n)", configuration: configuration) { benchmark in
            var index = RankingIndex(coordinates: places)
            var diff = OrderDiff()
            var moves: [RowMove] = []
            // Two updates and a diff before the clock starts, as for the full order (from 100 000 places, ``warmUpdates`` diffs).
            var step = Int.random(in: 0..<walk.count)
            index.rankAll(from: walk[step % walk.count])
            var previous = index.order
            for _ in 0..<(big ? warmUpdates : 1) {
                step += 1
                index.rankAll(from: walk[step % walk.count])
                diff.moves(from: previous, to: index.order, into: &moves)
                previous.removeAll(keepingCapacity: true)
                previous.append(contentsOf: index.order)
            }
            step += 1
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                // Half the distances on the diff's spinning thread while it waits, as stroll bench does.
                index.rankAll(from: walk[step % walk.count], beside: diff)
                diff.moves(from: previous, to: index.order, into: &moves)
                previous.removeAll(keepingCapacity: true)    // a copy into its own buffer, as stroll bench does
                previous.append(contentsOf: index.order)
                blackHole(moves.count)
                step += 1
            }
        }
        Benchmark("Proximity topk20 N=\(n)", configuration: configuration) { benchmark in
            let index = RankingIndex(coordinates: places)
            var found: [(index: Int, distance: Double)] = []
            var step = Int.random(in: 0..<walk.count)
            index.nearest(20, from: walk[step], into: &found)      // warm, as for the full order
            step += 1
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                index.nearest(20, from: walk[step % walk.count], into: &found)
                blackHole(found.count)
                step += 1
            }
        }
        Benchmark("Proximity region1km N=\(n)", configuration: configuration) { benchmark in
            let index = RankingIndex(coordinates: places)
            var inside: [Int] = []
            var step = Int.random(in: 0..<walk.count)
            func query(_ w: Coordinate) {
                let span = Ellipsoid.wgs84.degrees(metresNorthSouth: 1000, metresEastWest: 1000, atLatitude: w.latitude)
                index.inside(center: w, latitudeDelta: span.latitudeDelta, longitudeDelta: span.longitudeDelta, into: &inside)
            }
            query(walk[step])                                       // warm, as for the full order
            step += 1
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                query(walk[step % walk.count])
                blackHole(inside.count)
                step += 1
            }
        }
    }

    for n in [1000, 100_000] {
        for (label, threshold) in [("linear scan", Int.max), ("grid", 0)] {
            Benchmark("Map visible-set update N=\(n) (\(label), full list)", configuration: .init(metrics: [.wallClock, .mallocCountTotal])) { benchmark in
                var map = MapModel()
                map.indexThreshold = threshold
                _ = map.add(benchmarkPlaces(n).enumerated().map { Annotation(id: "p\($0)", coordinate: $1, title: "p\($0)") })
                var step = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(map.setRegion(MapRegion(center: walk[step % walk.count], latitudinalMeters: 1000, longitudinalMeters: 1000)))
                    step += 1
                }
            }
        }
    }

    // The 1 km region following the walker, answered as a delta (pins in, pins out); and the same
    // with every pin clustered (one clustering identifier, 390-point map, radius 40 points: zoom 15).
    for clustered in [false, true] {
        for n in [1000, 100_000, 1_000_000] {
            let name = clustered ? "Map clustered pan delta N=\(n) (1 km region, zoom 15)" : "Map pan delta N=\(n) (grid, 1 km region)"
            Benchmark(name, configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(10))) { benchmark in
                var map = MapModel()
                map.indexThreshold = 0
                _ = map.add(benchmarkPlaces(n).enumerated().map { Annotation(id: "p\($0)", coordinate: $1, title: "p\($0)", clusteringIdentifier: clustered ? "pins" : nil) })
                if clustered { _ = map.setClustering(ClusterSettings()) }
                var delta = VisibleDelta()
                delta.added.reserveCapacity(n)
                delta.removed.reserveCapacity(n)
                delta.clustersAdded.reserveCapacity(n)
                delta.clustersRemoved.reserveCapacity(n)
                map.setRegion(MapRegion(center: walk[0], latitudinalMeters: 1000, longitudinalMeters: 1000), delta: &delta)
                var step = 1
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    map.setRegion(MapRegion(center: walk[step % walk.count], latitudinalMeters: 1000, longitudinalMeters: 1000), delta: &delta)
                    blackHole(delta.added.count + delta.removed.count + delta.clustersAdded.count + delta.clustersRemoved.count)
                    step += 1
                }
                // Taking the map apart is not part of a pan.
                benchmark.stopMeasurement()
                withExtendedLifetime(map) {}
            }
        }
    }

    let walkPath = repositoryRoot.appendingPathComponent("traces/pier-head-to-guild.gpx").path

    Benchmark("Simulated manager: fixes through timeline, sensor and filters (throughput = fixes/s)",
              configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
        let trace = try TraceReader.read(walkPath)
        var settings = LocationSettings()
        settings.distanceFilter = 25
        var simulator = try LocationSimulator(trace: trace, settings: settings, sensor: SensorOptions(noise: .gaussian, seed: 1))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            if simulator.next() == nil {
                simulator = try LocationSimulator(trace: trace, settings: settings, sensor: SensorOptions(noise: .gaussian, seed: 1))
            }
        }
    }

    Benchmark("End to end: replay Pier Head to the Guild against the coffee houses and lecture theatres",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal])) { benchmark in
        let trace = try TraceReader.read(walkPath)
        let places = try PlaceSet.load(repositoryRoot.appendingPathComponent("Fixtures/CityCycleRideLocations.plist").path).places(inGroups: ["liverpool"])
            + (try PlaceSet.load(repositoryRoot.appendingPathComponent("Fixtures/lecture-theatres.json").path).places)
        for _ in benchmark.scaledIterations {
            var simulator = try LocationSimulator(trace: trace)
            var engine = ProximityEngine(places: places)
            var changes = 0
            while let event = simulator.next() {
                if case .location(let l) = event, engine.update(from: l.coordinate).changed { changes += 1 }
            }
            blackHole(changes)
        }
    }
}
