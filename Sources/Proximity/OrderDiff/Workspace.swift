/// The buffers of an ``OrderDiff`` for `n` rows, allocated once and reused
/// for every diff of that size (``OrderDiff`` replaces it when shared).
final class Workspace {
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
struct Trees: Sendable {
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
