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
/// `wideFrom` rows they are looked for in its own word and the words on
/// either side, from there on (the tails are sparser) under its summary word
/// and the ones on either side, without a branch either way; only the few
/// values whose neighbours are further go through the rest of the tree.
/// Up to 64 rows the set is a single word, up to 4 096 one level of words
/// under a summary word held in a register. Below ``splitFrom`` rows the
/// result is the subsequence the array form of the algorithm picks.
///
/// **Two halves.** From ``splitFrom`` rows on, the first half of the new rows
/// (up to `cut(_:)`: a little more than half below ``RankingIndex/parallelThreshold``)
/// is sorted forwards and the second half backwards (old rows read from the
/// last new row, each `v` as `n − 1 − v`). With two threads or more, below
/// ``RankingIndex/parallelThreshold`` rows, the second half goes to a
/// `SpinningWorker` of the diff's own, which waits for the next diff by
/// spinning (half a millisecond) rather than sleeping, so that handing it over
/// costs about a microsecond rather than the tens of microseconds of waking a thread;
/// it also writes the second half's moves. When the worker has fallen asleep
/// (diffs further apart), and from ``RankingIndex/parallelThreshold`` rows on, the
/// halves run as before: from `halvesOnThreadsFrom` rows on each on a thread of
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
    /// each in turn: a half of fewer rows takes less time than waking a thread for it. The
    /// threshold lies where the two cross on a walk's diffs.
    static let halvesOnThreadsFrom = 16_384
    /// From this many rows on (rounded up to 64), the tails are sparse enough that a value's
    /// neighbours are looked for under its summary word rather than in the words beside it
    /// (below it the words beside are found faster, above it the summary: where the two cross
    /// on a walk's diffs).
    static let wideFrom = 32_768

    public init() {}

    /// The first new row of the second half (from ``splitFrom`` rows on): 9/16 of the rows
    /// below ``RankingIndex/parallelThreshold``, where the second half goes to the spinning
    /// worker, whose half runs slower (its old rows were written on the other core, so the
    /// diff would wait for the worker with equal halves); from there on, half. 9/16 is the
    /// share where a walk's diffs with the full order were quickest. A function of the rows
    /// alone, so that the moves picked never depend on the threads.
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
    static func writeMoves(_ rows: Range<Int>, _ s: UnsafePointer<UInt32>, _ keep: UnsafePointer<UInt64>,
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
}
