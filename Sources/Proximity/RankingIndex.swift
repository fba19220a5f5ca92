import Foundation
import Geodesy

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
/// nearly sorted. The k nearest and region queries use a latitude–longitude
/// grid and touch only nearby cells. Nothing is allocated per update once
/// the buffers have grown.
public struct RankingIndex {
    public let count: Int
    public let coordinates: [Coordinate]
    private let x: [Double], y: [Double], z: [Double]
    private let tieRank: [UInt32]
    private let indexOfTie: [UInt32]
    private let tieBits: Int
    private var keys: [UInt64]
    private var scratch: [UInt64]
    private var counts: [Int]
    /// Place indices in ranking order after ``rankAll(from:)``.
    public private(set) var order: [UInt32]
    /// Distances in metres by place index after ``rankAll(from:)`` (or only
    /// for the returned places after ``nearest(_:from:)``).
    public private(set) var distances: [Double]
    private var hasOrder = false
    private let grid: PlaceGrid
    private let geodesic: Geodesic

    /// `names` and `ids` break ties within a millimetre; both in the order of `coordinates`.
    public init(coordinates: [Coordinate], names: [String], ids: [String], geodesic: Geodesic = .wgs84) {
        precondition(names.count == coordinates.count && ids.count == coordinates.count, "one name and one id per place")
        self.geodesic = geodesic
        count = coordinates.count
        self.coordinates = coordinates
        var xs = [Double](repeating: 0, count: count), ys = xs, zs = xs
        for (i, c) in coordinates.enumerated() {
            let p = geodesic.ellipsoid.ecef(c)
            xs[i] = p.x
            ys[i] = p.y
            zs[i] = p.z
        }
        x = xs
        y = ys
        z = zs
        // Tie rank: position in (name, id) scalar order.
        let byTie = (0..<count).sorted { a, b in
            if names[a] != names[b] { return ProximityEngine.scalarLess(names[a], names[b]) }
            return ProximityEngine.scalarLess(ids[a], ids[b])
        }
        var ranks = [UInt32](repeating: 0, count: count)
        for (r, i) in byTie.enumerated() { ranks[i] = UInt32(r) }
        tieRank = ranks
        indexOfTie = byTie.map { UInt32($0) }
        var bits = 1
        while (1 << bits) < max(count, 2) { bits += 1 }
        tieBits = bits
        keys = [UInt64](repeating: 0, count: count)
        scratch = [UInt64](repeating: 0, count: count)
        counts = [Int](repeating: 0, count: 2048 * 6)
        order = (0..<count).map { UInt32($0) }
        distances = [Double](repeating: 0, count: count)
        grid = PlaceGrid(coordinates)
    }

    /// Convenience for places that have only positions: name and id are the index.
    public init(coordinates: [Coordinate]) {
        let labels = coordinates.indices.map { String($0) }
        self.init(coordinates: coordinates, names: labels, ids: labels)
    }

    /// Bytes held per place by the index and its buffers (for memory budgets).
    public var bytesPerPlace: Double {
        let perPlace = MemoryLayout<Coordinate>.stride + 3 * 8 + 4 + 4 + 8 + 8 + 4 + 8
        return Double(perPlace) + Double(grid.bytes + counts.count * 8) / Double(max(count, 1))
    }

    // MARK: Distances

    /// A frame for the walker: ECEF position, local east and north, inverse radii of curvature.
    struct Walker {
        let coordinate: Coordinate
        let wx: Double, wy: Double, wz: Double
        let ex: Double, ey: Double
        let nx: Double, ny: Double, nz: Double
        let invM: Double, invN: Double

        init(_ c: Coordinate, ellipsoid: Ellipsoid) {
            coordinate = c
            let p = ellipsoid.ecef(c)
            wx = p.x
            wy = p.y
            wz = p.z
            let phi = c.latitude * .pi / 180, lam = c.longitude * .pi / 180
            let sphi = sin(phi), cphi = cos(phi), slam = sin(lam), clam = cos(lam)
            ex = -slam
            ey = clam
            nx = -sphi * clam
            ny = -sphi * slam
            nz = cphi
            let e2 = ellipsoid.eccentricitySquared
            let w2 = 1 - e2 * sphi * sphi
            invN = w2.squareRoot() / ellipsoid.semiMajorAxis
            invM = w2 * w2.squareRoot() / (ellipsoid.semiMajorAxis * (1 - e2))
        }

        /// The chord-series distance; exact within the tolerance up to 20 km.
        @inline(__always)
        func distance(_ px: Double, _ py: Double, _ pz: Double) -> Double {
            let dx = px - wx, dy = py - wy, dz = pz - wz
            let c2 = dx * dx + dy * dy + dz * dz
            let ce = dx * ex + dy * ey
            let cn = dx * nx + dy * ny + dz * nz
            let h2 = ce * ce + cn * cn
            let invR = h2 > 0 ? (cn * cn * invM + ce * ce * invN) / h2 : invM
            return c2.squareRoot() * (1 + c2 * invR * invR / 24)
        }
    }

    /// The exact distance to place `i` from the walker (Karney where the chord series is not exact enough).
    @inline(__always)
    private func exactDistance(_ i: Int, _ w: Walker) -> Double {
        let d = w.distance(x[i], y[i], z[i])
        if d > GeodesicDistanceFrame.exactRange { return geodesic.distance(w.coordinate, coordinates[i]) }
        return d
    }

    /// Distance for ordering: the millimetre it rounds to is Karney's.
    @inline(__always)
    private func orderingDistance(_ i: Int, _ w: Walker) -> Double {
        let d = exactDistance(i, w)
        let mm = d * 1000
        let fraction = mm - mm.rounded(.down)
        if abs(fraction - 0.5) * 0.001 <= GeodesicDistanceFrame.tolerance { return geodesic.distance(w.coordinate, coordinates[i]) }
        return d
    }

    // MARK: Full order

    /// Ranks every place from `walker`; read the result in ``order`` and ``distances``.
    public mutating func rankAll(from walker: Coordinate) {
        let w = Walker(walker, ellipsoid: geodesic.ellipsoid)
        let n = count
        guard n > 0 else { return }
        let bits = UInt64(tieBits)
        var maxKey: UInt64 = 0
        x.withUnsafeBufferPointer { xs in
            y.withUnsafeBufferPointer { ys in
                z.withUnsafeBufferPointer { zs in
                    tieRank.withUnsafeBufferPointer { ties in
                        distances.withUnsafeMutableBufferPointer { ds in
                            keys.withUnsafeMutableBufferPointer { ks in
                                for i in 0..<n {
                                    var d = w.distance(xs[i], ys[i], zs[i])
                                    let mm = d * 1000
                                    let fraction = mm - mm.rounded(.down)
                                    if d > GeodesicDistanceFrame.exactRange || abs(fraction - 0.5) * 0.001 <= GeodesicDistanceFrame.tolerance {
                                        d = geodesic.distance(walker, coordinates[i])
                                    }
                                    ds[i] = d
                                    let key = UInt64((d * 1000).rounded()) << bits | UInt64(ties[i])
                                    ks[i] = key
                                    if key > maxKey { maxKey = key }
                                }
                            }
                        }
                    }
                }
            }
        }
        if n <= 256 && hasOrder {
            insertionSortFromPreviousOrder()
        } else {
            radixSort(maxKey: maxKey)
        }
        hasOrder = true
    }

    /// Small sets: the previous order is nearly sorted, so insertion sort is close to linear.
    private mutating func insertionSortFromPreviousOrder() {
        let n = count
        let bits = UInt64(tieBits)
        let mask = (UInt64(1) << bits) - 1
        keys.withUnsafeBufferPointer { ks in
            scratch.withUnsafeMutableBufferPointer { s in
                order.withUnsafeMutableBufferPointer { o in
                    indexOfTie.withUnsafeBufferPointer { back in
                        for r in 0..<n { s[r] = ks[Int(o[r])] }
                        for r in 1..<n {
                            let k = s[r]
                            var j = r - 1
                            while j >= 0 && s[j] > k {
                                s[j + 1] = s[j]
                                j -= 1
                            }
                            s[j + 1] = k
                        }
                        for r in 0..<n { o[r] = back[Int(s[r] & mask)] }
                    }
                }
            }
        }
    }

    /// LSD radix sort on 11-bit digits of the keys, then ties back to place indices.
    private mutating func radixSort(maxKey: UInt64) {
        let n = count
        var digits = 0
        var m = maxKey
        while m > 0 {
            digits += 1
            m >>= 11
        }
        digits = max(1, digits)
        let mask = (UInt64(1) << UInt64(tieBits)) - 1
        keys.withUnsafeMutableBufferPointer { a in
            scratch.withUnsafeMutableBufferPointer { b in
                counts.withUnsafeMutableBufferPointer { c in
                    for i in 0..<(2048 * digits) { c[i] = 0 }
                    for i in 0..<n {
                        let k = a[i]
                        for d in 0..<digits { c[d * 2048 + Int((k >> UInt64(11 * d)) & 2047)] += 1 }
                    }
                    var src = a, dst = b
                    for d in 0..<digits {
                        var total = 0
                        let base = d * 2048
                        for v in 0..<2048 {
                            let t = c[base + v]
                            c[base + v] = total
                            total += t
                        }
                        let shift = UInt64(11 * d)
                        for i in 0..<n {
                            let k = src[i]
                            let slot = base + Int((k >> shift) & 2047)
                            dst[c[slot]] = k
                            c[slot] += 1
                        }
                        swap(&src, &dst)
                    }
                    order.withUnsafeMutableBufferPointer { o in
                        indexOfTie.withUnsafeBufferPointer { back in
                            for r in 0..<n { o[r] = back[Int(src[r] & mask)] }
                        }
                    }
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
