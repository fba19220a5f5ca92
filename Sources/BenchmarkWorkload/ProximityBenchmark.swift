import Geodesy
import Proximity

/// The proximity variants of `stroll bench`: each update, by variant,
/// `full` the exact order of all places and the distances of the first 20,
/// `full-distances` that and every distance, `moves` the minimal row moves
/// between consecutive full orders, `topk` the `k` nearest, `region` the
/// places inside a `regionSpan` square centred on the walker.
public enum ProximityBenchmark {
    public static let variants = ["full", "full-distances", "moves", "topk", "region"]

    /// The threads the variant's updates run on (moves: the longest run's two halves, and
    /// the distances', from `OrderDiff.splitFrom` rows, the rest from `RankingIndex.parallelThreshold`).
    public static func threadsUsed(variant: String, places: Int, threads: Int) -> Int {
        guard ["full", "full-distances", "moves"].contains(variant) else { return 1 }
        if places >= RankingIndex.parallelThreshold { return threads }
        return variant == "moves" && places >= OrderDiff.splitFrom ? min(threads, 2) : 1
    }

    /// How long the updates are timed for, in whole passes over the walk (at least one), in nanoseconds.
    public static let timedFor: UInt64 = 300_000_000
    /// At most this many passes over the walk, and about this many samples.
    static let maximumPasses = 200, maximumSamples = 200_000

    public static func run(variant: String, coordinates: [Coordinate], ids: [String], positions: [Coordinate], threads: Int,
                           k: Int, regionSpan: Double, progress: BenchmarkProgress) -> BenchmarkSamples {
        let buildStart = BenchmarkWorkload.now()
        var index = RankingIndex(coordinates: coordinates, names: ids, ids: ids)
        index.threads = threads
        let buildMs = Double(BenchmarkWorkload.now() - buildStart) / 1e6
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
        // As the C floor times its updates: one update untimed first (pass -1), then passes over
        // the walk, forwards and backwards in turn, until `timedFor` has been spent (at least one
        // pass), so that ten places are not timed over a thousand updates alone, from cold.
        var timed: UInt64 = 0
        passes: for pass in -1..<maximumPasses {
            if pass > 0 && (timed >= timedFor || samples.count + positions.count > maximumSamples) { break }
            for step in 0..<(pass < 0 ? 1 : positions.count) {
                let walker = positions[pass % 2 == 1 ? positions.count - 1 - step : step]
                let t0 = BenchmarkWorkload.now()
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
                let spent = BenchmarkWorkload.now() - t0
                if pass < 0 { continue passes }
                timed += spent
                samples.append(Double(spent) / 1000)
                progress(samples.count, max(samples.count, positions.count), samples)
            }
        }
        return BenchmarkSamples(samples: samples, buildMs: buildMs, bytesPerPlace: index.bytesPerPlace, checksum: sink)
    }
}
