import Foundation
import Synchronization

/// A second thread for one job at a time that takes tens of microseconds, where
/// waking a sleeping thread (``DispatchQueue/concurrentPerform(iterations:execute:)``
/// takes about as long) would cost as much as the job saves.
/// After each job the thread waits by spinning for ``spin`` before it sleeps, so
/// jobs that come one after another (the diffs of a replay or a benchmark) find it
/// awake.
///
/// The caller hands over a job with ``post(_:)``, does its own share, then calls
/// ``reclaimOrWait()``: a job the thread has not started yet comes back to the caller
/// (it then runs it itself), so a sleeping thread or one not yet scheduled costs the
/// caller no wait (only a thread descheduled while it runs the job does: the caller
/// then waits, yielding, for it to finish). Results must not depend on which thread
/// ran the job. Spinning takes a core for up to ``spin`` after each job: only for
/// jobs whose callers would otherwise leave that core idle.
final class SpinningWorker: Sendable {
    private enum State: UInt8 {
        case idle, posted, running, done, sleeping, stopping
    }

    /// How long the thread spins for the next job before it sleeps.
    static let spin: UInt64 = 500_000        // nanoseconds

    private let channel: Channel

    /// The state shared with the thread: it holds no reference to the worker, so
    /// that the worker's deinit stops the thread.
    private final class Channel: Sendable {
        let state = Atomic<UInt8>(State.idle.rawValue)
        let job = Mutex<(@Sendable () -> Void)?>(nil)
        let wake = DispatchSemaphore(value: 0)
    }

    init() {
        let channel = Channel()
        self.channel = channel
        let thread = Thread { Self.serve(channel) }
        thread.name = "stroll.diff"
        thread.start()
    }

    deinit {
        if channel.state.exchange(State.stopping.rawValue, ordering: .acquiringAndReleasing) == State.sleeping.rawValue {
            channel.wake.signal()
        }
    }

    /// Whether the thread is waiting for a job by spinning (not asleep).
    var isAwake: Bool { channel.state.load(ordering: .acquiring) == State.idle.rawValue }

    /// Wakes the thread when it sleeps, so that it spins for the next job.
    func wake() {
        let (woken, _) = channel.state.compareExchange(expected: State.sleeping.rawValue, desired: State.idle.rawValue,
                                                       ordering: .acquiringAndReleasing)
        if woken { channel.wake.signal() }
    }

    /// Hands `job` to the thread (waking it when it sleeps).
    func post(_ job: @escaping @Sendable () -> Void) {
        channel.job.withLock { $0 = job }
        if channel.state.exchange(State.posted.rawValue, ordering: .acquiringAndReleasing) == State.sleeping.rawValue {
            channel.wake.signal()
        }
    }

    /// After ``post(_:)``: the job back when the thread has not started it (returned, for
    /// the caller to run), else nil once the thread has finished it.
    func reclaimOrWait() -> (@Sendable () -> Void)? {
        let (exchanged, _) = channel.state.compareExchange(expected: State.posted.rawValue, desired: State.idle.rawValue,
                                                           ordering: .acquiringAndReleasing)
        if exchanged { return channel.job.withLock { job in defer { job = nil }; return job } }
        var spins = 0
        while channel.state.load(ordering: .acquiring) != State.done.rawValue {
            spins += 1
            if spins & 1023 == 0 { sched_yield() }
        }
        channel.state.store(State.idle.rawValue, ordering: .releasing)
        return nil
    }

    /// The thread: runs posted jobs; between them spins for ``spin``, then sleeps until the next.
    private static func serve(_ channel: Channel) {
        var deadline = now() + spin
        var spins = 0
        while true {
            let state = channel.state.load(ordering: .acquiring)
            if state == State.stopping.rawValue { return }
            if state == State.posted.rawValue {
                let (taken, _) = channel.state.compareExchange(expected: State.posted.rawValue, desired: State.running.rawValue,
                                                               ordering: .acquiringAndReleasing)
                if taken {
                    let job = channel.job.withLock { job in defer { job = nil }; return job }
                    job?()
                    // Done, unless the worker is being stopped meanwhile.
                    _ = channel.state.compareExchange(expected: State.running.rawValue, desired: State.done.rawValue, ordering: .acquiringAndReleasing)
                    deadline = now() + spin
                }
                continue
            }
            spins += 1
            if spins & 255 == 0 && now() > deadline {
                let (asleep, _) = channel.state.compareExchange(expected: State.idle.rawValue, desired: State.sleeping.rawValue,
                                                                ordering: .acquiringAndReleasing)
                if asleep {
                    channel.wake.wait()
                    deadline = now() + spin
                }
            }
        }
    }

    private static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
    }
}
