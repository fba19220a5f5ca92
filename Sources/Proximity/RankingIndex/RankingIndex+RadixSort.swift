/// RankingIndex's least-significant-digit radix sort of the keys on one thread.
extension RankingIndex {
    /// How many digits the radix sort needs for millimetres up to `maxMM` (at least one).
    static func digits(_ maxMM: UInt64) -> Int {
        max(1, (64 - maxMM.leadingZeroBitCount + digitBits - 1) / digitBits)
    }

    /// Stable LSD radix sort on 12-bit digits of the millimetres. The keys start
    /// in tie order, so equal millimetres stay in name-then-id order; their
    /// low halves, the place indices, are then the order.
    mutating func radixSort(maxMillimetres: UInt64) {
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
                            if digits == 2 && n <= Self.packedRows {
                                return Self.twoDigitsPacked(n, a, b, o, c, cur)
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

    /// Up to this many places the radix sort's two-digit case carries each key
    /// between its passes as 32 bits: the second digit above the place index.
    static let packedRows = 1 << (32 - digitBits)

    /// The two-digit sort (millimetres below 16.7 km) of at most ``packedRows`` keys: the
    /// first pass writes each key as its second digit above its place index, in 32 bits,
    /// into the first half of `b`'s memory; the second scatters those into the order. Half
    /// the bytes written and read again of 64-bit keys, the same stable order.
    @inline(__always)
    static func twoDigitsPacked(_ n: Int, _ a: UnsafeMutableBufferPointer<UInt64>, _ b: UnsafeMutableBufferPointer<UInt64>,
                                _ o: UnsafeMutableBufferPointer<UInt32>, _ c: UnsafeMutableBufferPointer<UInt32>,
                                _ cur: UnsafeMutableBufferPointer<UInt32>) {
        guard let base = b.baseAddress else { return }
        let buckets = Self.buckets, mask = Self.digitMask
        let indexBits = UInt32(32 - digitBits), indexMask = (UInt32(1) << indexBits) - 1
        // n 32-bit words in the memory of n 64-bit ones (bound as UInt32 for this sort only).
        base.withMemoryRebound(to: UInt32.self, capacity: n) { packed in
            var total = 0
            for v in 0..<buckets {
                cur[v] = UInt32(truncatingIfNeeded: total)
                total += Int(c[v])
            }
            for i in 0..<n {
                let k = a[i]
                let slot = Int((k >> 32) & mask)
                packed[Int(cur[slot])] = UInt32(truncatingIfNeeded: (k >> 44) & mask) << indexBits | UInt32(truncatingIfNeeded: k)
                cur[slot] &+= 1
            }
            total = 0
            for v in 0..<buckets {
                cur[v] = UInt32(truncatingIfNeeded: total)
                total += Int(c[buckets + v])
            }
            for i in 0..<n {
                let p = packed[i]
                let slot = Int(p >> indexBits)
                o[Int(cur[slot])] = p & indexMask
                cur[slot] &+= 1
            }
        }
    }
}
