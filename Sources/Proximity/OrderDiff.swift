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
/// place moves a short way, so both neighbours are near the value: below
/// ``wideFrom`` rows they are looked for in its own word and the words on
/// either side, from there on (the tails are sparser) under its summary word
/// and the ones on either side, without a branch either way; only the few
/// values whose neighbours are further go through the rest of the tree.
/// Up to 64 rows the set is a single word, up to 4 096 one level of words
/// under a summary word held in a register. Below ``splitFrom`` rows the
/// result is the subsequence the array form of the algorithm picks.
///
/// **Two halves.** From ``splitFrom`` rows on, the first half of the new rows
/// (up to ``cut(_:)``: a little more than half below ``RankingIndex/parallelThreshold``)
/// is sorted forwards and the second half backwards (old rows read from the
/// last new row, each `v` as `n − 1 − v`). With two threads or more, below
/// ``RankingIndex/parallelThreshold`` rows, the second half goes to a
/// ``SpinningWorker`` of the diff's own, which waits for the next diff by
/// spinning (half a millisecond) rather than sleeping, so that handing it over
/// costs about a microsecond rather than the 20 µs or more of waking a thread;
/// it also writes the second half's moves. When the worker has fallen asleep
/// (diffs further apart), and from ``RankingIndex/parallelThreshold`` rows on, the
/// halves run as before: from ``halvesOnThreadsFrom`` rows on each on a thread of
/// its own, below that (or on one thread) both together, a value of each in
/// turn, so that the processor overlaps the two. At the end, the tails below an old row `x` in the
/// first half's set number the longest run of the first half under `x`, and
/// the second half's tails at or above `x` the longest run of the second half
/// from `x` on; the `x` with the largest sum (the smallest such `x`) joins the
/// two runs into a longest one of the whole. The rows kept are a longest
/// increasing subsequence, so the moves are as few as ever; which one is
/// picked depends only on the rows, never on the number of threads.
public struct OrderDiff {
    private var space: Workspace?
    /// Threads for the two halves of the longest run (from ``splitFrom`` rows on), and
    /// for the rows' positions and the moves (from ``RankingIndex/parallelThreshold`` rows on);
    /// default every core.
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// From this many rows on, the longest run is found in two halves (on two threads when
    /// ``threads`` allows, else one after the other: the same rows either way).
    public static let splitFrom = 8_192
    /// Without the spinning worker (asleep, or from ``RankingIndex/parallelThreshold`` rows on,
    /// where the other steps take every core): from this many rows on the two halves run on
    /// two threads woken for them (when ``threads`` allows); below it, on one thread a value of
    /// each in turn, which is faster than waking a thread for a half (measured: 10 000 rows
    /// 78 µs on one thread, 98 µs on two; 20 000 rows 172 µs and 146 µs).
    static let halvesOnThreadsFrom = 16_384
    /// From this many rows on (rounded up to 64), the tails are sparse enough that a value's
    /// neighbours are looked for under its summary word rather than in the words beside it
    /// (measured: 20 000 rows 169 µs beside, 185 µs under; 50 000 rows 513 µs and 477 µs).
    static let wideFrom = 32_768

    public init() {}

    /// The first new row of the second half (from ``splitFrom`` rows on): 9/16 of the rows
    /// below ``RankingIndex/parallelThreshold``, where the second half goes to the spinning
    /// worker, whose half runs slower (its old rows were written on the other core: at
    /// 10 000 rows, halves of 5 000 took 38 µs here and 45 µs there, and the diff waited
    /// for the worker); from there on, half. A function of the rows alone, so that the
    /// moves picked never depend on the threads (measured at 10 000 rows, p50 of a walk's
    /// diffs with the full order: 32/64 of the rows 104 µs, 35/64 100.5, 36/64 100.2,
    /// 40/64 104.3, 44/64 109.5).
    static func cut(_ n: Int) -> Int {
        n < RankingIndex.parallelThreshold ? n * 9 / 16 : n / 2
    }

    /// The spinning thread of this diff's workspace when the next diff of `rows` rows
    /// would hand it a half (two threads allowed, `rows` from ``splitFrom`` to
    /// ``RankingIndex/parallelThreshold``) and it is awake, waiting for it: the full
    /// order before that diff may give it a share meanwhile
    /// (``RankingIndex/rankAll(from:beside:)``).
    func awakeWorker(rows: Int) -> SpinningWorker? {
        guard threads > 1, rows >= Self.splitFrom, rows < RankingIndex.parallelThreshold, let space, space.n == rows,
              let worker = space.existingWorker, worker.isAwake else { return nil }
        return worker
    }

    /// Wakes this diff's spinning thread when it has fallen asleep, so that it waits,
    /// spinning, for what comes next (the tests use it to have it awake).
    func wakeWorker() {
        space?.existingWorker?.wake()
    }

    /// Writes the fewest moves turning `previous` into `current` (both permutations of 0..<n) into `moves`.
    ///
    /// The moves are written into `moves`' own storage: an array kept from the last
    /// call is grown by the rows kept since, not filled again.
    public mutating func moves(from previous: [UInt32], to current: [UInt32], into moves: inout [RowMove]) {
        let n = current.count
        guard previous.count == n, n > 0 else {
            moves.removeAll(keepingCapacity: true)
            return
        }
        if space?.n != n || !isKnownUniquelyReferenced(&space) { space = Workspace(n) }
        guard let space else { return }
        let split = n >= RankingIndex.parallelThreshold ? min(max(threads, 1), 64) : 1
        if moves.count < n {
            moves.append(contentsOf: repeatElement(RowMove(from: 0, to: 0), count: n - moves.count))
        } else if moves.count > n {
            moves.removeLast(moves.count - n)
        }
        let written = previous.withUnsafeBufferPointer { prev in
            current.withUnsafeBufferPointer { cur in
                moves.withUnsafeMutableBufferPointer { out in
                    guard let prev = prev.baseAddress, let cur = cur.baseAddress, let out = out.baseAddress else { return 0 }
                    return Self.write(space, prev, cur, split, threads > 1, out)
                }
            }
        }
        moves.removeLast(n - written)
    }

    /// The moves of `current` against `previous` (`space.n` rows each) written to `out`; returns how many.
    private static func write(_ space: Workspace, _ previous: UnsafePointer<UInt32>, _ current: UnsafePointer<UInt32>,
                              _ threads: Int, _ twoHalves: Bool, _ out: UnsafeMutablePointer<RowMove>) -> Int {
        let n = space.n
        let position = space.position, sequence = space.sequence, mirrored = space.mirrored, keep = space.keep
        let halves = n >= splitFrom
        let middle = Self.cut(n)
        if threads == 1 && halves && twoHalves, let worker = space.worker() {
            if worker.isAwake { return writeOnTwo(space, previous, current, worker, out) }
            worker.wake()       // asleep: this diff as before, the next on two threads
        }
        // The old row of each new row (and, split, the second half mirrored).
        if threads == 1 {
            for r in 0..<n { position[Int(previous[r])] = UInt32(truncatingIfNeeded: r) }
            for r in 0..<n { sequence[r] = position[Int(current[r])] }
            if halves {
                for r in middle..<n { mirrored[n - 1 - r] = UInt32(truncatingIfNeeded: n - 1) &- sequence[r] }
            }
        } else {
            let slice = (n + threads - 1) / threads
            let pp = Address(previous), pc = Address(current), pq = Address(position), ps = Address(sequence), pm = Address(mirrored)
            DispatchQueue.concurrentPerform(iterations: threads) { t in
                let prev = pp.pointer, pos = pq.pointer
                for r in t * slice..<min(n, t * slice + slice) { pos[Int(prev[r])] = UInt32(truncatingIfNeeded: r) }
            }
            DispatchQueue.concurrentPerform(iterations: threads) { t in
                let cur = pc.pointer, pos = pq.pointer, seq = ps.pointer, mirror = pm.pointer
                let lo = t * slice, hi = min(n, lo + slice)
                for r in lo..<max(lo, hi) { seq[r] = pos[Int(cur[r])] }
                if halves {
                    let last = UInt32(truncatingIfNeeded: n - 1)
                    for r in max(lo, middle)..<max(hi, middle) { mirror[n - 1 - r] = last &- seq[r] }
                }
            }
        }
        for w in 0..<space.words { keep[w] = 0 }
        if halves {
            longestRunInHalves(space, twoHalves)
        } else {
            let largest = longestRun(space)
            markKept(largest, space.parent, keep) { $0 }
        }
        if threads == 1 { return writeMoves(0..<n, sequence, keep, out) }
        // Each slice counts its moves, then writes them where the slices before it end.
        let slice = (n + threads - 1) / threads
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: threads) { c in
            guard let counts = c.baseAddress else { return 0 }
            let ps = Address(UnsafePointer(sequence)), pk = Address(UnsafePointer(keep)), po = Address(out), pc = Address(counts)
            DispatchQueue.concurrentPerform(iterations: threads) { t in
                let seq = ps.pointer, kept = pk.pointer
                var count = 0
                for r in min(n, t * slice)..<min(n, t * slice + slice) { count += isKept(kept, Int(seq[r])) ? 0 : 1 }
                pc.pointer[t] = count
            }
            var total = 0
            for t in 0..<threads {
                let k = counts[t]
                counts[t] = total
                total += k
            }
            DispatchQueue.concurrentPerform(iterations: threads) { t in
                let lo = min(n, t * slice), hi = min(n, lo + slice)
                _ = writeMoves(lo..<hi, UnsafePointer(ps.pointer), UnsafePointer(pk.pointer), po.pointer + pc.pointer[t])
            }
            return total
        }
    }

    /// ``write(_:_:_:_:_:_:)`` from ``splitFrom`` rows on, below ``RankingIndex/parallelThreshold``, with the
    /// spinning worker awake (each hand-over costs about a microsecond, against 20 µs or more to wake a
    /// thread). On the calling thread the rows' positions and old rows (random accesses, which cost far
    /// more split between cores: measured); then each half's patience sort and tails, the second on the
    /// worker; the join on the calling thread; then each half's moves, the second half's on the worker,
    /// written after the first half's, whose number is the first half's rows less its kept ones.
    private static func writeOnTwo(_ space: Workspace, _ previous: UnsafePointer<UInt32>, _ current: UnsafePointer<UInt32>,
                                   _ worker: SpinningWorker, _ out: UnsafeMutablePointer<RowMove>) -> Int {
        let n = space.n, middle = cut(n)
        /// Runs the worker's `second` (or here, when it has not started it) beside `first` here.
        func both(_ first: () -> Void, _ second: @escaping @Sendable () -> Void) {
            worker.post(second)
            first()
            if let job = worker.reclaimOrWait() { job() }
        }
        let position = space.position, sequence = space.sequence, mirrored = space.mirrored, slots = space.slots
        for r in 0..<n { position[Int(previous[r])] = UInt32(truncatingIfNeeded: r) }
        for r in 0..<n { sequence[r] = position[Int(current[r])] }
        for r in middle..<n { mirrored[n - 1 - r] = UInt32(truncatingIfNeeded: n - 1) &- sequence[r] }
        for w in 0..<space.words { space.keep[w] = 0 }
        // Each half lists its tails too (the worker's count comes back in a slot).
        var countA = 0
        both({
            sortHalf(space.trees, 0, sequence, middle, space.parent)
            countA = tailsForward(space)
        }, space.jobs.sortSecond)
        let keptFirst = joinHalves(space, countA, slots[Workspace.Slot.tailsBack])
        let movesFirst = middle - keptFirst
        slots[Workspace.Slot.movesAt] = Int(bitPattern: UInt(bitPattern: out + movesFirst))
        both({ _ = writeMoves(0..<middle, UnsafePointer(sequence), UnsafePointer(space.keep), out) }, space.jobs.writeSecond)
        return movesFirst + slots[Workspace.Slot.movesBack]
    }

    /// Patience sorting over all of `space.sequence`: fills `space.parent`, returns the last old row of a longest run.
    private static func longestRun(_ space: Workspace) -> Int {
        let n = space.n, s = UnsafePointer(space.sequence), par = space.parent
        if n <= 64 { return patience(s, n, par) }
        space.trees.clear(0)
        let tree = space.trees.tree(0)
        if n <= 4096 { return patience(s, n, par, low: tree.words + tree.start[0], lowWords: tree.count[0]) }
        return patience(s, n, par, tree)
    }

    /// The longest run as the first half's run forwards joined to the second half's
    /// run backwards (see the type's notes); marks its old rows in `space.keep`.
    private static func longestRunInHalves(_ space: Workspace, _ parallel: Bool) {
        let n = space.n, middle = cut(n)
        let sa = Address(UnsafePointer(space.sequence)), sb = Address(UnsafePointer(space.mirrored))
        let pa = Address(space.parent), pb = Address(space.parentBack), trees = space.trees
        if parallel && n >= halvesOnThreadsFrom {
            DispatchQueue.concurrentPerform(iterations: 2) { t in
                if t == 0 {
                    sortHalf(trees, 0, sa.pointer, middle, pa.pointer)
                } else {
                    sortHalf(trees, 1, sb.pointer, n - middle, pb.pointer)
                }
            }
        } else {
            trees.clear(0)
            trees.clear(1)
            patience(sa.pointer, middle, pa.pointer, trees.tree(0), sb.pointer, n - middle, pb.pointer, trees.tree(1))
        }
        _ = joinHalves(space, tailsForward(space), tailsBackward(space))
    }

    /// The tails of the first half in ascending old rows, written to `space.position`'s first
    /// ``cut(_:)`` slots (free once the halves' old rows are known); returns how many.
    private static func tailsForward(_ space: Workspace) -> Int {
        tailsForward(space.trees, space.position)
    }

    private static func tailsForward(_ trees: Trees, _ tails: UnsafeMutablePointer<UInt32>) -> Int {
        let forward = trees.tree(0)
        var count = 0
        for w in 0..<forward.count[0] {
            var word = forward.words[forward.start[0] + w]
            while word != 0 {
                tails[count] = UInt32(truncatingIfNeeded: w << 6 | word.trailingZeroBitCount)
                count += 1
                word &= word &- 1
            }
        }
        return count
    }

    /// The tails of the second half as old rows, ascending, written to `space.position`
    /// from slot ``cut(_:)`` on; returns how many.
    private static func tailsBackward(_ space: Workspace) -> Int {
        tailsBackward(space.trees, space.n, space.position + cut(space.n))
    }

    fileprivate static func tailsBackward(_ trees: Trees, _ n: Int, _ tails: UnsafeMutablePointer<UInt32>) -> Int {
        let backward = trees.tree(1)
        var count = 0
        for w in stride(from: backward.count[0] - 1, through: 0, by: -1) {
            var word = backward.words[backward.start[0] + w]
            while word != 0 {
                let high = 63 - word.leadingZeroBitCount
                tails[count] = UInt32(truncatingIfNeeded: n - 1 - (w << 6 | high))
                count += 1
                word &= ~(UInt64(1) &<< UInt64(high))
            }
        }
        return count
    }

    /// After both halves are sorted and their tails listed (``tailsForward(_:)``, ``tailsBackward(_:)``):
    /// joins their runs into a longest one (see the type's notes), marks its old rows in
    /// `space.keep`, and returns how many of them are in the first half.
    private static func joinHalves(_ space: Workspace, _ countA: Int, _ countB: Int) -> Int {
        let n = space.n, middle = cut(n)
        let tailsA = space.position, tailsB = space.position + middle
        // The runs' lengths through every x, in ascending x: one more after a first-half tail, one
        // fewer after a second-half one; the first x with the largest sum, without a branch.
        var a = 0, b = 0, length = countB, best = countB, bestA = -1, bestB = 0
        while a < countA && b < countB {
            let va = Int(tailsA[a]), vb = Int(tailsB[b])
            let takeA = va < vb
            length += select(takeA, 1, -1)
            let better = takeA && length > best
            best = select(better, length, best)
            bestA = select(better, va, bestA)
            bestB = select(better, b, bestB)
            a += select(takeA, 1, 0)
            b += select(takeA, 0, 1)
        }
        // Second-half tails left only shorten the run; first-half ones left lengthen it to their last.
        if a < countA && length + (countA - a) > best {
            bestA = Int(tailsA[countA - 1])
            bestB = countB
        }
        // Both runs followed back at once: their old rows differ, so the two chains of loads overlap.
        let parent = space.parent, parentBack = space.parentBack, keep = space.keep
        var k = bestA, j = bestB < countB ? n - 1 - Int(tailsB[bestB]) : -1, keptA = 0
        while k >= 0 && j >= 0 {
            let v = n - 1 - j
            keep[k >> 6] |= UInt64(1) &<< UInt64(k & 63)
            keep[v >> 6] |= UInt64(1) &<< UInt64(v & 63)
            keptA += 1
            let p = parent[k], q = parentBack[j]
            k = p == .max ? -1 : Int(p)
            j = q == .max ? -1 : Int(q)
        }
        keptA += markKept(k, parent, keep) { $0 }
        markKept(j, parentBack, keep) { n - 1 - $0 }
        return keptA
    }

    /// The worker's share (``Workspace/jobs``): the second half sorted into tree 1.
    fileprivate static func sortSecondHalf(_ trees: Trees, _ s: UnsafePointer<UInt32>, _ count: Int, _ par: UnsafeMutablePointer<UInt32>) {
        sortHalf(trees, 1, s, count, par)
    }

    /// The worker's share (``Workspace/jobs``): the second half's moves.
    fileprivate static func writeSecondMoves(_ rows: Range<Int>, _ s: UnsafePointer<UInt32>, _ keep: UnsafePointer<UInt64>,
                                             _ out: UnsafeMutablePointer<RowMove>) -> Int {
        writeMoves(rows, s, keep, out)
    }

    /// Patience sorting of one half (`count` old rows of `s`) into tree `t`.
    @inline(never)
    private static func sortHalf(_ trees: Trees, _ t: Int, _ s: UnsafePointer<UInt32>, _ count: Int, _ par: UnsafeMutablePointer<UInt32>) {
        trees.clear(t)
        _ = patience(s, count, par, trees.tree(t))
    }

    /// Marks the old rows of the run ending at `last` (followed through `parent`) in `keep`; `row` maps a value to its old row.
    @inline(__always)
    @discardableResult
    private static func markKept(_ last: Int, _ parent: UnsafeMutablePointer<UInt32>, _ keep: UnsafeMutablePointer<UInt64>, _ row: (Int) -> Int) -> Int {
        var k = last, marked = 0
        while k >= 0 {
            let v = row(k)
            keep[v >> 6] |= UInt64(1) &<< UInt64(v & 63)
            marked += 1
            let p = parent[k]
            k = p == .max ? -1 : Int(p)
        }
        return marked
    }

    @inline(__always)
    private static func isKept(_ keep: UnsafePointer<UInt64>, _ v: Int) -> Bool {
        keep[v >> 6] & (UInt64(1) &<< UInt64(v & 63)) != 0
    }

    /// Writes the moves of the new rows `rows` (every row whose old row is not kept) to `out`; returns how many.
    ///
    /// Every row is written at the next free slot and the slot is kept only for a move. The
    /// loop stops at the last row that moves: a kept row's write is then always overwritten
    /// by a later move, so nothing is written past this range's moves (on several threads,
    /// the next slice's moves start right there).
    @inline(__always)
    private static func writeMoves(_ rows: Range<Int>, _ s: UnsafePointer<UInt32>, _ keep: UnsafePointer<UInt64>,
                                   _ out: UnsafeMutablePointer<RowMove>) -> Int {
        var end = rows.upperBound
        while end > rows.lowerBound && isKept(keep, Int(s[end - 1])) { end -= 1 }
        var count = 0
        for r in rows.lowerBound..<end {
            let from = Int(s[r])
            out[count] = RowMove(unchecked: from, r)
            count += Int(truncatingIfNeeded: ~(keep[from >> 6] &>> UInt64(from & 63)) & 1)
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

    /// Patience sorting of the `count` old rows `s` (distinct, within the tree's range) with the
    /// tails as a set; fills `par` and returns the last old row of a longest run.
    ///
    /// Each value goes through ``Run/addNear(_:)`` below ``wideFrom`` rows and
    /// ``Run/addThroughSummary(_:)`` from there on.
    private static func patience(_ s: UnsafePointer<UInt32>, _ count: Int, _ par: UnsafeMutablePointer<UInt32>, _ tree: BitTree) -> Int {
        var run = Run(tree: tree, par: par)
        if tree.count[0] &<< 6 >= wideFrom {
            for i in 0..<count { run.addThroughSummary(Int(s[i])) }
        } else {
            for i in 0..<count { run.addNear(Int(s[i])) }
        }
        return run.largest
    }

    /// Patience sorting of two halves at once on one thread, a value of each in
    /// turn: the two runs share nothing, so the processor works on both together
    /// (each value's steps depend on the one before it in its own half).
    private static func patience(_ a: UnsafePointer<UInt32>, _ countA: Int, _ parA: UnsafeMutablePointer<UInt32>, _ treeA: BitTree,
                                 _ b: UnsafePointer<UInt32>, _ countB: Int, _ parB: UnsafeMutablePointer<UInt32>, _ treeB: BitTree) {
        var runA = Run(tree: treeA, par: parA), runB = Run(tree: treeB, par: parB)
        let both = min(countA, countB)
        if treeA.count[0] &<< 6 >= wideFrom {
            for i in 0..<both {
                runA.addThroughSummary(Int(a[i]))
                runB.addThroughSummary(Int(b[i]))
            }
            for i in both..<countA { runA.addThroughSummary(Int(a[i])) }
            for i in both..<countB { runB.addThroughSummary(Int(b[i])) }
        } else {
            for i in 0..<both {
                runA.addNear(Int(a[i]))
                runB.addNear(Int(b[i]))
            }
            for i in both..<countA { runA.addNear(Int(a[i])) }
            for i in both..<countB { runB.addNear(Int(b[i])) }
        }
    }

    /// The state of one patience sort over a ``BitTree`` of tails.
    private struct Run {
        let tree: BitTree
        /// Level 0 (a bit per old row) and level 1 (a bit per word of level 0).
        let low, summary: UnsafeMutablePointer<UInt64>
        let par: UnsafeMutablePointer<UInt32>
        /// The largest and smallest tails (-1 and `Int.max` while there are none).
        var largest = -1, smallest = Int.max
        /// A bit of the zero word after level 0, and that word's index.
        let padding, lastWord: Int

        init(tree: BitTree, par: UnsafeMutablePointer<UInt32>) {
            self.tree = tree
            low = tree.words + tree.start[0]
            summary = tree.words + tree.start[1]
            lastWord = tree.count[0]
            padding = lastWord &<< 6
            self.par = par
        }

        /// Adds old row `v`: its successor among the tails leaves (unless `v` extends the
        /// longest run), `v` joins, and its predecessor is recorded as its parent.
        ///
        /// Looks at three words at once, `v`'s own and the ones on either side (between
        /// two orders of a walk at 10 000 rows, half the neighbours are within 8 rows
        /// of a value and 98 % within 64), and writes two back, without a branch and
        /// without touching the summary: only when a neighbour is further, or a word
        /// would fill or empty, does it go through the tree (``step(_:_:_:_:largest:smallest:)``).
        @inline(__always)
        mutating func addNear(_ v: Int) {
            let low = self.low, largest = self.largest, smallest = self.smallest
            let w = v &>> 6, bit = UInt64(1) &<< UInt64(v & 63)
            // The zero words before and after level 0 make w - 1 and w + 1 readable.
            let before = low[w &- 1], word = low[w], after = low[w &+ 1]
            let extends = v > largest, first = v < smallest
            let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
            let lowestAfter = after & (0 &- after)
            // Fast when the successor (unless v extends the run) is in this word, or in the next
            // one without being its only member; when the predecessor (unless v extends the run
            // or precedes every tail) is in this word or the one before; and the word already
            // holds a member.
            let successorHere = above != 0
            let successorNear = nonZero(above | (after & ~lowestAfter)) | flag(extends)
            let predecessorNear = nonZero(below | before) | flag(extends || first)
            if (successorNear & predecessorNear & nonZero(word)) == 0 {
                OrderDiff.step(v, par, tree, low, largest: &self.largest, smallest: &self.smallest)
                return
            }
            let predecessor = select(below != 0, w &<< 6 | (63 &- below.leadingZeroBitCount),
                                     (w &- 1) &<< 6 | (63 &- before.leadingZeroBitCount))
            par[v] = UInt32(truncatingIfNeeded: select(extends, largest, select(first, -1, predecessor)))   // -1: none
            let successor = select(successorHere, w &<< 6 | above.trailingZeroBitCount, (w &+ 1) &<< 6 | after.trailingZeroBitCount)
            let removeHere = UInt64(truncatingIfNeeded: select(!extends && successorHere, -1, 0))
            let removeAfter = UInt64(truncatingIfNeeded: select(!extends && !successorHere, -1, 0))
            low[w &+ 1] = after & ~(lowestAfter & removeAfter)
            low[w] = word & ~(above & (0 &- above) & removeHere) | bit
            self.largest = select(extends || successor == largest, v, largest)
            self.smallest = min(smallest, v)
        }

        /// Adds old row `v`: its successor among the tails leaves (unless `v` extends the
        /// longest run), `v` joins, and its predecessor is recorded as its parent.
        ///
        /// Both neighbours are looked for in `v`'s word and, through the summary word
        /// over it and the summary words on either side, in the nearest non-empty words
        /// of those 192 (12 288 rows), and the bits of both levels are updated, all without
        /// a branch; only a neighbour beyond those words, or a summary word that fills or
        /// empties, goes through the rest of the tree (``step(_:_:_:_:largest:smallest:)``, ``BitTree/refresh(_:level:)``).
        @inline(__always)
        mutating func addThroughSummary(_ v: Int) {
            let low = self.low, summary = self.summary, largest = self.largest, smallest = self.smallest
            let w = v &>> 6, sw = w &>> 6
            let bit = UInt64(1) &<< UInt64(v & 63), wordBit = UInt64(1) &<< UInt64(w & 63)
            // The zero words before and after level 1 make sw - 1 and sw + 1 readable.
            let word = low[w], near = summary[sw], nextSummary = summary[sw &+ 1], previousSummary = summary[sw &- 1]
            let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
            let later = near & ~(wordBit | (wordBit &- 1)), earlier = near & (wordBit &- 1)
            // The nearest non-empty words after and before w under the same summary word, else
            // under the next (previous) one; when there is none, a word kept within level 0 and
            // its zero words before and after, and not used.
            let next = min(select(later != 0, sw &<< 6 | later.trailingZeroBitCount, (sw &+ 1) &<< 6 | nextSummary.trailingZeroBitCount), lastWord)
            let previous = max(select(earlier != 0, sw &<< 6 &+ 63 &- earlier.leadingZeroBitCount,
                                      sw &<< 6 &- 1 &- previousSummary.leadingZeroBitCount), -1)
            let extends = v > largest, first = v < smallest
            let found = nonZero(above | later | nextSummary) | flag(extends)
            let foundBefore = nonZero(below | earlier | previousSummary) | flag(extends || first)
            if (found & foundBefore) == 0 {
                OrderDiff.step(v, par, tree, low, largest: &self.largest, smallest: &self.smallest)
                return
            }
            let successor = select(above != 0, w &<< 6 | above.trailingZeroBitCount, next &<< 6 | low[next].trailingZeroBitCount)
            let predecessor = select(below != 0, w &<< 6 | (63 &- below.leadingZeroBitCount),
                                     previous &<< 6 | (63 &- low[previous].leadingZeroBitCount))
            par[v] = UInt32(truncatingIfNeeded: select(extends, largest, select(first, -1, predecessor)))   // -1: none
            // The successor leaves (unless v extends the run: then a bit of the zero word after
            // level 0 is cleared, which leaves it zero and its summary bit clear), its summary
            // bit clears if its word empties; v joins and sets its word's summary bit.
            let leaves = select(extends, padding, successor)
            let leftWord = leaves &>> 6
            let left = low[leftWord] & ~(UInt64(1) &<< UInt64(leaves & 63))
            low[leftWord] = left
            let leftSummary = summary[leftWord &>> 6]
            let emptied = leftSummary & ~(flag(left == 0) &<< UInt64(leftWord & 63))
            summary[leftWord &>> 6] = emptied
            low[w] |= bit
            let filled = summary[sw]
            summary[sw] = filled | wordBit
            if (nonZero(leftSummary) & (1 &- nonZero(emptied))) | (1 &- nonZero(filled)) != 0 {
                // A summary word emptied or filled: the levels above follow.
                tree.refresh(leftWord &>> 6, level: 1)
                tree.refresh(sw, level: 1)
            }
            self.largest = select(extends || successor == largest, v, largest)
            self.smallest = min(smallest, v)
        }
    }

    /// One value of ``patience(_:_:_:_:)`` through the tree: the successor leaves
    /// (unless `v` extends the run), `v` joins, and the summary bits of the words
    /// that fill or empty are set to match.
    @inline(never)
    private static func step(_ v: Int, _ par: UnsafeMutablePointer<UInt32>, _ tree: BitTree, _ low: UnsafeMutablePointer<UInt64>,
                             largest: inout Int, smallest: inout Int) {
        let summary = tree.words + tree.start[1]
        let w = v &>> 6, bit = UInt64(1) &<< UInt64(v & 63)
        let word = low[w]
        let above = word & ~(bit | (bit &- 1)), below = word & (bit &- 1)
        let extends = v > largest
        // A neighbour in another word: through the summary word over w, else the whole tree.
        let sw = w &>> 6, wordBit = UInt64(1) &<< UInt64(w & 63), near = summary[sw]
        var successor = -1
        if !extends {
            let later = near & ~(wordBit | (wordBit &- 1))
            if above != 0 {
                successor = w &<< 6 | above.trailingZeroBitCount
            } else if later != 0 {
                let next = sw &<< 6 | later.trailingZeroBitCount
                successor = next &<< 6 | low[next].trailingZeroBitCount
            } else {
                successor = tree.successor(atLeast: (w + 1) &<< 6)
            }
        }
        var predecessor = largest
        if !extends {
            let earlier = near & (wordBit &- 1)
            if below != 0 {
                predecessor = w &<< 6 | (63 &- below.leadingZeroBitCount)
            } else if v < smallest {
                predecessor = -1
            } else if earlier != 0 {
                let previous = sw &<< 6 | (63 &- earlier.leadingZeroBitCount)
                predecessor = previous &<< 6 | (63 &- low[previous].leadingZeroBitCount)
            } else {
                predecessor = tree.predecessor(atMost: w &<< 6 - 1)
            }
        }
        par[v] = UInt32(truncatingIfNeeded: predecessor)         // -1 becomes UInt32.max: none
        low[w] = word | bit
        if word == 0 { tree.refresh(w, level: 0) }
        if successor >= 0 {
            let removed = successor &>> 6
            let left = low[removed] & ~(UInt64(1) &<< UInt64(successor & 63))
            low[removed] = left
            if left == 0 { tree.refresh(removed, level: 0) }
        }
        if extends || successor == largest { largest = v }
        smallest = min(smallest, v)
    }
}


/// 1 when `x` is not zero, else 0, without a branch.
@inline(__always)
private func nonZero(_ x: UInt64) -> UInt64 { (x | (0 &- x)) &>> 63 }

/// 1 when `condition` holds, else 0.
@inline(__always)
private func flag(_ condition: Bool) -> UInt64 { UInt64(truncatingIfNeeded: UInt8(condition ? 1 : 0)) }

/// `a` where `condition` holds, else `b`, by masks rather than a branch.
@inline(__always)
private func select(_ condition: Bool, _ a: Int, _ b: Int) -> Int {
    let m = 0 &- Int(truncatingIfNeeded: UInt8(condition ? 1 : 0))
    return a & m | b & ~m
}

/// The buffers of an ``OrderDiff`` for `n` rows, allocated once and reused
/// for every diff of that size (``OrderDiff`` replaces it when shared).
private final class Workspace {
    let n: Int
    /// Words of a bit per row (``keep``).
    let words: Int
    /// `position`: by place, its old row; `sequence`: by new row, its old row;
    /// `mirrored`: the second half of `sequence` backwards, each `v` as `n − 1 − v` (``OrderDiff/splitFrom`` rows on).
    let position, sequence, mirrored: UnsafeMutablePointer<UInt32>
    /// By old row (mirrored old row for `parentBack`): the one before it in its run, or `UInt32.max`.
    let parent, parentBack: UnsafeMutablePointer<UInt32>
    /// A bit per old row: whether it stays.
    let keep: UnsafeMutablePointer<UInt64>
    /// What ``OrderDiff/writeOnTwo(_:_:_:_:_:)`` and the worker's jobs hand each other (``Slot``).
    let slots: UnsafeMutablePointer<Int>

    enum Slot {
        /// The second half's number of tails (from the worker).
        static let tailsBack = 0
        /// The address of the second half's first move (to the worker).
        static let movesAt = 1
        /// The second half's number of moves (from the worker).
        static let movesBack = 2
    }
    /// Two sets of old rows as trees of bit words (the second for the backward half).
    let trees: Trees
    /// The thread for the second half (from ``OrderDiff/splitFrom`` rows on, on two threads or more), made when first needed.
    private var spinning: SpinningWorker?
    /// The worker's two jobs, made with it: they read and write only this workspace's buffers
    /// and ``slots``, so that a diff hands them over without allocating.
    private(set) var jobs = Jobs(sortSecond: {}, writeSecond: {})

    struct Jobs {
        /// The second half's patience sort and its tails.
        let sortSecond: @Sendable () -> Void
        /// The second half's moves, written at ``Slot/movesAt``.
        let writeSecond: @Sendable () -> Void
    }

    /// The worker, when ``worker()`` has made it.
    var existingWorker: SpinningWorker? { spinning }

    func worker() -> SpinningWorker? {
        guard n >= OrderDiff.splitFrom && n < RankingIndex.parallelThreshold else { return nil }
        if let spinning { return spinning }
        let made = SpinningWorker()
        spinning = made
        let n = self.n, middle = OrderDiff.cut(n), trees = self.trees
        let pm = Address(mirrored), pb = Address(parentBack), ps = Address(sequence), pk = Address(keep)
        let tails = Address(position + middle), pslots = Address(slots)
        jobs = Jobs(sortSecond: {
            OrderDiff.sortSecondHalf(trees, pm.pointer, n - middle, pb.pointer)
            pslots.pointer[Slot.tailsBack] = OrderDiff.tailsBackward(trees, n, tails.pointer)
        }, writeSecond: {
            let slots = pslots.pointer
            guard let out = UnsafeMutablePointer<RowMove>(bitPattern: UInt(bitPattern: slots[Slot.movesAt])) else { return }
            slots[Slot.movesBack] = OrderDiff.writeSecondMoves(middle..<n, UnsafePointer(ps.pointer), UnsafePointer(pk.pointer), out)
        })
        return made
    }
    private let treeWords: UnsafeMutablePointer<UInt64>
    private let levelStart, levelWords: UnsafeMutablePointer<Int>

    init(_ n: Int) {
        self.n = n
        words = (n + 63) >> 6
        let halves = n >= OrderDiff.splitFrom
        position = .allocate(capacity: n)
        sequence = .allocate(capacity: n)
        mirrored = .allocate(capacity: halves ? n - OrderDiff.cut(n) : 1)
        parent = .allocate(capacity: n)
        parentBack = .allocate(capacity: halves ? n : 1)
        keep = .allocate(capacity: words)
        slots = .allocate(capacity: 3)
        slots.initialize(repeating: 0, count: 3)
        // Level 0 a bit per value, each level above a bit per word of the one below, up to
        // one word (at least two levels); a zero word before and after every level.
        var starts: [Int] = [], counts: [Int] = []
        var level = words, total = 1
        repeat {
            starts.append(total)
            counts.append(level)
            total += level + 1
            level = (level + 63) >> 6
        } while starts.count < 2 || counts[counts.count - 1] > 1
        levelStart = .allocate(capacity: starts.count)
        levelStart.initialize(from: starts, count: starts.count)
        levelWords = .allocate(capacity: counts.count)
        levelWords.initialize(from: counts, count: counts.count)
        treeWords = .allocate(capacity: 2 * total)
        treeWords.initialize(repeating: 0, count: 2 * total)
        trees = Trees(words: Address(treeWords), start: Address(levelStart), count: Address(levelWords), levels: starts.count, total: total)
    }

    deinit {
        for buffer in [position, sequence, mirrored, parent, parentBack] { buffer.deallocate() }
        keep.deallocate()
        slots.deallocate()
        treeWords.deallocate()
        levelStart.deallocate()
        levelWords.deallocate()
    }
}

/// Two trees of bit words laid out alike, by address (handed to worker threads,
/// each of which works on one tree only).
private struct Trees: Sendable {
    let words: Address<UInt64>
    let start: Address<Int>
    let count: Address<Int>
    let levels: Int
    /// Words per tree, the zero words included.
    let total: Int

    func tree(_ t: Int) -> BitTree {
        BitTree(words: words.pointer + t * total, start: UnsafeBufferPointer(start: start.pointer, count: levels),
                count: UnsafeBufferPointer(start: count.pointer, count: levels))
    }

    func clear(_ t: Int) {
        (words.pointer + t * total).update(repeating: 0, count: total)
    }
}

/// A set of integers below a bound as a 64-ary tree of bit words: level 0 has
/// a bit per value, each level above a bit per non-empty word of the one
/// below, up to a single word. Works on buffers ``OrderDiff`` owns.
private struct BitTree {
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
