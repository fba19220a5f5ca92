import Foundation

/// RankingIndex's sort in buckets for many places: one pass by the leading bits, then each bucket by the rest, on one thread or several.
extension RankingIndex {
    /// From this many places on (by default), two-digit millimetres are sorted by their leading bits
    /// into buckets first, then each bucket on its own (`sortInBuckets(bits:)`, and on several
    /// threads `sortInBucketsParallel(bits:threads:)`): once the
    /// places' positions and keys outgrow the last-level cache, a pass over memory costs more
    /// than the passes within a bucket. The threshold is where the two sorts crossed on one
    /// thread on a 32 MB last-level cache: below it, two 12-bit digits are quicker.
    public static let bucketThreshold = 350_000

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
    mutating func sortInBuckets(bits: Int) {
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

    /// ``sortInBuckets(bits:)`` on several threads: the leading bits' counts of each thread's slice
    /// (from its second-digit counts), a prefix sum over (bucket, thread) that keeps the scatter
    /// stable, a parallel scatter, then each thread sorts a run of whole buckets holding about
    /// an equal share of the keys, its temporary keys in its own share of `keys`.
    mutating func sortInBucketsParallel(bits: Int, threads: Int) {
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
}
