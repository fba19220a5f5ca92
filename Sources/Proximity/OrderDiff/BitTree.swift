/// A set of integers below a bound as a 64-ary tree of bit words: level 0 has
/// a bit per value, each level above a bit per non-empty word of the one
/// below, up to a single word. Works on buffers ``OrderDiff`` owns.
struct BitTree {
    let words: UnsafeMutablePointer<UInt64>
    let start: UnsafeBufferPointer<Int>
    let count: UnsafeBufferPointer<Int>

    /// Word `index` of `level` may have emptied or filled: sets its bit in the
    /// level above to match, and so on up while a word there changes too.
    func refresh(_ index: Int, level: Int) {
        var x = index, k = level
        while k + 1 < start.count {
            let nonEmpty = words[start[k] + x] != 0
            let p = words + start[k + 1] + (x >> 6)
            let old = p.pointee, bit = UInt64(1) &<< UInt64(x & 63)
            let new = nonEmpty ? old | bit : old & ~bit
            p.pointee = new
            if (old == 0) == (new == 0) { return }
            x >>= 6
            k += 1
        }
    }

    /// The smallest member at least `value`, or -1.
    func successor(atLeast value: Int) -> Int {
        var x = value, level = 0
        // Up until a word holds a member at or after x.
        while true {
            let w = x >> 6
            if w < count[level] {
                let m = words[start[level] + w] & (~UInt64(0) &<< UInt64(x & 63))
                if m != 0 {
                    x = w << 6 | m.trailingZeroBitCount
                    break
                }
            }
            level += 1
            if level == start.count { return -1 }
            x = w + 1
        }
        // Down along the first member.
        while level > 0 {
            level -= 1
            x = x << 6 | words[start[level] + x].trailingZeroBitCount
        }
        return x
    }

    /// The largest member at most `value`, or -1.
    func predecessor(atMost value: Int) -> Int {
        guard value >= 0 else { return -1 }
        var x = value, level = 0
        while true {
            let w = x >> 6
            let m = words[start[level] + w] & (~UInt64(0) &>> UInt64(63 - (x & 63)))
            if m != 0 {
                x = w << 6 | (63 - m.leadingZeroBitCount)
                break
            }
            level += 1
            if level == start.count || w == 0 { return -1 }
            x = w - 1
        }
        while level > 0 {
            level -= 1
            x = x << 6 | (63 - words[start[level] + x].leadingZeroBitCount)
        }
        return x
    }
}
