import Foundation
import Geodesy
import SpatialIndex

/// The fast core of proximity ranking for many places (up to millions):
/// the exact geodesic order of every place, the k nearest, and the places
/// inside a region, recomputed for each walker position.
///
/// **Exactness.** A place's distance comes from the chord between ECEF
/// positions, `s = c + c³/(24R²)` with `1/R = cos²α/M + sin²α/N` at the
/// walker's latitude (the series of `2R·asin(c/2R)`; the dropped term is under
/// 1e-9 m at 10 km). It agrees with Karney's geodesic within
/// ``Geodesy/GeodesicDistanceFrame/tolerance`` up to 20 km (tested). The order rounds
/// distances to whole millimetres; a distance within that tolerance of a
/// half millimetre could round either way, so it is recomputed with Karney's
/// method, as are places beyond 20 km. Ties within a millimetre go by name,
/// then id (Unicode scalar order), through a precomputed tie rank.
///
/// **Cost.** One pass of arithmetic per place for the full order, then a
/// least-significant-digit radix sort of 64-bit keys: millimetres above the
/// place's index, read in tie order so that the stable sort by millimetres
/// alone breaks ties, and the sorted keys are the order itself (from
/// ``bucketThreshold`` places: 32-bit millimetres from the distance pass, then
/// a pass by their leading bits that makes the keys into buckets that fit the
/// cache, then each bucket by the rest). Distances are
/// not stored: ``distance(atRank:)`` computes the one asked for exactly as
/// the ranking did. Small sets use insertion sort from the previous order,
/// which is nearly sorted. From ``parallelThreshold`` places on, the distances and
/// the radix sort are split across ``threads`` (every core by default). The
/// k nearest and region queries use a latitude–longitude grid and touch only
/// nearby cells. Nothing is allocated per update once the buffers have grown.
public struct RankingIndex {
    public let count: Int
    /// Coordinates by place index.
    public let coordinates: [Coordinate]
    // Positions are stored in tie order (name, then id), so that a stable sort by millimetres alone gives the contract's order.
    @usableFromInline let x: [Double], y: [Double], z: [Double]
    @usableFromInline let tieRank: [UInt32]
    let indexOfTie: [UInt32]
    var keys: [UInt64]
    /// Millimetres by tie position, for the sets sorted in buckets (made at their first ranking).
    var millimetres: [UInt32] = []
    var scratch: [UInt64]
    /// Digit counts, 32-bit (as ``cursors``): two rows of them fill the first-level cache, not four.
    var counts: [UInt32]
    /// The radix sort's write positions for one digit, 32-bit: half the first-level
    /// cache that 64-bit positions for 4 096 buckets would take, the rest left to the lines being written.
    var cursors: [UInt32]
    /// The walker of the last ``rankAll(from:)``, for the distances asked of it.
    @usableFromInline var lastWalker: Walker?
    /// Place indices in ranking order after ``rankAll(from:)``.
    public internal(set) var order: [UInt32]
    /// Distances by tie position, then the same by rank, kept for sets of up to
    /// ``smallCount`` places (larger sets compute the few rows asked for again:
    /// storing every distance costs more).
    @usableFromInline var smallDistances: [Double]
    /// Up to this many places, ``rankAll(from:)`` takes the path for small sets.
    @usableFromInline static let smallCount = 256
    let grid: PointGrid
    @usableFromInline let geodesic: Geodesic
    /// Threads ``rankAll(from:)`` uses for ``parallelThreshold`` places or more
    /// (default: every core); below that, one (starting the threads costs more than they save).
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// The radix sort's digit: 12 bits, two passes up to 16.7 km. 8-bit digits
    /// (three passes into runs that stay in the first-level cache) were slower, at
    /// 10 000 places and at a million alike.
    static let digitBits = 12
    static let buckets = 1 << digitBits
    static let digitMask = UInt64(buckets - 1)
    static let maxDigits = (31 + digitBits - 1) / digitBits
    /// From this many places on (by default), ``rankAll(from:)`` splits its work across ``threads``.
    public static let parallelThreshold = 200_000
    /// From this many places on, ``rankAll(from:)`` splits its work across ``threads``.
    public var parallelFrom = RankingIndex.parallelThreshold
    /// Per-thread digit counts (32-bit, as ``cursors``) for the parallel radix sort, and each thread's largest key.
    var threadCounts: [UInt32] = []
    var threadMax: [UInt64] = []
    /// What ``rankAll(from:beside:)`` hands the diff's thread, and the job that reads it, made once.
    var sharedPass: SharedPass?
    var sharedJob: @Sendable () -> Void = {}
    /// From this many places on, the keys are sorted in buckets (``bucketThreshold`` by default).
    public var bucketsFrom = RankingIndex.bucketThreshold

    /// `names` and `ids` break ties within a millimetre; both in the order of `coordinates`.
    public init(coordinates: [Coordinate], names: [String], ids: [String], geodesic: Geodesic = .wgs84) {
        precondition(names.count == coordinates.count && ids.count == coordinates.count, "one name and one id per place")
        self.geodesic = geodesic
        count = coordinates.count
        self.coordinates = coordinates
        let byTie = (0..<count).sorted { a, b in
            if names[a] != names[b] { return ProximityEngine.scalarLess(names[a], names[b]) }
            return ProximityEngine.scalarLess(ids[a], ids[b])
        }
        var ranks = [UInt32](repeating: 0, count: count)
        for (r, i) in byTie.enumerated() { ranks[i] = UInt32(r) }
        tieRank = ranks
        indexOfTie = byTie.map { UInt32($0) }
        var xs = [Double](repeating: 0, count: count), ys = xs, zs = xs
        for (t, i) in byTie.enumerated() {
            let p = geodesic.ellipsoid.ecef(coordinates[i])
            xs[t] = p.x
            ys[t] = p.y
            zs[t] = p.z
        }
        x = xs
        y = ys
        z = zs
        // Small sets sort their keys in the second half.
        keys = [UInt64](repeating: 0, count: count <= Self.smallCount ? 2 * count : count)
        smallDistances = [Double](repeating: 0, count: count <= Self.smallCount ? 2 * count : 0)
        scratch = [UInt64](repeating: 0, count: count <= Self.smallCount ? 0 : count)
        counts = [UInt32](repeating: 0, count: Self.buckets * Self.maxDigits)
        cursors = [UInt32](repeating: 0, count: Self.buckets)
        order = byTie.map { UInt32($0) }
        grid = PointGrid(coordinates)
    }

    /// Convenience for places that have only positions: name and id are the index.
    public init(coordinates: [Coordinate]) {
        let labels = coordinates.indices.map { String($0) }
        self.init(coordinates: coordinates, names: labels, ids: labels)
    }

    /// The bytes per place that the index's arrays add up to at their element strides
    /// (a budget's arithmetic, not a measurement: allocator rounding, spare capacity and
    /// the caller's own arrays are not counted). Benchmarks/README.md has the resident
    /// memory measured.
    public var bytesPerPlace: Double {
        // Small sets: no scratch, keys twice as long, distances by tie and by rank; sets sorted in buckets: their millimetres.
        let perPlace = MemoryLayout<Coordinate>.stride + 3 * 8 + 4 + 4 + 8 + 8 + 4 + (count <= Self.smallCount ? 16 : 0) + (count >= bucketsFrom ? 4 : 0)
        return Double(perPlace) + Double(grid.bytes + counts.count * 4 + cursors.count * 4) / Double(max(count, 1))
    }

    /// The distance of place `index` from the last walker given to ``rankAll(from:)``.
    /// (Computed as the ranking computed it: the series, or Karney's method where the ranking used it.)
    @inlinable
    public func distance(ofPlace index: Int) -> Double {
        // Small sets keep their distances (zero before the first ranking); reading the
        // walker first would copy it on every call.
        if count <= Self.smallCount { return smallDistances[Int(tieRank[index])] }
        guard let w = lastWalker else { return 0 }
        let t = Int(tieRank[index])
        let d = w.distance(x[t], y[t], z[t])
        // Karney's method only where the ranking used it (passing the geodesic and the places costs retains).
        return Self.needsKarney(d, d * 1000) ? geodesic.distance(w.coordinate, coordinates[index]) : d
    }

    /// The distance of the place in row `rank` of ``order``.
    @inlinable
    public func distance(atRank rank: Int) -> Double {
        if count <= Self.smallCount { return smallDistances[count + rank] }
        return distance(ofPlace: Int(order[rank]))
    }
}
