import Foundation

/// Minimal row moves between two orders of the same place indices, for
/// large lists: integer positions and reused buffers instead of ids and
/// dictionaries (``RowDiff`` does the same for ids, with inserts and deletes).
///
/// **Algorithm.** The rows that stay are a longest increasing subsequence of
/// the old rows read in the new order, found by patience sorting. The tails
/// of the patience sort (the smallest last old row of an increasing run of
/// each length) are kept as a *set of old rows*, a 64-ary tree of bit words,
/// instead of a sorted array: the tail a new value replaces is its successor
/// in the set, the run it extends ends at its predecessor, and the longest
/// run ends at the set's largest value. Between two orders of a walk each
/// place moves a short way, so both neighbours are nearly always in the same
/// 64-bit word as the value: a few bit operations instead of a binary search
/// of mispredicted branches over the tails. Up to 64 rows the set is a
/// single word, up to 4 096 one level of words under a summary word held in
/// a register, both without a branch. The result is the same subsequence
/// the array form of the algorithm picks.
public struct OrderDiff {
    private var position: [UInt32] = []
    private var sequence: [UInt32] = []
    /// By old row: the old row before it in its increasing run, or `UInt32.max`.
    private var parent: [UInt32] = []
    /// By old row: whether it stays.
    private var keep: [Bool] = []
    /// The tails as a set of old rows: ``levels`` of bit words, each summarising the one below (a bit per non-empty word).
    private var bits: [UInt64] = []
    /// Where each level of ``bits`` starts, and its words; for the size last seen.
    /// A zero word lies before and after every level, so a word's neighbours can always be read.
    private var levelStart: [Int] = []
    private var levelWords: [Int] = []
    /// Moves are written here first, without a capacity check per move, then appended at once.
    private var written: [RowMove] = []
    private var size = -1
    /// Threads for the steps of ``moves(from:to:into:)`` that split (the rows' positions,
    /// and writing the moves) from ``RankingIndex/parallelThreshold`` rows on; default every core.
    /// The longest increasing subsequence itself runs on one.
    public var threads = ProcessInfo.processInfo.activeProcessorCount

    public init() {}

    private mutating func grow(_ n: Int) {
        guard size != n else { return }
        size = n
        position = [UInt32](repeating: 0, count: n)
        sequence = position
        parent = position
        keep = [Bool](repeating: false, count: n)
        written = [RowMove](repeating: RowMove(from: 0, to: 0), count: n)
        levelStart = []
        levelWords = []
        var words = (n + 63) >> 6, total = 1
        repeat {
            levelStart.append(total)
            levelWords.append(words)
            total += words + 1
            words = (words + 63) >> 6
        } while levelStart.count < 2 || levelWords[levelWords.count - 1] > 1
        bits = [UInt64](repeating: 0, count: total)
    }

    /// Writes the fewest moves turning `previous` into `current` (both permutations of 0..<n) into `moves`.
    public mutating func moves(from previous: [UInt32], to current: [UInt32], into moves: inout [RowMove]) {
        moves.removeAll(keepingCapacity: true)
        let n = current.count
        guard previous.count == n, n > 0 else { return }
        grow(n)
        // The buffers go to a static function as arguments: read through inout `self`
        // inside closures, each would be retained and released on every call.
        let split = n >= RankingIndex.parallelThreshold ? min(max(threads, 1), 64) : 1
        Self.moves(previous, current, n, split, &position, &sequence, &parent, &keep, &bits, levelStart, levelWords, &written, &moves)
    }

    private static func moves(_ previous: borrowing [UInt32], _ current: borrowing [UInt32], _ n: Int, _ threads: Int,
                              _ position: inout [UInt32], _ sequence: inout [UInt32], _ parent: inout [UInt32], _ keep: inout [Bool],
                              _ bits: inout [UInt64], _ levelStart: borrowing [Int], _ levelWords: borrowing [Int],
                              _ written: inout [RowMove], _ moves: inout [RowMove]) {
        if threads > 1 {
            return movesSplit(previous, current, n, threads, &position, &sequence, &parent, &keep, &bits, levelStart, levelWords, &written, &moves)
        }
        for (r, p) in previous.enumerated() { position[Int(p)] = UInt32(r) }
        for r in 0..<n { sequence[r] = position[Int(current[r])] }
        for v in 0..<n { keep[v] = false }
        let largest = longestRun(n, sequence, &parent, &bits, levelStart, levelWords)
        markKept(largest, parent, &keep)
        sequence.withUnsafeBufferPointer { s in
            keep.withUnsafeBufferPointer { kept in
                written.withUnsafeMutableBufferPointer { out in
                    guard let s = s.baseAddress, let kept = kept.baseAddress, let out = out.baseAddress else { return }
                    let count = writeMoves(0..<n, s, kept, out)
                    moves.append(contentsOf: UnsafeBufferPointer(start: out, count: count))
                }
            }
        }
    }

    /// ``moves(_:_:_:_:_:_:_:_:_:_:_:_:_:)`` with the positions and the moves split across
    /// `threads` contiguous slices of rows (worker threads get the buffers' addresses,
    /// each writes only its slice or, for positions, the old rows of its slice: a permutation).
    private static func movesSplit(_ previous: borrowing [UInt32], _ current: borrowing [UInt32], _ n: Int, _ threads: Int,
                                   _ position: inout [UInt32], _ sequence: inout [UInt32], _ parent: inout [UInt32], _ keep: inout [Bool],
                                   _ bits: inout [UInt64], _ levelStart: borrowing [Int], _ levelWords: borrowing [Int],
                                   _ written: inout [RowMove], _ moves: inout [RowMove]) {
        let slice = (n + threads - 1) / threads
        previous.withUnsafeBufferPointer { prev in
            current.withUnsafeBufferPointer { cur in
                position.withUnsafeMutableBufferPointer { pos in
                    sequence.withUnsafeMutableBufferPointer { seq in
                        keep.withUnsafeMutableBufferPointer { kept in
                            let pp = Address(prev), pc = Address(cur), pq = Address(pos), ps = Address(seq), pk = Address(kept)
                            DispatchQueue.concurrentPerform(iterations: threads) { t in
                                let prev = pp.pointer, pos = pq.pointer, kept = pk.pointer
                                for r in t * slice..<min(n, t * slice + slice) {
                                    pos[Int(prev[r])] = UInt32(truncatingIfNeeded: r)
                                    kept[r] = false
                                }
                            }
                            DispatchQueue.concurrentPerform(iterations: threads) { t in
                                let cur = pc.pointer, pos = pq.pointer, seq = ps.pointer
                                for r in t * slice..<min(n, t * slice + slice) { seq[r] = pos[Int(cur[r])] }
                            }
                        }
                    }
                }
            }
        }
        let largest = longestRun(n, sequence, &parent, &bits, levelStart, levelWords)
        markKept(largest, parent, &keep)
        var counts = [Int](repeating: 0, count: threads)
        sequence.withUnsafeBufferPointer { s in
            keep.withUnsafeBufferPointer { kept in
                written.withUnsafeMutableBufferPointer { out in
                    counts.withUnsafeMutableBufferPointer { c in
                        let ps = Address(s), pk = Address(kept), po = Address(out), pc = Address(c)
                        // Each slice's moves at the start of its own part of `written`, then appended in slice order.
                        DispatchQueue.concurrentPerform(iterations: threads) { t in
                            let lo = min(n, t * slice), hi = min(n, lo + slice)
                            pc.pointer[t] = writeMoves(lo..<hi, UnsafePointer(ps.pointer), UnsafePointer(pk.pointer), po.pointer + lo)
                        }
                        guard let out = out.baseAddress else { return }
                        for t in 0..<threads {
                            moves.append(contentsOf: UnsafeBufferPointer(start: out + min(n, t * slice), count: c[t]))
                        }
                    }
                }
            }
        }
    }

    /// Patience sorting over `sequence`: fills `parent`, returns the last old row of a longest run.
    private static func longestRun(_ n: Int, _ sequence: borrowing [UInt32], _ parent: inout [UInt32],
                                   _ bits: inout [UInt64], _ levelStart: borrowing [Int], _ levelWords: borrowing [Int]) -> Int {
        var largest = -1
        sequence.withUnsafeBufferPointer { s in
            parent.withUnsafeMutableBufferPointer { par in
                guard let s = s.baseAddress, let par = par.baseAddress else { return }
                if n <= 64 {
                    largest = patience(s, n, par)
                    return
                }
                bits.withUnsafeMutableBufferPointer { bitWords in
                    levelStart.withUnsafeBufferPointer { starts in
                        levelWords.withUnsafeBufferPointer { counts in
                            guard let words = bitWords.baseAddress else { return }
                            for w in 0..<bitWords.count { words[w] = 0 }
                            if n <= 4096 {
                                largest = patience(s, n, par, low: words + starts[0], lowWords: counts[0])
                                return
                            }
                            let tree = BitTree(words: words, start: starts, count: counts)
                            largest = patience(s, n, par, tree)
                        }
                    }
                }
            }
        }
        return largest
    }

    /// Marks the old rows of the longest run ending at `largest` as kept.
    private static func markKept(_ largest: Int, _ parent: borrowing [UInt32], _ keep: inout [Bool]) {
        var k = largest
        while k >= 0 {
            keep[k] = true
            let p = parent[k]
            k = p == .max ? -1 : Int(p)
        }
    }

    /// Writes the moves of the new rows `rows` (every row whose old row is not kept) to `out`; returns how many.
    @inline(__always)
    private static func writeMoves(_ rows: Range<Int>, _ s: UnsafePointer<UInt32>, _ kept: UnsafePointer<Bool>,
                                   _ out: UnsafeMutablePointer<RowMove>) -> Int {
        var count = 0
        for r in rows {
            let from = Int(s[r])
            out[count] = RowMove(from: from, to: r)
            count += kept[from] ? 0 : 1
        }
        return count
    }

    /// Patience sorting of up to 64 old rows with the tails as the bits of one word.
    private static func patience(_ s: UnsafePointer<UInt32>, _ n: Int, _ par: UnsafeMutablePointer<UInt32>) -> Int {
        var tails: UInt64 = 0
        for i in 0..<n {
            let v = Int(s[i])
            let bit = UInt64(1) &<< UInt64(v & 63)
            let above = tails & ~(bit | (bit &- 1)), below = tails & (bit &- 1)
            par[v] = below == 0 ? .max : UInt32(truncatingIfNeeded: 63 - below.leadingZeroBitCount)
            // The successor (the lowest member above v) leaves, v joins.
            tails = tails & ~(above & (0 &- above)) | bit
        }
        return tails == 0 ? -1 : 63 - tails.leadingZeroBitCount
    }

    /// Patience sorting of up to 4 096 old rows with the tails as bit words `low`
    /// (zero words before and after) under one summary word kept in a register:
    /// both neighbours of a value, and the update, without a branch.
    private static func patience(_ s: UnsafePointer<UInt32>, _ n: Int, _ par: UnsafeMutablePointer<UInt32>,
                                 low: UnsafeMutablePointer<UInt64>, lowWords: Int) -> Int {
        var summary: UInt64 = 0
        for i in 0..<n {
            let v = Int(s[i])
            let w = v >> 6, bit = UInt64(1) &<< UInt64(v & 63), wordBit = UInt64(1) &<< UInt64(w)
            let word = low[w]
            let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
            // The nearest non-empty words after and before w (past the ends: the zero words there).
            let afterWord = min((summary & ~(wordBit | (wordBit &- 1))).trailingZeroBitCount, lowWords)
            let beforeWord = 63 - (summary & (wordBit &- 1)).leadingZeroBitCount
            let successor = select(above == 0, afterWord << 6 + low[afterWord].trailingZeroBitCount,
                                   w << 6 + above.trailingZeroBitCount)
            let predecessor = select(below == 0, beforeWord << 6 + 63 - low[beforeWord].leadingZeroBitCount,
                                     w << 6 + 63 - below.leadingZeroBitCount)
            par[v] = UInt32(truncatingIfNeeded: select(predecessor < 0, -1, predecessor))     // -1: none
            // The successor leaves (none when it is past n: v extends the longest run), v joins.
            let exists = successor < n
            let removedWord = select(exists, successor >> 6, w)
            let clear = UInt64(truncatingIfNeeded: select(exists, -1, 0)) & UInt64(1) &<< UInt64(successor & 63)
            let left = low[removedWord] & ~clear
            low[removedWord] = left
            summary &= ~(UInt64(left == 0 ? 1 : 0) &<< UInt64(removedWord))
            low[w] |= bit
            summary |= wordBit
        }
        guard summary != 0 else { return -1 }
        let top = 63 - summary.leadingZeroBitCount
        return top << 6 + 63 - low[top].leadingZeroBitCount
    }

    /// Patience sorting of the old rows `s` (a permutation of 0..<n) with the tails
    /// as a set; fills `par` and returns the last old row of a longest run.
    ///
    /// The common case has no unpredictable branch: the value's successor is
    /// found in its own word, or through the summary word over it (or the next
    /// summary word), its predecessor likewise, all candidates computed and the
    /// right one selected; the words and summary bits are written back
    /// unconditionally. Only where a neighbour lies further away, or a summary
    /// word empties or fills, is the tree searched or updated in full.
    private static func patience(_ s: UnsafePointer<UInt32>, _ n: Int, _ par: UnsafeMutablePointer<UInt32>, _ tree: BitTree) -> Int {
        let low = tree.words + tree.start[0], summary = tree.words + tree.start[1]
        let lastWord = tree.count[0]          // the zero word after level 0
        var largest = -1, smallest = n
        for i in 0..<n {
            let v = Int(s[i])
            let w = v >> 6, bit = UInt64(1) &<< UInt64(v & 63)
            let sw = w >> 6, summaryBit = UInt64(1) &<< UInt64(w & 63)
            let word = low[w]
            let here = summary[sw], next = summary[sw + 1], previous = summary[sw - 1]
            let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
            let wordsAbove = here & ~(summaryBit | (summaryBit &- 1)), wordsBelow = here & (summaryBit &- 1)
            let extends = v > largest, first = v < smallest
            // The nearest non-empty words after and before w among two summary words each
            // (128 when none; the slow path takes those), then the members in them.
            let after = lowest(wordsAbove, next), before = highest(wordsBelow, previous)
            let successorWord = min(sw << 6 + after, lastWord)
            let predecessorWord = max(sw << 6 + 63 - before, -1)
            let farSuccessor = successorWord << 6 + low[successorWord].trailingZeroBitCount
            let farPredecessor = predecessorWord << 6 + 63 - low[predecessorWord].leadingZeroBitCount
            let successorFound = above != 0 || after < 128
            let predecessorFound = below != 0 || before < 128
            if !extends && (!successorFound || !(predecessorFound || first)) {
                // A neighbour further away: search and update the tree in full.
                let successor = tree.successor(atLeast: v + 1)
                let predecessor = tree.predecessor(atMost: v - 1)
                par[v] = predecessor >= 0 ? UInt32(truncatingIfNeeded: predecessor) : .max
                tree.remove(successor)
                tree.insert(v)
                if successor == largest { largest = v }
                smallest = min(smallest, v)
                continue
            }
            let successor = select(above == 0, farSuccessor, w << 6 + above.trailingZeroBitCount)
            let nearPredecessor = select(below == 0, farPredecessor, w << 6 + 63 - below.leadingZeroBitCount)
            let predecessor = select(extends, largest, select(first, -1, nearPredecessor))
            par[v] = UInt32(truncatingIfNeeded: predecessor)          // -1 becomes UInt32.max: none
            // The successor leaves the tails (unless v extends them), v joins: most often
            // within one non-empty word, when no summary bit changes.
            let removedWord = select(extends, w, successor >> 6)
            let clear = UInt64(truncatingIfNeeded: select(extends, 0, -1)) & UInt64(1) &<< UInt64(successor & 63)
            if removedWord == w && word != 0 {
                low[w] = word & ~clear | bit
            } else {
                low[removedWord] &= ~clear
                low[w] |= bit
                if low[removedWord] == 0 {
                    summary[removedWord >> 6] &= ~(UInt64(1) &<< UInt64(removedWord & 63))
                    if summary[removedWord >> 6] == 0 { tree.refresh(removedWord >> 6, level: 1) }
                }
                if word == 0 {
                    let old = summary[sw]
                    summary[sw] = old | summaryBit
                    if old == 0 { tree.refresh(sw, level: 1) }
                }
            }
            largest = select(extends || successor == largest, v, largest)
            smallest = min(smallest, v)
        }
        return largest
    }
}

/// `a` where `condition` holds, else `b`, by masks rather than a branch.
@inline(__always)
private func select(_ condition: Bool, _ a: Int, _ b: Int) -> Int {
    let m = 0 &- Int(truncatingIfNeeded: UInt8(condition ? 1 : 0))
    return a & m | b & ~m
}

/// The lowest set bit of the 128-bit `high:low` pair (`low` first), 128 if none.
@inline(__always)
private func lowest(_ low: UInt64, _ high: UInt64) -> Int {
    let a = low.trailingZeroBitCount
    return a &+ (high.trailingZeroBitCount & (0 &- (a >> 6)))
}

/// How far below the top of the 128-bit `high:low` pair its highest set bit is, 128 if none.
@inline(__always)
private func highest(_ high: UInt64, _ low: UInt64) -> Int {
    let a = high.leadingZeroBitCount
    return a &+ (low.leadingZeroBitCount & (0 &- (a >> 6)))
}

/// A set of integers below a bound as a 64-ary tree of bit words: level 0 has
/// a bit per value, each level above a bit per non-empty word of the one
/// below, up to a single word. Works on buffers ``OrderDiff`` owns.
private struct BitTree {
    let words: UnsafeMutablePointer<UInt64>
    let start: UnsafeBufferPointer<Int>
    let count: UnsafeBufferPointer<Int>

    @inline(__always)
    func insert(_ value: Int) {
        words[start[0] + value >> 6] |= UInt64(1) &<< UInt64(value & 63)
        refresh(value >> 6, level: 0)
    }

    @inline(__always)
    func remove(_ value: Int) {
        words[start[0] + value >> 6] &= ~(UInt64(1) &<< UInt64(value & 63))
        refresh(value >> 6, level: 0)
    }

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
