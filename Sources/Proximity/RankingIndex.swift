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
/// ``GeodesicDistanceFrame/tolerance`` up to 20 km (tested). The order rounds
/// distances to whole millimetres; a distance within that tolerance of a
/// half millimetre could round either way, so it is recomputed with Karney's
/// method, as are places beyond 20 km. Ties within a millimetre go by name,
/// then id (Unicode scalar order), through a precomputed tie rank.
///
/// **Cost.** One pass of arithmetic per place for the full order, then a
/// least-significant-digit radix sort of 64-bit keys (millimetres above the
/// tie rank); small sets use insertion sort from the previous order, which is
/// nearly sorted. From ``parallelThreshold`` places on, the distances and
/// the radix sort are split across ``threads`` (every core by default). The
/// k nearest and region queries use a latitude–longitude grid and touch only
/// nearby cells. Nothing is allocated per update once the buffers have grown.
public struct RankingIndex {
    public let count: Int
    /// Coordinates by place index.
    public let coordinates: [Coordinate]
    // Positions are stored in tie order (name, then id), so that a stable sort by millimetres alone gives the contract's order.
    private let x: [Double], y: [Double], z: [Double]
    private let tieRank: [UInt32]
    private let indexOfTie: [UInt32]
    private var keys: [UInt64]
    private var scratch: [UInt64]
    private var counts: [Int]
    private var distanceByTie: [Double]
    /// Place indices in ranking order after ``rankAll(from:)``.
    public private(set) var order: [UInt32]
    private var hasOrder = false
    private let grid: PointGrid
    private let geodesic: Geodesic
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
    public static let parallelThreshold = 100_000
    /// From this many places on, ``rankAll(from:)`` splits its work across ``threads``.
    public var parallelFrom = RankingIndex.parallelThreshold
    /// Per-thread digit counts for the parallel radix sort, and each thread's largest key.
    private var threadCounts: [Int] = []
    private var threadMax: [UInt64] = []

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
        keys = [UInt64](repeating: 0, count: count)
        scratch = [UInt64](repeating: 0, count: count)
        counts = [Int](repeating: 0, count: Self.buckets * Self.maxDigits)
        distanceByTie = [Double](repeating: 0, count: count)
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
        let perPlace = MemoryLayout<Coordinate>.stride + 3 * 8 + 4 + 4 + 8 + 8 + 8 + 4
        return Double(perPlace) + Double(grid.bytes + counts.count * 8) / Double(max(count, 1))
    }

    /// The distance of place `index` from the last walker given to ``rankAll(from:)``.
    public func distance(ofPlace index: Int) -> Double { distanceByTie[Int(tieRank[index])] }

    /// The distance of the place in row `rank` of ``order``.
    public func distance(atRank rank: Int) -> Double { distanceByTie[Int(keys[rank] & 0xFFFF_FFFF)] }

    // MARK: Distances

    /// A frame for the walker: ECEF position, local east and north, inverse radii of curvature.
    struct Walker {
        let coordinate: Coordinate
        let wx: Double, wy: Double, wz: Double
        let nx: Double, ny: Double, nz: Double
        let invM: Double, invN: Double

        init(_ c: Coordinate, ellipsoid: Ellipsoid) {
            coordinate = c
            let phi = c.latitude * .pi / 180, lam = c.longitude * .pi / 180
            let sphi = sin(phi), cphi = cos(phi), slam = sin(lam), clam = cos(lam)
            // ECEF from the same sines and cosines (no degree-exact reduction needed at this precision: ~1e-9 m).
            let e2Walker = ellipsoid.eccentricitySquared
            let nWalker = ellipsoid.semiMajorAxis / (1 - e2Walker * sphi * sphi).squareRoot()
            wx = nWalker * cphi * clam
            wy = nWalker * cphi * slam
            wz = nWalker * (1 - e2Walker) * sphi
            nx = -sphi * clam
            ny = -sphi * slam
            nz = cphi
            let e2 = ellipsoid.eccentricitySquared
            let w2 = 1 - e2 * sphi * sphi
            invN = w2.squareRoot() / ellipsoid.semiMajorAxis
            invM = w2 * w2.squareRoot() / (ellipsoid.semiMajorAxis * (1 - e2))
        }

        /// The chord series `s = c·(1 + c²/(24R²))` with the direction's radius of curvature
        /// expanded to first order in `1/M − 1/N` (a few parts in a thousand), so that no
        /// division is needed: `c²/R² ≈ c²/N² + 2(1/N)(1/M − 1/N)·c_north²`. The dropped
        /// terms are under 1e-8 m at 10 km; the whole stays within the tolerance up to 20 km (tested).
        @inline(__always)
        func distance(_ px: Double, _ py: Double, _ pz: Double) -> Double {
            let dx = px - wx, dy = py - wy, dz = pz - wz
            let c2 = dx * dx + dy * dy + dz * dz
            let cn = dx * nx + dy * ny + dz * nz
            return c2.squareRoot() * (1 + (c2 * invN2 + twoInvNDelta * cn * cn) * (1.0 / 24))
        }

        var invN2: Double { invN * invN }
        var twoInvNDelta: Double { 2 * invN * (invM - invN) }
    }

    /// The distance to place `i` for ordering: the millimetre it rounds to is
    /// Karney's (Karney's method near a half millimetre and beyond 20 km).
    @inline(__always)
    private func orderingDistance(_ i: Int, _ w: Walker) -> Double {
        let t = Int(tieRank[i])
        return Self.rankingDistance(w, x[t], y[t], z[t], geodesic, coordinates, i).distance
    }

    /// Distances and keys for the places in `range` (tie positions), largest
    /// millimetre returned. Blocks of 256: first the chord series for the whole
    /// block in straight-line arithmetic the compiler turns into vector
    /// instructions, then the millimetre keys, with Karney's method where the
    /// series cannot decide the millimetre.
    @inline(__always)
    static func rankSlice(_ w: Walker, _ range: Range<Int>, _ xs: UnsafePointer<Double>?, _ ys: UnsafePointer<Double>?, _ zs: UnsafePointer<Double>?,
                          _ back: UnsafePointer<UInt32>?, _ ds: UnsafeMutablePointer<Double>?, _ ks: UnsafeMutablePointer<UInt64>?,
                          _ karney: Geodesic, _ places: [Coordinate]) -> UInt64 {
        guard let xs, let ys, let zs, let back, let ds, let ks else { return 0 }
        let wx = w.wx, wy = w.wy, wz = w.wz, nx = w.nx, ny = w.ny, nz = w.nz
        let a = w.invN2 / 24, b = w.twoInvNDelta / 24
        var maxMM: UInt64 = 0
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(range.upperBound, start + 256)
            for i in start..<end {
                let dx = xs[i] - wx, dy = ys[i] - wy, dz = zs[i] - wz
                let c2 = dx * dx + dy * dy + dz * dz
                let cn = dx * nx + dy * ny + dz * nz
                ds[i] = c2.squareRoot() * (1 + c2 * a + b * cn * cn)
            }
            for i in start..<end {
                var d = ds[i]
                var mm = d * 1000
                if Self.needsKarney(d, mm) {
                    d = karney.distance(w.coordinate, places[Int(back[i])])
                    ds[i] = d
                    mm = d * 1000
                }
                let rounded = UInt64(bitPattern: Int64(mm + 0.5))
                ks[i] = rounded << 32 | UInt64(i)
                maxMM = max(maxMM, rounded)
            }
            start = end
        }
        return maxMM
    }

    /// Whether the series' distance `d` (`mm` in millimetres) cannot decide the
    /// millimetre it rounds to: near a half millimetre, within the series' error
    /// bound at that distance, or beyond the series' range.
    @inline(__always)
    static func needsKarney(_ d: Double, _ mm: Double) -> Bool {
        d > GeodesicDistanceFrame.exactRange || abs(mm - Double(Int64(mm)) - 0.5) <= GeodesicDistanceFrame.tolerance(atDistance: d) * 1000
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

    /// Ranks every place from `walker`; read the result in ``order`` and ``rankedDistances``.
    public mutating func rankAll(from walker: Coordinate) {
        let w = Walker(walker, ellipsoid: geodesic.ellipsoid)
        let n = count
        guard n > 0 else { return }
        if n >= max(2, parallelFrom) && threads > 1 { return rankAllParallel(w, threads: min(threads, 64, n)) }
        var maxMM: UInt64 = 0
        let karney = geodesic
        let places = coordinates
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                z.withUnsafeBufferPointer { zs in
                    indexOfTie.withUnsafeBufferPointer { back in
                        distanceByTie.withUnsafeMutableBufferPointer { ds in
                            keys.withUnsafeMutableBufferPointer { ks in
                                maxMM = Self.rankSlice(w, 0..<n, xs.baseAddress, ys.baseAddress, zs.baseAddress, back.baseAddress,
                                                       ds.baseAddress, ks.baseAddress, karney, places)
                            }
                        }
                    }
                }
            }
        }
        if maxMM >= 1 << 31 {
            sortBeyondKeyRange()
        } else if n <= 256 && hasOrder {
            insertionSortFromPreviousOrder()
        } else {
            radixSort(maxMillimetres: maxMM)
        }
        hasOrder = true
    }

    /// The full order on several threads: each takes a contiguous slice of the
    /// places for the distances (counting the first digit as it goes), then the
    /// radix sort runs each digit as a parallel count, a prefix sum over
    /// (digit, thread) that keeps it stable, and a parallel scatter.
    ///
    /// Worker threads get the buffers' addresses as numbers (``Address``) and
    /// write only their own slice, or slots the prefix sum gave them alone;
    /// the calling thread waits for them (`concurrentPerform`) before reading.
    private mutating func rankAllParallel(_ w: Walker, threads: Int) {
        let n = count
        let slice = (n + threads - 1) / threads
        if threadCounts.count < threads * Self.buckets { threadCounts = [Int](repeating: 0, count: threads * Self.buckets) }
        if threadMax.count < threads { threadMax = [UInt64](repeating: 0, count: threads) }
        let karney = geodesic
        let places = coordinates
        var digits = 0
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                z.withUnsafeBufferPointer { zs in
                    indexOfTie.withUnsafeBufferPointer { back in
                        distanceByTie.withUnsafeMutableBufferPointer { ds in
                            keys.withUnsafeMutableBufferPointer { ks in
                                threadCounts.withUnsafeMutableBufferPointer { tc in
                                    threadMax.withUnsafeMutableBufferPointer { tm in
                                        let px = Address(xs), py = Address(ys), pz = Address(zs), pb = Address(back)
                                        let pd = Address(ds), pk = Address(ks), pc = Address(tc), pm = Address(tm)
                                        DispatchQueue.concurrentPerform(iterations: threads) { t in
                                            let lo = t * slice, hi = min(n, lo + slice)
                                            let xs = px.pointer, ys = py.pointer, zs = pz.pointer, back = pb.pointer
                                            let ds = pd.pointer, ks = pk.pointer, c = pc.pointer + t * Self.buckets
                                            for v in 0..<Self.buckets { c[v] = 0 }
                                            let localMax = lo < hi ? Self.rankSlice(w, lo..<hi, xs, ys, zs, back, ds, ks, karney, places) : 0
                                            for i in lo..<max(lo, hi) { c[Int((ks[i] >> 32) & Self.digitMask)] += 1 }
                                            pm.pointer[t] = localMax
                                        }
                                        var maxMM: UInt64 = 0
                                        for t in 0..<threads { maxMM = max(maxMM, tm[t]) }
                                        guard maxMM < 1 << 31 else { return }
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
        guard digits > 0 else {
            sortBeyondKeyRange()
            hasOrder = true
            return
        }
        keys.withUnsafeMutableBufferPointer { a in
            scratch.withUnsafeMutableBufferPointer { b in
                threadCounts.withUnsafeMutableBufferPointer { tc in
                    order.withUnsafeMutableBufferPointer { o in
                        indexOfTie.withUnsafeBufferPointer { back in
                            var src = Address(a), dst = Address(b)
                            let pc = Address(tc)
                            for d in 0..<digits {
                                let shift = UInt64(32 + Self.digitBits * d)
                                if d > 0 {
                                    let from = src
                                    DispatchQueue.concurrentPerform(iterations: threads) { t in
                                        let lo = t * slice, hi = min(n, lo + slice)
                                        let s = from.pointer, c = pc.pointer + t * Self.buckets
                                        for v in 0..<Self.buckets { c[v] = 0 }
                                        for i in lo..<max(lo, hi) { c[Int((s[i] >> shift) & Self.digitMask)] += 1 }
                                    }
                                }
                                // Stable: digit value first, then thread (slices in order).
                                var total = 0
                                for v in 0..<Self.buckets {
                                    for t in 0..<threads {
                                        let k = tc[t * Self.buckets + v]
                                        tc[t * Self.buckets + v] = total
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
                                        out[c[slot]] = k
                                        c[slot] += 1
                                    }
                                }
                                swap(&src, &dst)
                            }
                            let sorted = src, keysAt = Address(a), orderAt = Address(o), tieAt = Address(back)
                            DispatchQueue.concurrentPerform(iterations: threads) { t in
                                let lo = t * slice, hi = min(n, lo + slice)
                                let s = sorted.pointer, ks = keysAt.pointer, o = orderAt.pointer, back = tieAt.pointer
                                for r in lo..<max(lo, hi) {
                                    let k = s[r]
                                    if s != ks { ks[r] = k }
                                    o[r] = back[Int(k & 0xFFFF_FFFF)]
                                }
                            }
                        }
                    }
                }
            }
        }
        hasOrder = true
    }

    /// Places beyond 2000 km (millimetres past 31 bits, which the packed key
    /// cannot hold): a comparison sort on (millimetres, tie rank).
    private mutating func sortBeyondKeyRange() {
        let mm = distanceByTie.map { UInt64($0 * 1000 + 0.5) }
        let sorted = (0..<count).sorted { a, b in mm[a] != mm[b] ? mm[a] < mm[b] : a < b }
        for (r, t) in sorted.enumerated() { keys[r] = min(mm[t], 0xFFFF_FFFF) << 32 | UInt64(t) }
        writeOrder()
    }

    /// Small sets: the previous order is nearly sorted, so insertion sort is close to linear.
    private mutating func insertionSortFromPreviousOrder() {
        let n = count
        keys.withUnsafeMutableBufferPointer { ks in
            scratch.withUnsafeMutableBufferPointer { s in
                order.withUnsafeMutableBufferPointer { o in
                    tieRank.withUnsafeBufferPointer { ties in
                        for r in 0..<n { s[r] = ks[Int(ties[Int(o[r])])] }
                        for r in 1..<n {
                            let k = s[r]
                            var j = r - 1
                            while j >= 0 && s[j] > k {
                                s[j + 1] = s[j]
                                j -= 1
                            }
                            s[j + 1] = k
                        }
                        for r in 0..<n { ks[r] = s[r] }
                    }
                }
            }
        }
        writeOrder()
    }

    /// Stable LSD radix sort on 12-bit digits of the millimetres. The keys start
    /// in tie order, so equal millimetres stay in name-then-id order.
    private mutating func radixSort(maxMillimetres: UInt64) {
        let n = count
        var digits = 0
        var m = maxMillimetres
        while m > 0 {
            digits += 1
            m >>= UInt64(Self.digitBits)
        }
        digits = max(1, digits)
        keys.withUnsafeMutableBufferPointer { a in
            scratch.withUnsafeMutableBufferPointer { b in
                counts.withUnsafeMutableBufferPointer { c in
                    for i in 0..<(Self.buckets * digits) { c[i] = 0 }
                    for i in 0..<n {
                        let mm = a[i] >> 32
                        for d in 0..<digits { c[d * Self.buckets + Int((mm >> UInt64(Self.digitBits * d)) & Self.digitMask)] += 1 }
                    }
                    var src = a, dst = b
                    for d in 0..<digits {
                        var total = 0
                        let base = d * Self.buckets
                        for v in 0..<Self.buckets {
                            let t = c[base + v]
                            c[base + v] = total
                            total += t
                        }
                        let shift = UInt64(32 + Self.digitBits * d)
                        for i in 0..<n {
                            let k = src[i]
                            let slot = base + Int((k >> shift) & Self.digitMask)
                            dst[c[slot]] = k
                            c[slot] += 1
                        }
                        swap(&src, &dst)
                    }
                    if src.baseAddress != a.baseAddress {
                        for i in 0..<n { a[i] = src[i] }
                    }
                }
            }
        }
        writeOrder()
    }

    /// Sorted keys to place indices.
    private mutating func writeOrder() {
        let n = count
        keys.withUnsafeBufferPointer { ks in
            order.withUnsafeMutableBufferPointer { o in
                indexOfTie.withUnsafeBufferPointer { back in
                    for r in 0..<n { o[r] = back[Int(ks[r] & 0xFFFF_FFFF)] }
                }
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

    /// The address (never null: only non-empty buffers are handed out).
    var pointer: UnsafeMutablePointer<Element> {
        // Programmer's invariant, not input: the buffers handed out hold 100 000 places or more.
        UnsafeMutablePointer(bitPattern: bits)!
    }
}
