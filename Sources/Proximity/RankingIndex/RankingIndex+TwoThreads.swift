import Geodesy
import Synchronization

/// RankingIndex's distance pass shared with a diff's spinning thread: `rankAll(from:beside:)`, the pass it hands over and the run counter.
extension RankingIndex {
    /// Ranks every place from `walker` as ``rankAll(from:)`` does, with half of the distance
    /// pass on the spinning thread `diff` keeps for the two halves of its next diff, when
    /// that thread is awake: for the orders a diff compares, from ``OrderDiff/splitFrom``
    /// to ``parallelThreshold`` places, with ``threads`` and the diff's threads both above
    /// one. That thread waits for the diff anyway; handing it a share costs about a
    /// microsecond, against the tens of microseconds of waking a thread for it (which is why
    /// ``rankAll(from:)`` alone keeps one thread below ``parallelThreshold``). Each thread
    /// computes the keys of its own half of the places and counts their digits; the
    /// counts are added and the radix sort runs on the calling thread, so the order is
    /// the one ``rankAll(from:)`` gives.
    public mutating func rankAll(from walker: Coordinate, beside diff: OrderDiff) {
        let n = count
        guard threads > 1, n > Self.smallCount, n < parallelFrom, n < bucketsFrom, let worker = diff.awakeWorker(rows: n) else {
            return rankAll(from: walker)
        }
        let w = Walker(walker, ellipsoid: geodesic.ellipsoid)
        lastWalker = w
        rankAllBeside(w, worker)
    }

    /// ``rankAllOnOneThread(_:)`` with the places' distances and digit counts shared
    /// with `worker` in runs of ``besideRun`` places, each thread taking the next run
    /// until none is left: when the worker is slow to start or is interrupted (a busy
    /// machine), the calling thread takes the runs it has not, and waits at most for
    /// the one it is on. The worker's job and what it reads are made once
    /// (``SharedPass``): an update fills them in and allocates nothing.
    @inline(never)
    private mutating func rankAllBeside(_ w: Walker, _ worker: SpinningWorker) {
        let n = count
        if sharedPass == nil || !isKnownUniquelyReferenced(&sharedPass) {
            let made = SharedPass(walker: w, karney: geodesic, places: coordinates)
            sharedPass = made
            // The job holds the pass's parts, not the pass: the index's reference stays the only one (a copy of the index makes its own).
            let counter = made.next, pass = made.pass, counts = made.counts
            sharedJob = { SharedPass.workerTakes(counter, pass, counts) }
        }
        guard let shared = sharedPass else { return rankAllOnOneThread(w) }
        let job = sharedJob
        rankThenSort { xs, ys, zs, back, ks, c in
            shared.start(w, n: n, runs: (n + Self.besideRun - 1) / Self.besideRun, xs, ys, zs, back, ks)
            worker.post(job)
            let maxMM = shared.take(c)
            if let job = worker.reclaimOrWait() { job() }
            let other = shared.counts.pointer
            for v in 0..<(2 * Self.buckets) { c[v] &+= other[v] }
            return max(maxMM, shared.pass.pointer.pointee.largest)
        }
    }

    /// The places in one run of ``rankAll(from:beside:)``'s shared distance pass.
    static let besideRun = 1024
}

/// The distance pass ``RankingIndex/rankAll(from:beside:)`` shares with a diff's
/// thread: a run counter handing out run numbers 0, 1, 2, … (each once), the figures
/// of the update (``Pass``: the walker, the places' buffers by address), and the
/// second thread's digit counts and largest millimetre. Allocated once per index and
/// filled in by the calling thread before it posts the job, read by the worker after
/// it takes it (the post's release and the take's acquire order them). The job holds
/// the counter and the addresses, not this object, which the index alone holds and
/// which outlives every job (the calling thread waits for the job).
final class SharedPass: Sendable {
    struct Pass: Sendable {
        var walker: RankingIndex.Walker
        let karney: Geodesic
        let places: [Coordinate]
        var n = 0, runs = 0
        /// The places' ECEF coordinates and tie indices, and the keys to write (set by ``SharedPass/start(_:n:runs:_:_:_:_:_:)``).
        var xs: Address<Double>?, ys: Address<Double>?, zs: Address<Double>?
        var back: Address<UInt32>?
        var keys: Address<UInt64>?
        /// The worker's largest millimetre.
        var largest: UInt64 = 0
    }

    let next = RunCounter()
    let pass: Address<Pass>
    /// The worker's counts of two digits.
    let counts: Address<UInt32>

    init(walker: RankingIndex.Walker, karney: Geodesic, places: [Coordinate]) {
        let p = UnsafeMutablePointer<Pass>.allocate(capacity: 1)
        p.initialize(to: Pass(walker: walker, karney: karney, places: places))
        pass = Address(p)
        let c = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * RankingIndex.buckets)
        c.initialize(repeating: 0, count: 2 * RankingIndex.buckets)
        counts = Address(c)
    }

    deinit {
        pass.pointer.deinitialize(count: 1)
        pass.pointer.deallocate()
        counts.pointer.deallocate()
    }

    /// Sets the next pass (before the job is posted).
    func start(_ w: RankingIndex.Walker, n: Int, runs: Int, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
               _ back: UnsafePointer<UInt32>, _ ks: UnsafeMutablePointer<UInt64>) {
        let p = pass.pointer
        p.pointee.walker = w
        p.pointee.n = n
        p.pointee.runs = runs
        p.pointee.xs = Address(xs)
        p.pointee.ys = Address(ys)
        p.pointee.zs = Address(zs)
        p.pointee.back = Address(back)
        p.pointee.keys = Address(ks)
        p.pointee.largest = 0
        next.reset()
    }

    /// The next runs' keys, their digits counted into `counts` (zeroed by the caller); the largest millimetre.
    func take(_ counts: UnsafeMutablePointer<UInt32>) -> UInt64 {
        Self.take(next, pass, counts)
    }

    private static func take(_ next: RunCounter, _ pass: Address<Pass>, _ counts: UnsafeMutablePointer<UInt32>) -> UInt64 {
        let p = pass.pointer
        let w = p.pointee.walker, karney = p.pointee.karney, places = p.pointee.places, n = p.pointee.n, runs = p.pointee.runs
        guard let xs = p.pointee.xs?.pointer, let ys = p.pointee.ys?.pointer, let zs = p.pointee.zs?.pointer,
              let back = p.pointee.back?.pointer, let ks = p.pointee.keys?.pointer else { return 0 }
        var maxMM: UInt64 = 0
        while true {
            let run = next.take()
            guard run < runs else { return maxMM }
            let lo = run * RankingIndex.besideRun, hi = min(n, lo + RankingIndex.besideRun)
            maxMM = max(maxMM, RankingIndex.rankSlice(w, lo..<hi, xs, ys, zs, back, ks, counts: counts) { karney.distance(w.coordinate, places[$0]) })
        }
    }

    /// The worker's share: its counts zeroed, then the runs it takes, its largest millimetre kept.
    static func workerTakes(_ next: RunCounter, _ pass: Address<Pass>, _ counts: Address<UInt32>) {
        let c = counts.pointer
        for v in 0..<(2 * RankingIndex.buckets) { c[v] = 0 }
        pass.pointer.pointee.largest = take(next, pass, c)
    }
}

/// Hands out run numbers 0, 1, 2, … to the threads sharing a pass, each number once.
final class RunCounter: Sendable {
    private let next = Atomic<Int>(0)

    /// The next run number.
    func take() -> Int {
        next.add(1, ordering: .relaxed).oldValue
    }

    /// Back to 0, before the next pass is posted.
    func reset() {
        next.store(0, ordering: .relaxed)
    }
}
