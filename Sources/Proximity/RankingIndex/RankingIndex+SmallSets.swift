import Geodesy

/// RankingIndex's full order of small sets: distances kept, then insertion sort from the previous order.
extension RankingIndex {
    /// Small sets (up to ``smallCount``): the distances (kept for
    /// ``distance(atRank:)``) and millimetres in one vectorised loop
    /// (``millimetresSmall(_:_:_:_:_:_:_:_:exact:)``), then the keys in the
    /// previous order, which is nearly sorted, through insertion sort.
    mutating func rankSmall(_ w: Walker) {
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
}
