/// OrderDiff's two halves on the calling thread and its spinning worker: the hand-overs and the worker's shares.
extension OrderDiff {
    /// ``write(_:_:_:_:_:_:)`` from ``splitFrom`` rows on, below ``RankingIndex/parallelThreshold``, with the
    /// spinning worker awake (each hand-over costs about a microsecond, against tens of microseconds to
    /// wake a thread). On the calling thread the rows' positions and old rows (random accesses, which cost
    /// more split between cores than on one); then each half's patience sort and tails, the second on the
    /// worker; the join on the calling thread; then each half's moves, the second half's on the worker,
    /// written after the first half's, whose number is the first half's rows less its kept ones.
    static func writeOnTwo(_ space: Workspace, _ previous: UnsafePointer<UInt32>, _ current: UnsafePointer<UInt32>,
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

    /// The worker's share (``Workspace/jobs``): the second half sorted into tree 1.
    static func sortSecondHalf(_ trees: Trees, _ s: UnsafePointer<UInt32>, _ count: Int, _ par: UnsafeMutablePointer<UInt32>) {
        sortHalf(trees, 1, s, count, par)
    }

    /// The worker's share (``Workspace/jobs``): the second half's moves.
    static func writeSecondMoves(_ rows: Range<Int>, _ s: UnsafePointer<UInt32>, _ keep: UnsafePointer<UInt64>,
                                 _ out: UnsafeMutablePointer<RowMove>) -> Int {
        writeMoves(rows, s, keep, out)
    }
}
