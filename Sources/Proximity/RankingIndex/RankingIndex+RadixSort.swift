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
}
