/// A buffer's address as a number, so that it may be handed to other threads
/// (`Sendable`, where a pointer is not). The unsafe-pointer code of
/// ``RankingIndex`` and ``OrderDiff`` that hands addresses out relies on these
/// invariants, which nothing checks:
///
/// - **Owners and lifetimes.** Every buffer addressed belongs to the value
///   that makes the address: an index's arrays (addressed only inside their
///   `withUnsafe(Mutable)BufferPointer` closures), the two blocks a
///   ``SharedPass`` allocates (freed in its deinit), or the buffers of an
///   ``OrderDiff``'s workspace (allocated in its init, freed in its deinit).
///   No address is read after its buffer is gone: the thread that hands it out
///   waits for every thread it handed it to before the closure returns or the
///   owner can go (`DispatchQueue.concurrentPerform` returns once every
///   iteration has; a ``SpinningWorker``'s job is taken back or waited for by
///   `reclaimOrWait()`). The worker's jobs hold addresses, never their owner,
///   so an index or a diff is its pass's or workspace's only holder, and a copy
///   that shares one makes its own before writing (`isKnownUniquelyReferenced`).
/// - **One writer per slot.** While several threads run, each writes only its
///   own part, and the parts do not overlap. In ``RankingIndex``, on several
///   threads: thread `t` writes its slice of the places' keys (or millimetres),
///   its row of the per-thread digit counts and its largest millimetre; in each
///   scatter, only the slots its row's prefix sums gave it; then its slice of
///   the order or, in buckets, a run of whole buckets' rows of the order and of
///   the keys (its temporary keys), counting in its own row. Beside a diff, the
///   calling thread and the diff's thread each write the keys of the runs a
///   ``RunCounter`` hands them (each run once) and count digits into counts of
///   their own (the index's, the pass's); the pass's figures are the calling
///   thread's to write before it posts, its largest millimetre the worker's. In
///   ``OrderDiff``, on several threads: thread `t` writes the positions of the
///   places in its slice of the previous order (a permutation: no two alike),
///   its slice of the old rows and of their mirror, its count of moves, and its
///   moves from the offset the counts' prefix sum gave it. In two halves, one
///   thread has the first half (tree 0 and `parent`), the other the second
///   (tree 1 and `parentBack`); with the spinning worker, the first is the
///   calling thread's, with its tails before row `cut(n)` of `position` and its
///   moves from the start, and the second the worker's, with its tails from row
///   `cut(n)` on, its moves after the first half's and the workspace's slots it
///   reports in.
/// - **Order.** A thread reads what another wrote only across a hand-over
///   that orders the two: `concurrentPerform`'s start and return, or the
///   worker's acquiring and releasing state changes in
///   ``SpinningWorker/post(_:)`` and ``SpinningWorker/reclaimOrWait()``.
///   Between hand-overs the calling thread works alone (prefix sums, joins).
/// - **Never null when read.** ``pointer`` traps on an address of 0, that of
///   an empty buffer: ``RankingIndex/rankAll(from:)`` returns early for no
///   places, and the index's millimetres, empty unless it sorts in buckets,
///   are addressed but read only when it does.
struct Address<Element>: Sendable {
    private let bits: UInt

    init(_ buffer: UnsafeBufferPointer<Element>) {
        bits = UInt(bitPattern: buffer.baseAddress)
    }

    init(_ buffer: UnsafeMutableBufferPointer<Element>) {
        bits = UInt(bitPattern: buffer.baseAddress)
    }

    init(_ pointer: UnsafePointer<Element>) {
        bits = UInt(bitPattern: pointer)
    }

    init(_ pointer: UnsafeMutablePointer<Element>) {
        bits = UInt(bitPattern: pointer)
    }

    /// The address (never null: only non-empty buffers are handed out).
    var pointer: UnsafeMutablePointer<Element> {
        // Programmer's invariant, not input: only buffers of one place or more are handed out (rankAll returns early for none).
        UnsafeMutablePointer(bitPattern: bits)!
    }
}
