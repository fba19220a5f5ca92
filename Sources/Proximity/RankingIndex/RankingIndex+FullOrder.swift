import Geodesy

/// RankingIndex's full order: `rankAll(from:)`, the paths it takes on one thread, and places beyond the keys' range.
extension RankingIndex {
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

    /// The full order of more than ``smallCount`` places, fewer than ``bucketsFrom``, on one thread: distances and keys, then the radix sort.
    /// (Kept out of ``rankAll(from:)``, so that small sets' updates run through a short function.)
    @inline(never)
    mutating func rankAllOnOneThread(_ w: Walker) {
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
    mutating func keysFromMillimetres() {
        for i in 0..<count { keys[i] = UInt64(millimetres[i]) << 32 | UInt64(indexOfTie[i]) }
    }

    /// The keys of every place through `pass` (given the places' ECEF coordinates and
    /// tie indices, the keys to write and the digit counts, zeroed; returning the
    /// largest millimetre), then the radix sort.
    @inline(__always)
    mutating func rankThenSort(_ pass: (UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<UInt32>,
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

    /// Places beyond 2000 km (millimetres past 31 bits, which the packed key
    /// cannot hold): a comparison sort on (millimetres, tie rank).
    mutating func sortBeyondKeyRange() {
        guard let w = lastWalker else { return }
        let mm = (0..<count).map { t in
            Self.rankingDistance(w, x[t], y[t], z[t], geodesic, coordinates, Int(indexOfTie[t])).millimetres
        }
        let sorted = (0..<count).sorted { a, b in mm[a] != mm[b] ? mm[a] < mm[b] : a < b }
        for (r, t) in sorted.enumerated() { order[r] = indexOfTie[t] }
    }
}
