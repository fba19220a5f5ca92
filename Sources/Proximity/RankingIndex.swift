import Foundation
import Geodesy
import SpatialIndex
import Synchronization

/// The fast core of proximity ranking for many places (up to millions):
/// the exact geodesic order of every place, the k nearest, and the places
/// inside a region, recomputed for each walker position.
///
/// **Exactness.** A place's distance comes from the chord between ECEF
/// positions, `s = c + c³/(24R²)` with `1/R = cos²α/M + sin²α/N` at the
/// walker's latitude (the series of `2R·asin(c/2R)`; the dropped term is under
/// 1e-9 m at 10 km). It agrees with Karney's geodesic within
/// ``GeodesicDistanceFrame/tolerance`` up to 20 km (tested). The order rounds
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
    private let indexOfTie: [UInt32]
    private var keys: [UInt64]
    /// Millimetres by tie position, for the sets sorted in buckets (made at their first ranking).
    private var millimetres: [UInt32] = []
    private var scratch: [UInt64]
    /// Digit counts, 32-bit (as ``cursors``): two rows of them fill the first-level cache, not four.
    private var counts: [UInt32]
    /// The radix sort's write positions for one digit, 32-bit: half the first-level
    /// cache that 64-bit positions for 4 096 buckets would take, the rest left to the lines being written.
    private var cursors: [UInt32]
    /// The walker of the last ``rankAll(from:)``, for the distances asked of it.
    @usableFromInline private(set) var lastWalker: Walker?
    /// Place indices in ranking order after ``rankAll(from:)``.
    public private(set) var order: [UInt32]
    /// Distances by tie position, then the same by rank, kept for sets of up to
    /// ``smallCount`` places (larger sets compute the few rows asked for again:
    /// storing every distance costs more).
    @usableFromInline private(set) var smallDistances: [Double]
    /// Up to this many places, ``rankAll(from:)`` takes the path for small sets.
    @usableFromInline static let smallCount = 256
    private let grid: PointGrid
    @usableFromInline let geodesic: Geodesic
    /// Threads ``rankAll(from:)`` uses for ``parallelThreshold`` places or more
    /// (default: every core); below that, one (thread start-up costs more than it saves, measured).
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// The radix sort's digit: 12 bits, two passes up to 16.7 km. 8-bit digits
    /// (three passes into runs that stay in the first-level cache) measured
    /// slower: 22 % at 10 000 places, 3 % at a million.
    static let digitBits = 12
    static let buckets = 1 << digitBits
    static let digitMask = UInt64(buckets - 1)
    static let maxDigits = (31 + digitBits - 1) / digitBits
    /// From this many places on (by default), ``rankAll(from:)`` splits its work across ``threads``.
    public static let parallelThreshold = 200_000
    /// From this many places on, ``rankAll(from:)`` splits its work across ``threads``.
    public var parallelFrom = RankingIndex.parallelThreshold
    /// Per-thread digit counts (32-bit, as ``cursors``) for the parallel radix sort, and each thread's largest key.
    private var threadCounts: [UInt32] = []
    private var threadMax: [UInt64] = []
    /// What ``rankAll(from:beside:)`` hands the diff's thread, and the job that reads it, made once.
    private var sharedPass: SharedPass?
    private var sharedJob: @Sendable () -> Void = {}

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

    /// Bytes held per place by the index and its buffers (for memory budgets).
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

    // MARK: Distances

    /// A frame for the walker: ECEF position, local east and north, inverse radii of curvature.
    @usableFromInline
    struct Walker: Sendable {
        @usableFromInline let coordinate: Coordinate
        @usableFromInline let wx: Double, wy: Double, wz: Double
        @usableFromInline let nx: Double, ny: Double, nz: Double
        /// The series' coefficients, from the inverse radii of curvature `1/M`, `1/N`:
        /// `c²/(24N²)` and `2(1/N)(1/M − 1/N)/24`.
        @usableFromInline let a: Double, b: Double

        init(_ c: Coordinate, ellipsoid: Ellipsoid) {
            coordinate = c
            let (sphi, cphi) = Self.sinCos(degrees: c.latitude)
            let (slam, clam) = Self.sinCos(degrees: c.longitude)
            // ECEF from the same sines and cosines.
            // The square root and the division side by side (N = a·√w²/w²), and the
            // ellipsoid's own divisions waiting for neither.
            let e2 = ellipsoid.eccentricitySquared, semiMajor = ellipsoid.semiMajorAxis
            let w2 = 1 - e2 * sphi * sphi
            let root = w2.squareRoot()
            let nWalker = semiMajor / w2 * root
            wx = nWalker * cphi * clam
            wy = nWalker * cphi * slam
            wz = nWalker * (1 - e2) * sphi
            nx = -sphi * clam
            ny = -sphi * slam
            nz = cphi
            let invN = root * (1 / semiMajor)
            let invM = w2 * invN * (1 / (1 - e2))
            a = invN * invN * (1.0 / 24)
            b = invN * (invM - invN) * (2.0 / 24)
        }

        /// Sine and cosine of `x` degrees (|x| ≤ 180), within an ulp of the
        /// true values: `x` less the nearest multiple of 90° (exact), in radians,
        /// then fdlibm's kernels on [−π/4, π/4] (`__kernel_sin`, `__kernel_cos`,
        /// under an ulp there), the quadrant turned by swapping and negating.
        /// Both from one reduction, in two independent chains of multiplications and additions,
        /// in place of four libm calls on every update (an ulp here moves the
        /// walker by under 1e-9 m).
        @inlinable @inline(__always)
        static func sinCos(degrees x: Double) -> (sin: Double, cos: Double) {
            let bias = RankingIndex.roundingBias
            let biased = x * (1.0 / 90) + bias
            let quadrant = biased.bitPattern & 3     // the nearest multiple of 90°, modulo 4
            let r = (x - 90 * (biased - bias)) * (Double.pi / 180)
            let z = r * r
            let sr = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 + z * (2.75573137070700676789e-06
                + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)))
            let s = r + z * r * (-1.66666666666666324348e-01 + z * sr)
            let cr = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * (2.48015872894767294178e-05
                + z * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))))
            let hz = 0.5 * z, w = 1 - hz
            let c = w + (((1 - w) - hz) + z * cr)
            switch quadrant {
            case 1: return (c, -s)
            case 2: return (-s, -c)
            case 3: return (-c, s)
            default: return (s, c)
            }
        }

        /// The chord series `s = c·(1 + c²/(24R²))` with the direction's radius of curvature
        /// expanded to first order in `1/M − 1/N` (a few parts in a thousand), so that no
        /// division is needed: `c²/R² ≈ c²/N² + 2(1/N)(1/M − 1/N)·c_north²`. The dropped
        /// terms are under 1e-8 m at 10 km; the whole stays within the tolerance up to 20 km (tested).
        @inlinable @inline(__always)
        func distance(_ px: Double, _ py: Double, _ pz: Double) -> Double {
            let dx = px - wx, dy = py - wy, dz = pz - wz
            let c2 = dx * dx + dy * dy + dz * dz
            let cn = dx * nx + dy * ny + dz * nz
            return c2.squareRoot() * (1 + c2 * a + b * cn * cn)
        }
    }

    /// The distance to place `i` for ordering: the millimetre it rounds to is
    /// Karney's (Karney's method near a half millimetre and beyond 20 km).
    @inline(__always)
    private func orderingDistance(_ i: Int, _ w: Walker) -> Double {
        let t = Int(tieRank[i])
        return Self.rankingDistance(w, x[t], y[t], z[t], geodesic, coordinates, i).distance
    }

    /// Series distances are computed this many at a time (per thread): 1 KB,
    /// which `withUnsafeTemporaryAllocation` always places on the stack (a
    /// larger block went to the heap, one allocation per update).
    @usableFromInline static let block = 128
    /// Added to a non-negative double below 2⁵¹ and taken away again, it rounds
    /// the double to the nearest whole number (ties to even), and the sum's low
    /// bits are that whole number: rounding without a conversion that can trap.
    @usableFromInline static let roundingBias = 6_755_399_441_055_744.0    // 1.5 · 2⁵²

    /// Keys for the places in `range` (tie positions): millimetres above the
    /// place's index; the largest millimetre is returned.
    ///
    /// Blocks of ``block`` places: first the chord series for the whole block
    /// in straight-line arithmetic the compiler turns into vector
    /// instructions, then the keys, the millimetre rounded through
    /// ``roundingBias`` and ``needsKarney(_:_:)`` tested without a branch; a
    /// block where some place needs Karney's method is gone over again for
    /// those places alone. Where the test passes, the nearest millimetre (ties
    /// to even) is the one `Int64(mm + 0.5)` gives, since `mm` is then not
    /// within the tolerance of a half. With `counts`, the radix sort's first
    /// two digits are counted block by block (`counts`: two rows of ``buckets``).
    /// Without `placeInKey`, the keys' low halves are zero and the tie indices
    /// are read only for Karney's method (``millimetreSlice(_:_:_:_:_:_:_:counts:exact:)``).
    ///
    /// Unsafe pointers, unchecked: callers pass buffers of ``count`` places
    /// and a range inside them.
    @inline(__always)
    static func rankSlice(_ w: Walker, _ range: Range<Int>, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
                          _ back: UnsafePointer<UInt32>, _ ks: UnsafeMutablePointer<UInt64>,
                          counts: UnsafeMutablePointer<UInt32>? = nil, exact: (Int) -> Double) -> UInt64 {
        // One block of series distances, on the stack.
        withUnsafeTemporaryAllocation(of: Double.self, capacity: block) { buffer in
            guard let ds = buffer.baseAddress else { return 0 }
            return rankSlice(w, range, xs, ys, zs, back, ks, ds, counts: counts, exact: exact)
        }
    }

    /// ``rankSlice(_:_:_:_:_:_:_:counts:exact:)`` with the block's distances in `ds`
    /// (``block`` of them).
    @inline(__always)
    static func rankSlice(_ w: Walker, _ range: Range<Int>, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
                          _ back: UnsafePointer<UInt32>, _ ks: UnsafeMutablePointer<UInt64>, _ ds: UnsafeMutablePointer<Double>,
                          counts: UnsafeMutablePointer<UInt32>? = nil, placeInKey: Bool = true, exact: (Int) -> Double) -> UInt64 {
        let wx = w.wx, wy = w.wy, wz = w.wz, nx = w.nx, ny = w.ny, nz = w.nz
        let a = w.a, b = w.b
        let bias = roundingBias
        var maxMM: UInt64 = 0
        var start = range.lowerBound
        while start < range.upperBound {
            let length = min(range.upperBound - start, block)
            let bx = xs + start, by = ys + start, bz = zs + start, bk = ks + start, bp = back + start
            for i in 0..<length {
                let dx = bx[i] - wx, dy = by[i] - wy, dz = bz[i] - wz
                let c2 = dx * dx + dy * dy + dz * dz
                let cn = dx * nx + dy * ny + dz * nz
                ds[i] = c2.squareRoot() * (1 + c2 * a + b * cn * cn)
            }
            // Flags and the largest key as integers, so that this loop too runs four places at a
            // time (a floating-point maximum would keep it to one: its order of operations is fixed).
            var karneyNeeded: UInt64 = 0
            var largestKey: UInt64 = 0
            for i in 0..<length {
                let d = ds[i]
                let mm = d * 1000
                let biased = mm + bias
                let rounded = biased - bias
                let beyond: UInt64 = d > GeodesicDistanceFrame.exactRange ? 1 : 0
                let nearHalf: UInt64 = abs(mm - rounded) >= 0.5 - GeodesicDistanceFrame.tolerance(atDistance: d) * 1000 ? 1 : 0
                karneyNeeded |= beyond | nearHalf
                let key = (biased.bitPattern & 0xFFFF_FFFF) << 32 | (placeInKey ? UInt64(bp[i]) : 0)
                largestKey = max(largestKey, key)
                bk[i] = key
            }
            if karneyNeeded != 0 {
                largestKey = 0
                for i in 0..<length {
                    let place = bp[i]
                    var d = w.distance(bx[i], by[i], bz[i])
                    if Self.needsKarney(d, d * 1000) {
                        d = exact(Int(place))
                        ds[i] = d
                        let rounded = UInt64(bitPattern: Int64(min(d * 1000 + 0.5, 9e18)))
                        bk[i] = rounded << 32 | (placeInKey ? UInt64(place) : 0)
                        maxMM = max(maxMM, rounded)
                    } else {
                        largestKey = max(largestKey, bk[i])
                    }
                }
            }
            maxMM = max(maxMM, largestKey >> 32)
            if let c = counts {
                // The radix sort's first two digits, counted while the block is in the first-level cache.
                for i in 0..<length {
                    let mm = bk[i] >> 32
                    c[Int(truncatingIfNeeded: mm & digitMask)] &+= 1
                    c[buckets &+ Int(truncatingIfNeeded: (mm >> UInt64(digitBits)) & digitMask)] &+= 1
                }
            }
            start += length
        }
        return maxMM
    }

    /// Whether the series' distance `d` (`mm` in millimetres) cannot decide the
    /// millimetre it rounds to: near a half millimetre, within the series' error
    /// bound at that distance, or beyond the series' range.
    @inlinable @inline(__always)
    static func needsKarney(_ d: Double, _ mm: Double) -> Bool {
        d > GeodesicDistanceFrame.exactRange || abs(mm - (mm + roundingBias - roundingBias)) >= 0.5 - GeodesicDistanceFrame.tolerance(atDistance: d) * 1000
    }

    /// The distance to a place at ECEF (`px`, `py`, `pz`) and the millimetre it
    /// rounds to: the chord series, or Karney's method (`places[place]`) within
    /// the tolerance of a half millimetre and beyond 20 km.
    @inline(__always)
    static func rankingDistance(_ w: Walker, _ px: Double, _ py: Double, _ pz: Double, _ karney: Geodesic,
                                _ places: [Coordinate], _ place: Int) -> (distance: Double, millimetres: UInt64) {
        var d = w.distance(px, py, pz)
        var mm = d * 1000
        if needsKarney(d, mm) {
            d = karney.distance(w.coordinate, places[place])
            mm = d * 1000
        }
        return (d, UInt64(mm + 0.5))
    }

    // MARK: Full order

    /// Ranks every place from `walker`; read the result in ``order`` and ``distance(atRank:)``.
    public mutating func rankAll(from walker: Coordinate) {
        let w = Walker(walker, ellipsoid: geodesic.ellipsoid)
        let n = count
        guard n > 0 else { return }
        lastWalker = w
        if n <= Self.smallCount { return rankSmall(w) }
        if n >= max(2, parallelFrom) && threads > 1 { return rankAllParallel(w, threads: min(threads, 64, n)) }
        if n >= bucketsFrom { return rankInBucketsOnOneThread(w) }
        rankAllOnOneThread(w)
    }

    /// Ranks every place from `walker` as ``rankAll(from:)`` does, with half of the distance
    /// pass on the spinning thread `diff` keeps for the two halves of its next diff, when
    /// that thread is awake: for the orders a diff compares, from ``OrderDiff/splitFrom``
    /// to ``parallelThreshold`` places, with ``threads`` and the diff's threads both above
    /// one. That thread waits for the diff anyway; handing it a share costs about a
    /// microsecond, against the 20 µs or more of waking a thread for it (which is why
    /// ``rankAll(from:)`` alone keeps one thread below ``parallelThreshold``). Each thread
    /// computes the keys of its own half of the places and counts their digits; the
    /// counts are added and the radix sort runs on the calling thread, so the order is
    /// the one ``rankAll(from:)`` gives.
    public mutating func rankAll(from walker: Coordinate, beside diff: OrderDiff) {
        let n = count
        guard threads > 1, n > Self.smallCount, n < parallelFrom, n < bucketsFrom, let worker = diff.awakeWorker(rows: n) else {
            return rankAll(from: walker)
        }
        let w = Walker(walker, ellipsoid: geodesic.ellipsoid)
        lastWalker = w
        rankAllBeside(w, worker)
    }

    /// ``rankAllOnOneThread(_:)`` with the places' distances and digit counts shared
    /// with `worker` in runs of ``besideRun`` places, each thread taking the next run
    /// until none is left: when the worker is slow to start or is interrupted (a busy
    /// machine), the calling thread takes the runs it has not, and waits at most for
    /// the one it is on. The worker's job and what it reads are made once
    /// (``SharedPass``): an update fills them in and allocates nothing.
    @inline(never)
    private mutating func rankAllBeside(_ w: Walker, _ worker: SpinningWorker) {
        let n = count
        if sharedPass == nil || !isKnownUniquelyReferenced(&sharedPass) {
            let made = SharedPass(walker: w, karney: geodesic, places: coordinates)
            sharedPass = made
            // The job holds the pass's parts, not the pass: the index's reference stays the only one (a copy of the index makes its own).
            let counter = made.next, pass = made.pass, counts = made.counts
            sharedJob = { SharedPass.workerTakes(counter, pass, counts) }
        }
        guard let shared = sharedPass else { return rankAllOnOneThread(w) }
        let job = sharedJob
        rankThenSort { xs, ys, zs, back, ks, c in
            shared.start(w, n: n, runs: (n + Self.besideRun - 1) / Self.besideRun, xs, ys, zs, back, ks)
            worker.post(job)
            let maxMM = shared.take(c)
            if let job = worker.reclaimOrWait() { job() }
            let other = shared.counts.pointer
            for v in 0..<(2 * Self.buckets) { c[v] &+= other[v] }
            return max(maxMM, shared.pass.pointer.pointee.largest)
        }
    }

    /// The places in one run of ``rankAll(from:beside:)``'s shared distance pass.
    static let besideRun = 1024

    /// The full order of more than ``smallCount`` places, fewer than ``bucketsFrom``, on one thread: distances and keys, then the radix sort.
    /// (Kept out of ``rankAll(from:)``, so that small sets' updates run through a short function.)
    @inline(never)
    private mutating func rankAllOnOneThread(_ w: Walker) {
        let n = count
        let karney = geodesic
        let places = coordinates
        rankThenSort { xs, ys, zs, back, ks, c in
            Self.rankSlice(w, 0..<n, xs, ys, zs, back, ks, counts: c) { karney.distance(w.coordinate, places[$0]) }
        }
    }

    /// The full order of ``bucketsFrom`` places or more on one thread: the millimetres
    /// (``millimetreSlice(_:_:_:_:_:_:_:counts:exact:)``), then the sort in buckets.
    @inline(never)
    private mutating func rankInBucketsOnOneThread(_ w: Walker) {
        let n = count
        let karney = geodesic
        let places = coordinates
        if millimetres.count < n { millimetres = [UInt32](repeating: 0, count: n) }
        var maxMM: UInt64 = 0
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                z.withUnsafeBufferPointer { zs in
                    indexOfTie.withUnsafeBufferPointer { back in
                        millimetres.withUnsafeMutableBufferPointer { mm in
                            counts.withUnsafeMutableBufferPointer { c in
                                guard let xs = xs.baseAddress, let ys = ys.baseAddress, let zs = zs.baseAddress, let back = back.baseAddress,
                                      let mm = mm.baseAddress, let c = c.baseAddress else { return }
                                // The second digit's counts, in their row (``sortInBuckets(bits:)`` reads them there).
                                let second = c + Self.buckets
                                for v in 0..<Self.buckets { second[v] = 0 }
                                maxMM = Self.millimetreSlice(w, 0..<n, xs, ys, zs, back, mm, counts: second) { karney.distance(w.coordinate, places[$0]) }
                            }
                        }
                    }
                }
            }
        }
        if maxMM >= 1 << 31 { return sortBeyondKeyRange() }
        if Self.digits(maxMM) == 2 { return sortInBuckets(bits: 64 - maxMM.leadingZeroBitCount) }
        keysFromMillimetres()
        radixSort(maxMillimetres: maxMM)
    }

    /// The radix sort's keys from the millimetres and tie indices, for the sets sorted in
    /// buckets whose millimetres have one digit (all within 4 m) or three (past 16.7 km).
    private mutating func keysFromMillimetres() {
        for i in 0..<count { keys[i] = UInt64(millimetres[i]) << 32 | UInt64(indexOfTie[i]) }
    }

    /// The millimetres (32-bit) of the places in `range` (tie positions) for the sort in
    /// buckets, their second 12-bit digit counted into `counts` (one row of ``buckets``); the
    /// largest millimetre is returned (past 31 bits, the millimetres written are not used:
    /// ``sortBeyondKeyRange()``). Half the bytes of a key, and the tie indices not read: once
    /// two threads share it, this pass is bound by memory bandwidth, and the scatter into
    /// buckets reads each tie index beside its millimetre.
    /// Unsafe pointers, unchecked, as ``rankSlice(_:_:_:_:_:_:_:counts:exact:)``.
    @inline(__always)
    static func millimetreSlice(_ w: Walker, _ range: Range<Int>, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
                                _ back: UnsafePointer<UInt32>, _ mm: UnsafeMutablePointer<UInt32>,
                                counts: UnsafeMutablePointer<UInt32>, exact: (Int) -> Double) -> UInt64 {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: block) { distances in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: block) { blockKeys in
                guard let ds = distances.baseAddress, let kb = blockKeys.baseAddress else { return 0 }
                var maxMM: UInt64 = 0
                var start = range.lowerBound
                while start < range.upperBound {
                    let end = min(range.upperBound, start + block)
                    // rankSlice writes tie positions start..<end from its keys' address + start: here, the block's buffer.
                    maxMM = max(maxMM, rankSlice(w, start..<end, xs, ys, zs, back, kb - start, ds, placeInKey: false, exact: exact))
                    let out = mm + start
                    for i in 0..<(end - start) {
                        let m = kb[i] >> 32
                        out[i] = UInt32(truncatingIfNeeded: m)
                        counts[Int(truncatingIfNeeded: (m >> UInt64(digitBits)) & digitMask)] &+= 1
                    }
                    start = end
                }
                return maxMM
            }
        }
    }

    /// The keys of every place through `pass` (given the places' ECEF coordinates and
    /// tie indices, the keys to write and the digit counts, zeroed; returning the
    /// largest millimetre), then the radix sort.
    @inline(__always)
    private mutating func rankThenSort(_ pass: (UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<UInt32>,
                                                UnsafeMutablePointer<UInt64>, UnsafeMutablePointer<UInt32>) -> UInt64) {
        var maxMM: UInt64 = 0
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                z.withUnsafeBufferPointer { zs in
                    indexOfTie.withUnsafeBufferPointer { back in
                        keys.withUnsafeMutableBufferPointer { ks in
                            counts.withUnsafeMutableBufferPointer { c in
                                guard let xs = xs.baseAddress, let ys = ys.baseAddress, let zs = zs.baseAddress, let back = back.baseAddress,
                                      let ks = ks.baseAddress, let c = c.baseAddress else { return }
                                for v in 0..<(2 * Self.buckets) { c[v] = 0 }
                                maxMM = pass(xs, ys, zs, back, ks, c)
                            }
                        }
                    }
                }
            }
        }
        if maxMM >= 1 << 31 {
            sortBeyondKeyRange()
        } else {
            radixSort(maxMillimetres: maxMM)
        }
    }

    /// The full order on several threads: each takes a contiguous slice of the
    /// places for the distances (counting the first digit as it goes, or from
    /// ``bucketsFrom`` places, writing millimetres alone, the second), then the radix sort runs each digit
    /// as a parallel count, a prefix sum over (digit, thread) that keeps it
    /// stable, and a parallel scatter; or, in buckets, ``sortInBucketsParallel(bits:threads:)``.
    ///
    /// Worker threads get the buffers' addresses as numbers (``Address``) and
    /// write only their own slice, or slots the prefix sum gave them alone;
    /// the calling thread waits for them (`concurrentPerform`) before reading.
    private mutating func rankAllParallel(_ w: Walker, threads: Int) {
        let n = count
        let slice = (n + threads - 1) / threads
        if threadCounts.count < threads * Self.buckets { threadCounts = [UInt32](repeating: 0, count: threads * Self.buckets) }
        if threadMax.count < threads { threadMax = [UInt64](repeating: 0, count: threads) }
        let karney = geodesic
        let places = coordinates
        var digits = 0, maxMillimetres: UInt64 = 0
        // In buckets (see ``sortInBuckets(bits:)``): millimetres alone, each thread counting their second digit,
        // from which the leading bits' counts come.
        let bucketed = n >= bucketsFrom
        if bucketed && millimetres.count < n { millimetres = [UInt32](repeating: 0, count: n) }
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                z.withUnsafeBufferPointer { zs in
                    indexOfTie.withUnsafeBufferPointer { back in
                        keys.withUnsafeMutableBufferPointer { ks in
                          millimetres.withUnsafeMutableBufferPointer { mms in
                            threadCounts.withUnsafeMutableBufferPointer { tc in
                                threadMax.withUnsafeMutableBufferPointer { tm in
                                    let px = Address(xs), py = Address(ys), pz = Address(zs), pb = Address(back)
                                    let pk = Address(ks), pmm = Address(mms), pc = Address(tc), pm = Address(tm)
                                    DispatchQueue.concurrentPerform(iterations: threads) { t in
                                        let lo = t * slice, hi = min(n, lo + slice)
                                        let xs = UnsafePointer(px.pointer), ys = UnsafePointer(py.pointer), zs = UnsafePointer(pz.pointer)
                                        let back = UnsafePointer(pb.pointer), c = pc.pointer + t * Self.buckets
                                        for v in 0..<Self.buckets { c[v] = 0 }
                                        guard lo < hi else { return pm.pointer[t] = 0 }
                                        if bucketed {
                                            pm.pointer[t] = Self.millimetreSlice(w, lo..<hi, xs, ys, zs, back, pmm.pointer, counts: c) {
                                                karney.distance(w.coordinate, places[$0])
                                            }
                                            return
                                        }
                                        let ks = pk.pointer
                                        pm.pointer[t] = Self.rankSlice(w, lo..<hi, xs, ys, zs, back, ks) { karney.distance(w.coordinate, places[$0]) }
                                        for i in lo..<hi { c[Int((ks[i] >> 32) & Self.digitMask)] &+= 1 }
                                    }
                                    var maxMM: UInt64 = 0
                                    for t in 0..<threads { maxMM = max(maxMM, tm[t]) }
                                    guard maxMM < 1 << 31 else { return }
                                    maxMillimetres = maxMM
                                    var m = maxMM
                                    while m > 0 {
                                        digits += 1
                                        m >>= UInt64(Self.digitBits)
                                    }
                                    digits = max(1, digits)
                                }
                            }
                          }
                        }
                    }
                }
            }
        }
        guard digits > 0 else { return sortBeyondKeyRange() }
        if bucketed {
            if digits == 2 { return sortInBucketsParallel(bits: 64 - maxMillimetres.leadingZeroBitCount, threads: threads) }
            keysFromMillimetres()
        }
        keys.withUnsafeMutableBufferPointer { a in
            scratch.withUnsafeMutableBufferPointer { b in
                threadCounts.withUnsafeMutableBufferPointer { tc in
                    order.withUnsafeMutableBufferPointer { o in
                            var src = Address(a), dst = Address(b)
                            let pc = Address(tc)
                            for d in 0..<digits {
                                let shift = UInt64(32 + Self.digitBits * d)
                                if d > 0 || bucketed {
                                    // (Bucketed, the distances counted the second digit: the first is counted here.)
                                    let from = src
                                    DispatchQueue.concurrentPerform(iterations: threads) { t in
                                        let lo = t * slice, hi = min(n, lo + slice)
                                        let s = from.pointer, c = pc.pointer + t * Self.buckets
                                        for v in 0..<Self.buckets { c[v] = 0 }
                                        for i in lo..<max(lo, hi) { c[Int((s[i] >> shift) & Self.digitMask)] &+= 1 }
                                    }
                                }
                                // Stable: digit value first, then thread (slices in order).
                                var total = 0
                                for v in 0..<Self.buckets {
                                    for t in 0..<threads {
                                        let k = Int(tc[t * Self.buckets + v])
                                        tc[t * Self.buckets + v] = UInt32(truncatingIfNeeded: total)
                                        total += k
                                    }
                                }
                                let from = src, to = dst
                                DispatchQueue.concurrentPerform(iterations: threads) { t in
                                    let lo = t * slice, hi = min(n, lo + slice)
                                    let s = from.pointer, out = to.pointer, c = pc.pointer + t * Self.buckets
                                    for i in lo..<max(lo, hi) {
                                        let k = s[i]
                                        let slot = Int((k >> shift) & Self.digitMask)
                                        out[Int(c[slot])] = k
                                        c[slot] &+= 1
                                    }
                                }
                                swap(&src, &dst)
                            }
                            let sorted = src, orderAt = Address(o)
                            DispatchQueue.concurrentPerform(iterations: threads) { t in
                                let lo = t * slice, hi = min(n, lo + slice)
                                let s = sorted.pointer, o = orderAt.pointer
                                for r in lo..<max(lo, hi) { o[r] = UInt32(truncatingIfNeeded: s[r]) }
                            }
                    }
                }
            }
        }
    }

    /// ``sortInBuckets(bits:)`` on several threads: the leading bits' counts of each thread's slice
    /// (from its second-digit counts), a prefix sum over (bucket, thread) that keeps the scatter
    /// stable, a parallel scatter, then each thread sorts a run of whole buckets holding about
    /// an equal share of the keys, its temporary keys in its own share of `keys`.
    private mutating func sortInBucketsParallel(bits: Int, threads: Int) {
        let n = count
        let slice = (n + threads - 1) / threads
        let layout = BucketLayout(n, bits: bits)
        let bucketCount = layout.bucketCount, fold = layout.fold
        let shiftLow = UInt32(truncatingIfNeeded: layout.shiftHigh - 32)
        let width = Self.buckets
        keys.withUnsafeMutableBufferPointer { a in
            scratch.withUnsafeMutableBufferPointer { b in
                order.withUnsafeMutableBufferPointer { o in
                    counts.withUnsafeMutableBufferPointer { c in
                        threadCounts.withUnsafeMutableBufferPointer { tc in
                          millimetres.withUnsafeBufferPointer { mm in
                            indexOfTie.withUnsafeBufferPointer { back in
                            guard let a = a.baseAddress, let b = b.baseAddress, let o = o.baseAddress,
                                  let start = c.baseAddress, let tc = tc.baseAddress, let mm = mm.baseAddress, let back = back.baseAddress else { return }
                            // Each thread's second-digit counts folded into bucket counts, in place
                            // (bucket j reads digits from j << fold on, never a slot already written).
                            for t in 0..<threads {
                                let row = tc + t * width
                                for j in 0..<bucketCount {
                                    var sum: UInt32 = 0
                                    for v in (j << fold)..<((j + 1) << fold) { sum &+= row[v] }
                                    row[j] = sum
                                }
                            }
                            // Stable: bucket first, then thread (slices in order).
                            var total: UInt32 = 0
                            for j in 0..<bucketCount {
                                start[j] = total
                                for t in 0..<threads {
                                    let k = tc[t * width + j]
                                    tc[t * width + j] = total
                                    total &+= k
                                }
                            }
                            start[bucketCount] = total
                            let pa = Address(a), pb = Address(b), po = Address(o), ps = Address(start), pc = Address(tc)
                            let pmm = Address(mm), pback = Address(back)
                            DispatchQueue.concurrentPerform(iterations: threads) { t in
                                let lo = t * slice, hi = min(n, lo + slice)
                                Self.scatterMillimetres(lo..<max(lo, hi), UnsafePointer(pmm.pointer), UnsafePointer(pback.pointer), pb.pointer,
                                                        pc.pointer + t * width, shiftLow)
                            }
                            // Runs of whole buckets, about n / threads keys each: thread t's starts at the
                            // first bucket starting at or past t · n / threads.
                            DispatchQueue.concurrentPerform(iterations: threads) { t in
                                let start = UnsafePointer(ps.pointer)
                                func first(_ t: Int) -> Int {
                                    guard t < threads else { return bucketCount }
                                    var lo = 0, hi = bucketCount
                                    while lo < hi {
                                        let mid = (lo + hi) / 2
                                        if Int(start[mid]) < t * n / threads { lo = mid + 1 } else { hi = mid }
                                    }
                                    return lo
                                }
                                let from = first(t), to = first(t + 1)
                                guard from < to else { return }
                                Self.sortBuckets(from..<to, layout, start, UnsafePointer(pb.pointer), pa.pointer + Int(start[from]),
                                                 po.pointer, pc.pointer + t * width)
                            }
                            }
                          }
                        }
                    }
                }
            }
        }
    }

    /// How many digits the radix sort needs for millimetres up to `maxMM` (at least one).
    static func digits(_ maxMM: UInt64) -> Int {
        max(1, (64 - maxMM.leadingZeroBitCount + digitBits - 1) / digitBits)
    }

    /// Places beyond 2000 km (millimetres past 31 bits, which the packed key
    /// cannot hold): a comparison sort on (millimetres, tie rank).
    private mutating func sortBeyondKeyRange() {
        guard let w = lastWalker else { return }
        let mm = (0..<count).map { t in
            Self.rankingDistance(w, x[t], y[t], z[t], geodesic, coordinates, Int(indexOfTie[t])).millimetres
        }
        let sorted = (0..<count).sorted { a, b in mm[a] != mm[b] ? mm[a] < mm[b] : a < b }
        for (r, t) in sorted.enumerated() { order[r] = indexOfTie[t] }
    }

    /// Small sets (up to ``smallCount``): the distances (kept for
    /// ``distance(atRank:)``) and millimetres in one vectorised loop
    /// (``millimetresSmall(_:_:_:_:_:_:_:_:exact:)``), then the keys in the
    /// previous order, which is nearly sorted, through insertion sort.
    private mutating func rankSmall(_ w: Walker) {
        // The arrays go to a static function as borrowed arguments: read through inout `self`
        // inside closures, each would be retained and released on every update.
        let beyondKeyRange = Self.rankSmall(w, count, x, y, z, indexOfTie, tieRank, geodesic, coordinates,
                                            keys: &keys, distances: &smallDistances, order: &order)
        if beyondKeyRange {
            sortBeyondKeyRange()
            for r in 0..<count { smallDistances[count + r] = smallDistances[Int(tieRank[Int(order[r])])] }
        }
    }

    /// ``rankSmall(_:)`` on its buffers (`distances`: by tie position, then by
    /// rank; `keys`: millimetres by tie position, then the sorted keys);
    /// returns whether some millimetre is past the keys' 31 bits, and then
    /// leaves the order to ``sortBeyondKeyRange()``.
    private static func rankSmall(_ w: Walker, _ n: Int, _ x: borrowing [Double], _ y: borrowing [Double], _ z: borrowing [Double],
                                  _ indexOfTie: borrowing [UInt32], _ tieRank: borrowing [UInt32],
                                  _ geodesic: borrowing Geodesic, _ coordinates: borrowing [Coordinate],
                                  keys: inout [UInt64], distances: inout [Double], order: inout [UInt32]) -> Bool {
        var beyondKeyRange = false
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                z.withUnsafeBufferPointer { zs in
                    indexOfTie.withUnsafeBufferPointer { back in
                        tieRank.withUnsafeBufferPointer { ties in
                            keys.withUnsafeMutableBufferPointer { ks in
                                distances.withUnsafeMutableBufferPointer { ds in
                                    order.withUnsafeMutableBufferPointer { o in
                                        guard let xs = xs.baseAddress, let ys = ys.baseAddress, let zs = zs.baseAddress, let back = back.baseAddress,
                                              let ties = ties.baseAddress, let ks = ks.baseAddress, let ds = ds.baseAddress,
                                              let o = o.baseAddress else { return }
                                        let dr = ds + n
                                        beyondKeyRange = millimetresSmall(w, n, xs, ys, zs, back, ks, ds) { geodesic.distance(w.coordinate, coordinates[$0]) }
                                        guard !beyondKeyRange else { return }
                                        // Millimetres above the tie position, in the previous order (nearly sorted).
                                        for r in 0..<n {
                                            let t = Int(ties[Int(o[r])])
                                            ks[n + r] = ks[t] << 32 | UInt64(t)
                                        }
                                        let s = ks + n
                                        for r in 1..<n {
                                            let k = s[r]
                                            var j = r - 1
                                            while j >= 0 && s[j] > k {
                                                s[j + 1] = s[j]
                                                j -= 1
                                            }
                                            s[j + 1] = k
                                        }
                                        for r in 0..<n {
                                            let t = Int(truncatingIfNeeded: s[r] & 0xFFFF_FFFF)
                                            o[r] = back[t]
                                            dr[r] = ds[t]
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return beyondKeyRange
    }

    /// The distances (`ds`) and millimetres (`mm`) of the `n` places of a small
    /// set by tie position; returns whether some millimetre is past 31 bits
    /// (only possible beyond 20 km). Unsafe pointers, unchecked: `n` places in each buffer.
    ///
    /// One loop of straight-line arithmetic the compiler turns into vector
    /// instructions: the series, the millimetre rounded through
    /// ``roundingBias``, and ``needsKarney(_:_:)``'s two comparisons as sign
    /// bits, OR-ed: `|mm − round(mm)| − (0.5 − tolerance)` is not negative
    /// (its sign bit, inverted, is set) exactly where `|mm − round(mm)| ≥
    /// 0.5 − tolerance`, and `exactRange − d` is negative exactly where `d >
    /// exactRange` (a difference of two doubles is +0 when they are equal).
    /// Only if some bit is set are the places gone over one by one, with
    /// ``needsKarney(_:_:)`` itself. No branches and no floating-point
    /// reductions are left in the loop, which is what lets it be vectorised.
    @inline(__always)
    static func millimetresSmall(_ w: Walker, _ n: Int, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
                                 _ back: UnsafePointer<UInt32>, _ mm: UnsafeMutablePointer<UInt64>, _ ds: UnsafeMutablePointer<Double>,
                                 exact: (Int) -> Double) -> Bool {
        let wx = w.wx, wy = w.wy, wz = w.wz, nx = w.nx, ny = w.ny, nz = w.nz
        let a = w.a, b = w.b
        let bias = roundingBias
        // 0.5 mm less the tolerance (in millimetres) in each distance class, as needsKarney has it.
        let near = 0.5 - GeodesicDistanceFrame.tolerance(atDistance: 0) * 1000
        let mid = 0.5 - GeodesicDistanceFrame.tolerance(atDistance: 7500) * 1000
        let far = 0.5 - GeodesicDistanceFrame.tolerance * 1000
        let range = GeodesicDistanceFrame.exactRange
        var signs: UInt64 = 0
        for i in 0..<n {
            let dx = xs[i] - wx, dy = ys[i] - wy, dz = zs[i] - wz
            let c2 = dx * dx + dy * dy + dz * dz
            let cn = dx * nx + dy * ny + dz * nz
            let d = c2.squareRoot() * (1 + c2 * a + b * cn * cn)
            ds[i] = d
            let m = d * 1000
            let biased = m + bias
            let rounded = biased - bias
            let limit = d <= 5000 ? near : (d <= 10_000 ? mid : far)
            signs |= ~(abs(m - rounded) - limit).bitPattern | (range - d).bitPattern
            mm[i] = biased.bitPattern & 0xFFFF_FFFF
        }
        // Every place within 20 km, every millimetre decided: all below 2·10⁷, well inside 31 bits.
        if signs >> 63 == 0 { return false }
        var maxMM: UInt64 = 0
        for i in 0..<n {
            var d = ds[i]
            if needsKarney(d, d * 1000) { d = exact(Int(back[i])) }
            ds[i] = d
            mm[i] = UInt64(bitPattern: Int64(min(d * 1000 + 0.5, 9e18)))
            maxMM = max(maxMM, mm[i])
        }
        return maxMM >= 1 << 31
    }

    /// Stable LSD radix sort on 12-bit digits of the millimetres. The keys start
    /// in tie order, so equal millimetres stay in name-then-id order; their
    /// low halves, the place indices, are then the order.
    private mutating func radixSort(maxMillimetres: UInt64) {
        let n = count
        let digits = Self.digits(maxMillimetres)
        let bucketed = n >= bucketsFrom
        let width = UInt64(Self.digitBits)
        let buckets = Self.buckets, mask = Self.digitMask
        keys.withUnsafeMutableBufferPointer { a in
            scratch.withUnsafeMutableBufferPointer { b in
                order.withUnsafeMutableBufferPointer { o in
                    counts.withUnsafeMutableBufferPointer { c in
                        cursors.withUnsafeMutableBufferPointer { cur in
                            if digits == 1 && bucketed {
                                // The distances counted the second digit alone (see ``sortInBuckets(bits:)``).
                                for i in 0..<buckets { c[i] = 0 }
                                for i in 0..<n { c[Int((a[i] >> 32) & mask)] &+= 1 }
                            } else if digits > 2 {
                                // Past 16.7 km: the first two digits' counts from the distances are recounted with the third.
                                for i in 0..<(buckets * digits) { c[i] = 0 }
                                for i in 0..<n {
                                    let mm = a[i] >> 32
                                    for d in 0..<digits { c[d &* buckets &+ Int((mm >> (width &* UInt64(d))) & mask)] &+= 1 }
                                }
                            }
                            var src = a, dst = b
                            for d in 0..<digits {
                                var total = 0
                                let base = d * buckets
                                for v in 0..<buckets {
                                    cur[v] = UInt32(truncatingIfNeeded: total)
                                    total += Int(c[base + v])
                                }
                                let shift = 32 + width * UInt64(d)
                                if d == digits - 1 {
                                    // The last pass writes the place indices, the order itself, not the keys.
                                    for i in 0..<n {
                                        let k = src[i]
                                        let slot = Int((k >> shift) & mask)
                                        o[Int(cur[slot])] = UInt32(truncatingIfNeeded: k)
                                        cur[slot] &+= 1
                                    }
                                    break
                                }
                                for i in 0..<n {
                                    let k = src[i]
                                    let slot = Int((k >> shift) & mask)
                                    dst[Int(cur[slot])] = k
                                    cur[slot] &+= 1
                                }
                                swap(&src, &dst)
                            }
                        }
                    }
                }
            }
        }
    }

    /// From this many places on (by default), two-digit millimetres are sorted by their leading bits
    /// into buckets first, then each bucket on its own (``sortInBuckets(bits:)``, and on several
    /// threads ``sortInBucketsParallel(bits:threads:)``): once the
    /// places' positions and keys outgrow the last-level cache, a pass over memory costs more
    /// than the passes within a bucket. Measured on one thread (32 MB last-level cache): 300 000
    /// places 1.7 ms by two 12-bit digits, 2.5 ms in buckets; 400 000 3.6 and 2.9 ms; a million
    /// 11.1 and 7.5 ms.
    public static let bucketThreshold = 350_000
    /// From this many places on, the keys are sorted in buckets (``bucketThreshold`` by default).
    public var bucketsFrom = RankingIndex.bucketThreshold

    /// The sort for many places and millimetres of 13 to 24 bits: one stable pass by the
    /// leading bits scatters the keys into buckets of about 2 000 (a few hundred write
    /// streams, where a 12-bit digit has 4 096), then each bucket, small enough to stay in
    /// the first- and second-level caches, is sorted by the rest of its bits in two stable
    /// passes (an LSD sort within the bucket), the second writing the order itself.
    ///
    /// The distance pass wrote the millimetres alone (``millimetres``, 4 bytes a place where a
    /// key takes 8); the keys are made as they are scattered, each millimetre above its tie
    /// index. The leading digit's counts come from the second 12-bit digit's, counted with the
    /// distances (the leading bits are that digit's top bits); each bucket counts its own two.
    private mutating func sortInBuckets(bits: Int) {
        let n = count
        let layout = BucketLayout(n, bits: bits)
        let bucketCount = layout.bucketCount, fold = layout.fold
        let shiftLow = UInt32(truncatingIfNeeded: layout.shiftHigh - 32)
        keys.withUnsafeMutableBufferPointer { a in
            scratch.withUnsafeMutableBufferPointer { b in
                order.withUnsafeMutableBufferPointer { o in
                    counts.withUnsafeMutableBufferPointer { c in
                        cursors.withUnsafeMutableBufferPointer { cur in
                          millimetres.withUnsafeBufferPointer { mm in
                            indexOfTie.withUnsafeBufferPointer { back in
                            guard let a = a.baseAddress, let b = b.baseAddress, let o = o.baseAddress,
                                  let c = c.baseAddress, let cur = cur.baseAddress, let mm = mm.baseAddress, let back = back.baseAddress else { return }
                            // Bucket starts (in `c`'s first row, free once the first digit's counts are
                            // not needed) and the leading pass's cursors.
                            let start = c
                            for v in 0...bucketCount { start[v] = 0 }
                            for v in 0..<Self.buckets { start[(v >> fold) + 1] &+= c[Self.buckets + v] }
                            for v in 0..<bucketCount { start[v + 1] &+= start[v] }
                            for v in 0..<bucketCount { cur[v] = start[v] }
                            Self.scatterMillimetres(0..<n, mm, back, b, cur, shiftLow)
                            // `a` (the keys' buffer) is free, and its start stays in cache from one bucket to the next.
                            Self.sortBuckets(0..<bucketCount, layout, start, b, a, o, cur)
                            }
                          }
                        }
                    }
                }
            }
        }
    }

    /// The stable pass into buckets: the keys (millimetres above tie indices) of tie positions
    /// `range`, each written at its bucket's cursor (`cursors`, advanced); a bucket is the
    /// millimetres shifted right by `shift`. Unchecked pointers.
    @inline(__always)
    static func scatterMillimetres(_ range: Range<Int>, _ mm: UnsafePointer<UInt32>, _ back: UnsafePointer<UInt32>,
                                   _ b: UnsafeMutablePointer<UInt64>, _ cursors: UnsafeMutablePointer<UInt32>, _ shift: UInt32) {
        for i in range {
            let m = mm[i]
            let slot = Int(truncatingIfNeeded: m >> shift)
            b[Int(cursors[slot])] = UInt64(m) << 32 | UInt64(back[i])
            cursors[slot] &+= 1
        }
    }

    /// How ``sortInBuckets(bits:)`` splits millimetres of `bits` bits (13 to 24) for `n` keys:
    /// the leading bits make about 2 048 keys a bucket (at most 2 048 buckets, so that their
    /// starts fit a row of the counts), the rest (12 to 16 bits) are sorted in two passes.
    struct BucketLayout {
        let bucketCount: Int
        /// A key's bucket: the key shifted right by this much.
        let shiftHigh: UInt64
        /// A count of the second 12-bit digit goes to bucket `digit >> fold`.
        let fold: Int
        /// The two passes within a bucket: the low `lowA` bits, then the next `lowB`.
        let lowA: Int, lowB: Int

        init(_ n: Int, bits: Int) {
            let wanted = Int.bitWidth - n.leadingZeroBitCount - 11
            let high = max(1, min(max(wanted, bits - 16), bits - 12, 11))
            let low = bits - high
            bucketCount = 1 << high
            shiftHigh = UInt64(32 + low)
            fold = low - RankingIndex.digitBits
            lowA = (low + 1) / 2
            lowB = low - lowA
        }
    }

    /// Sorts the buckets `range` (starting at `start`, keys in `b`) by the rest of their bits:
    /// per bucket, counts of its two digits, then keys by the low digit into `temp` (room for
    /// the largest bucket), then place indices into the order `o` by the next digit.
    /// `counts`: 512 of them. Unchecked pointers, as ``rankSlice(_:_:_:_:_:_:_:counts:exact:)``.
    @inline(__always)
    static func sortBuckets(_ range: Range<Int>, _ layout: BucketLayout, _ start: UnsafePointer<UInt32>, _ b: UnsafePointer<UInt64>,
                            _ temp: UnsafeMutablePointer<UInt64>, _ o: UnsafeMutablePointer<UInt32>, _ counts: UnsafeMutablePointer<UInt32>) {
        let lowA = layout.lowA, lowB = layout.lowB
        let maskA = UInt64(1) << UInt64(lowA) - 1, maskB = UInt64(1) << UInt64(lowB) - 1
        let countA = counts, countB = counts + 256
        for j in range {
            let lo = Int(start[j]), hi = Int(start[j + 1])
            if hi - lo < 2 {
                if hi > lo { o[lo] = UInt32(truncatingIfNeeded: b[lo]) }
                continue
            }
            for v in 0...Int(maskA) { countA[v] = 0 }
            for v in 0...Int(maskB) { countB[v] = 0 }
            for i in lo..<hi {
                let mm = b[i] >> 32
                countA[Int(truncatingIfNeeded: mm & maskA)] &+= 1
                countB[Int(truncatingIfNeeded: (mm >> UInt64(lowA)) & maskB)] &+= 1
            }
            var totalA: UInt32 = 0, totalB = UInt32(truncatingIfNeeded: lo)
            for v in 0...Int(maskA) {
                let k = countA[v]
                countA[v] = totalA
                totalA &+= k
            }
            for v in 0...Int(maskB) {
                let k = countB[v]
                countB[v] = totalB
                totalB &+= k
            }
            for i in lo..<hi {
                let k = b[i]
                let slot = Int(truncatingIfNeeded: (k >> 32) & maskA)
                temp[Int(countA[slot])] = k
                countA[slot] &+= 1
            }
            for i in 0..<(hi - lo) {
                let k = temp[i]
                let slot = Int(truncatingIfNeeded: (k >> UInt64(32 + lowA)) & maskB)
                o[Int(countB[slot])] = UInt32(truncatingIfNeeded: k)
                countB[slot] &+= 1
            }
        }
    }

    // MARK: k nearest

    /// The `k` nearest places in exact order, written to `result` as (index, distance).
    /// Searches grid cells outward from the walker and stops when no unvisited
    /// cell can hold a place nearer than the k-th found.
    public func nearest(_ k: Int, from walker: Coordinate, into result: inout [(index: Int, distance: Double)]) {
        result.removeAll(keepingCapacity: true)
        guard k > 0, count > 0 else { return }
        let w = Walker(walker, ellipsoid: geodesic.ellipsoid)
        let want = min(k, count)
        var ring = 0
        let (row0, col0) = grid.cell(of: walker)
        while true {
            grid.forEachInRing(row0, col0, ring) { i in
                let d = orderingDistance(i, w)
                insertNearest(&result, (i, d), limit: want)
            }
            let bound = grid.lowerBound(ringsOutside: ring, around: walker)
            if result.count == want, let last = result.last, bound > last.distance + 1 { break }
            if ring > grid.maxRing { break }
            ring += 1
        }
    }

    private func insertNearest(_ list: inout [(index: Int, distance: Double)], _ item: (Int, Double), limit: Int) {
        func before(_ a: (index: Int, distance: Double), _ b: (index: Int, distance: Double)) -> Bool {
            let ma = (a.distance * 1000).rounded(), mb = (b.distance * 1000).rounded()
            return ma != mb ? ma < mb : tieRank[a.index] < tieRank[b.index]
        }
        let entry = (index: item.0, distance: item.1)
        if list.count == limit, let last = list.last, !before(entry, last) { return }
        var j = list.count
        while j > 0 && before(entry, list[j - 1]) { j -= 1 }
        list.insert(entry, at: j)
        if list.count > limit { list.removeLast() }
    }

    // MARK: Region

    /// Places inside the rectangle `|lat − centre.lat| ≤ latDelta/2`, `|lon − centre.lon| ≤ lonDelta/2`, by index.
    public func inside(center: Coordinate, latitudeDelta: Double, longitudeDelta: Double, into result: inout [Int]) {
        result.removeAll(keepingCapacity: true)
        grid.forEachInBox(minLat: center.latitude - latitudeDelta / 2, maxLat: center.latitude + latitudeDelta / 2,
                          minLon: center.longitude - longitudeDelta / 2, maxLon: center.longitude + longitudeDelta / 2) { i in
            let c = coordinates[i]
            if abs(c.latitude - center.latitude) <= latitudeDelta / 2 && abs(c.longitude - center.longitude) <= longitudeDelta / 2 {
                result.append(i)
            }
        }
    }
}

/// A buffer's address as a number, so that worker threads may be handed it:
/// each writes only its own part, and the caller waits for them all
/// (see ``RankingIndex/rankAll(from:)``).
struct Address<Element>: Sendable {
    private let bits: UInt

    init(_ buffer: UnsafeBufferPointer<Element>) {
        bits = UInt(bitPattern: buffer.baseAddress)
    }

    init(_ buffer: UnsafeMutableBufferPointer<Element>) {
        bits = UInt(bitPattern: buffer.baseAddress)
    }

    init(_ pointer: UnsafePointer<Element>) {
        bits = UInt(bitPattern: pointer)
    }

    init(_ pointer: UnsafeMutablePointer<Element>) {
        bits = UInt(bitPattern: pointer)
    }

    /// The address (never null: only non-empty buffers are handed out).
    var pointer: UnsafeMutablePointer<Element> {
        // Programmer's invariant, not input: only buffers of one place or more are handed out (rankAll returns early for none).
        UnsafeMutablePointer(bitPattern: bits)!
    }
}

/// The distance pass ``RankingIndex/rankAll(from:beside:)`` shares with a diff's
/// thread: a run counter handing out run numbers 0, 1, 2, … (each once), the figures
/// of the update (``Pass``: the walker, the places' buffers by address), and the
/// second thread's digit counts and largest millimetre. Allocated once per index and
/// filled in by the calling thread before it posts the job, read by the worker after
/// it takes it (the post's release and the take's acquire order them). The job holds
/// the counter and the addresses, not this object, which the index alone holds and
/// which outlives every job (the calling thread waits for the job).
final class SharedPass: Sendable {
    struct Pass: Sendable {
        var walker: RankingIndex.Walker
        let karney: Geodesic
        let places: [Coordinate]
        var n = 0, runs = 0
        /// The places' ECEF coordinates and tie indices, and the keys to write (set by ``SharedPass/start(_:n:runs:_:_:_:_:_:)``).
        var xs: Address<Double>?, ys: Address<Double>?, zs: Address<Double>?
        var back: Address<UInt32>?
        var keys: Address<UInt64>?
        /// The worker's largest millimetre.
        var largest: UInt64 = 0
    }

    let next = RunCounter()
    let pass: Address<Pass>
    /// The worker's counts of two digits.
    let counts: Address<UInt32>

    init(walker: RankingIndex.Walker, karney: Geodesic, places: [Coordinate]) {
        let p = UnsafeMutablePointer<Pass>.allocate(capacity: 1)
        p.initialize(to: Pass(walker: walker, karney: karney, places: places))
        pass = Address(p)
        let c = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * RankingIndex.buckets)
        c.initialize(repeating: 0, count: 2 * RankingIndex.buckets)
        counts = Address(c)
    }

    deinit {
        pass.pointer.deinitialize(count: 1)
        pass.pointer.deallocate()
        counts.pointer.deallocate()
    }

    /// Sets the next pass (before the job is posted).
    func start(_ w: RankingIndex.Walker, n: Int, runs: Int, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
               _ back: UnsafePointer<UInt32>, _ ks: UnsafeMutablePointer<UInt64>) {
        let p = pass.pointer
        p.pointee.walker = w
        p.pointee.n = n
        p.pointee.runs = runs
        p.pointee.xs = Address(xs)
        p.pointee.ys = Address(ys)
        p.pointee.zs = Address(zs)
        p.pointee.back = Address(back)
        p.pointee.keys = Address(ks)
        p.pointee.largest = 0
        next.reset()
    }

    /// The next runs' keys, their digits counted into `counts` (zeroed by the caller); the largest millimetre.
    func take(_ counts: UnsafeMutablePointer<UInt32>) -> UInt64 {
        Self.take(next, pass, counts)
    }

    private static func take(_ next: RunCounter, _ pass: Address<Pass>, _ counts: UnsafeMutablePointer<UInt32>) -> UInt64 {
        let p = pass.pointer
        let w = p.pointee.walker, karney = p.pointee.karney, places = p.pointee.places, n = p.pointee.n, runs = p.pointee.runs
        guard let xs = p.pointee.xs?.pointer, let ys = p.pointee.ys?.pointer, let zs = p.pointee.zs?.pointer,
              let back = p.pointee.back?.pointer, let ks = p.pointee.keys?.pointer else { return 0 }
        var maxMM: UInt64 = 0
        while true {
            let run = next.take()
            guard run < runs else { return maxMM }
            let lo = run * RankingIndex.besideRun, hi = min(n, lo + RankingIndex.besideRun)
            maxMM = max(maxMM, RankingIndex.rankSlice(w, lo..<hi, xs, ys, zs, back, ks, counts: counts) { karney.distance(w.coordinate, places[$0]) })
        }
    }

    /// The worker's share: its counts zeroed, then the runs it takes, its largest millimetre kept.
    static func workerTakes(_ next: RunCounter, _ pass: Address<Pass>, _ counts: Address<UInt32>) {
        let c = counts.pointer
        for v in 0..<(2 * RankingIndex.buckets) { c[v] = 0 }
        pass.pointer.pointee.largest = take(next, pass, c)
    }
}

/// Hands out run numbers 0, 1, 2, … to the threads sharing a pass, each number once.
final class RunCounter: Sendable {
    private let next = Atomic<Int>(0)

    /// The next run number.
    func take() -> Int {
        next.add(1, ordering: .relaxed).oldValue
    }

    /// Back to 0, before the next pass is posted.
    func reset() {
        next.store(0, ordering: .relaxed)
    }
}
