import Foundation

/// RankingIndex's full order on several threads: the distances by slices, then a parallel radix sort.
extension RankingIndex {
    /// The full order on several threads: each takes a contiguous slice of the
    /// places for the distances (counting the first digit as it goes, or from
    /// ``bucketsFrom`` places, writing millimetres alone, the second), then the radix sort runs each digit
    /// as a parallel count, a prefix sum over (digit, thread) that keeps it
    /// stable, and a parallel scatter; or, in buckets, ``sortInBucketsParallel(bits:threads:)``.
    ///
    /// Worker threads get the buffers' addresses as numbers (``Address``) and
    /// write only their own slice, or slots the prefix sum gave them alone;
    /// the calling thread waits for them (`concurrentPerform`) before reading.
    mutating func rankAllParallel(_ w: Walker, threads: Int) {
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
}
