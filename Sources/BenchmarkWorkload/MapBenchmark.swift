import Geodesy
import Map
import SpatialIndex

/// The map variants of `stroll bench`: pins at the places, a region of
/// `regionSpan` following the walker (`map-zoom`: twice as wide every other
/// update), answered as deltas (with `cluster`, clusters in and out).
public enum MapBenchmark {
    public static let variants = ["map-pan", "map-zoom"]

    /// The samples, and each update's region as CSV rows `lat,lon,latDelta,lonDelta,zoom` when `keepRegions`.
    public static func run(variant: String, coordinates: [Coordinate], ids: [String], positions: [Coordinate], regionSpan: Double,
                           cluster: Bool, mapWidth: Double, keepRegions: Bool, progress: BenchmarkProgress) -> (BenchmarkSamples, regions: String) {
        let buildStart = BenchmarkWorkload.now()
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
        let buildMs = Double(BenchmarkWorkload.now() - buildStart) / 1e6
        var samples: [Double] = []
        samples.reserveCapacity(positions.count)
        var sink = 0.0
        var regions = ""
        for (k, walker) in positions.dropFirst().enumerated() {
            let span = variant == "map-zoom" && k % 2 == 0 ? regionSpan * 2 : regionSpan
            let region = MapRegion(center: walker, latitudinalMeters: span, longitudinalMeters: span)
            if keepRegions {
                regions += "\(region.center.latitude),\(region.center.longitude),\(region.latitudeDelta),\(region.longitudeDelta),\(settings.level(of: region))\n"
            }
            let t0 = BenchmarkWorkload.now()
            map.setRegion(region, delta: &delta)
            samples.append(Double(BenchmarkWorkload.now() - t0) / 1000)
            progress(samples.count, positions.count - 1, samples)
            sink += Double(delta.added.count - delta.removed.count + delta.clustersAdded.count - delta.clustersRemoved.count)
        }
        // The index alone, without making the pins: the grid, or the cluster tree over every zoom.
        let t0 = BenchmarkWorkload.now()
        let built = cluster ? ClusterTree(coordinates: coordinates, pins: Array(coordinates.indices), settings: settings).levels.count
            : PointGrid(coordinates).rows
        let indexMs = Double(BenchmarkWorkload.now() - t0) / 1e6
        return (BenchmarkSamples(samples: samples, buildMs: buildMs, bytesPerPlace: map.indexBytesPerPin, checksum: sink + Double(map.visibleCount) + Double(built),
                                 indexMs: indexMs), regions)
    }
}
