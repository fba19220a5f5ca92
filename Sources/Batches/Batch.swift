import ChildProcess
import Foundation
import Replay
import Traces

/// One batch run: a queue of traces, at most `jobs` child processes at once.
public struct Batch: Sendable {
    /// Where a walk of the batch is: waiting, replaying, or finished one way or another.
    public enum Status: String, Codable, Sendable {
        /// `diverged`: the walk ran, and its order changes differ from its golden.
        case queued, running, done, diverged, failed, cancelled
    }

    /// Goldens per walk: written, or checked, in a directory.
    public enum Goldens: Sendable {
        case record(String)
        case verify(String)
    }

    /// One walk of the batch, as `status.json` lists it: its trace, status, reason and output files.
    public struct Item: Codable, Sendable {
        public var trace: String
        public var stem: String
        public var status: Status
        public var reason: String?
        public var outputs: [String]
        /// How long its replay took.
        public var seconds: Double?
        /// Its own replay options and golden, from a plan.
        public var options: [String]?
        public var golden: String?
        /// The Ray node it ran on (--ray).
        public var node: String?

        public init(trace: String, stem: String, status: Status, reason: String? = nil, outputs: [String] = [], seconds: Double? = nil,
                    options: [String]? = nil, golden: String? = nil, node: String? = nil) {
            self.trace = trace
            self.stem = stem
            self.status = status
            self.reason = reason
            self.outputs = outputs
            self.seconds = seconds
            self.options = options
            self.golden = golden
            self.node = node
        }
    }

    /// `status.json`: the batch's concurrency and every walk, rewritten as each one changes.
    public struct StatusFile: Codable, Sendable {
        public var jobs: Int
        public var traces: [Item]
    }

    public internal(set) var items: [Item]
    public let directory: String
    public let jobs: Int
    /// Seconds a replay may run before it is killed; nil for no limit.
    public let timeLimit: Double?
    /// The replay options every walk gets.
    public let replayArguments: [String]
    public let goldens: Goldens?
    var startedAt: [Int: Date] = [:]
    /// With --ray: the cluster that runs the replays instead of child processes here.
    public var ray: RayExecutor?
    /// With --shard-places: the shards each walk is replayed on, then merged.
    public var shards: ShardPlan?
    /// The `stroll` each replay runs as (a child process here, or on a Ray worker).
    public var executable: String
    /// Where the walks' lines and the progress line go (standard output by default).
    public var display: BatchDisplay = .standardOutput

    public init(traces: [String], directory: String, jobs: Int, timeLimit: Double? = nil, executable: String) {
        self.init(walks: traces.map { BatchPlan.Walk(trace: $0, options: [], golden: nil) }, directory: directory, jobs: jobs, timeLimit: timeLimit, executable: executable)
    }

    public init(walks: [BatchPlan.Walk], directory: String, jobs: Int, timeLimit: Double? = nil, replayArguments: [String] = [], goldens: Goldens? = nil,
                executable: String) {
        self.executable = executable
        self.directory = directory
        self.jobs = jobs
        self.timeLimit = timeLimit
        self.replayArguments = replayArguments
        self.goldens = goldens
        var stems: [String: Int] = [:]
        items = walks.map { walk in
            var stem = ((walk.trace as NSString).lastPathComponent as NSString).deletingPathExtension
            stems[stem, default: 0] += 1
            if let n = stems[stem], n > 1 { stem += "-\(n)" }
            return Item(trace: walk.trace, stem: stem, status: .queued, reason: nil, outputs: [], seconds: nil,
                        options: walk.options.isEmpty ? nil : walk.options, golden: walk.golden)
        }
        // Resume: what an earlier run finished (and whose outputs are still there) is not redone
        // (a batch that records or verifies goldens always replays every walk).
        if goldens == nil, let data = FileManager.default.contents(atPath: statusPath), let previous = try? JSONDecoder().decode(StatusFile.self, from: data) {
            for (k, item) in items.enumerated() {
                if let old = previous.traces.first(where: { $0.trace == item.trace && $0.stem == item.stem }), old.status == .done,
                   old.outputs.allSatisfy({ FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent($0)) }) {
                    items[k] = old
                }
            }
        }
    }

    public var statusPath: String { (directory as NSString).appendingPathComponent("status.json") }

    func output(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// How a job ended.
    enum Outcome: Sendable {
        case exited(Int, ChildExit, node: String?)
        /// The cluster could not run it (--ray), after its retries.
        case lost(Int, String)
        case timedOut(Int)
        case notStarted(Int, String)
        case cancelled(Int)
        case interrupted
        /// Time to redraw the progress line (on a terminal).
        case tick
    }

    /// On a terminal: a progress line under the walks' lines, redrawn in place
    /// every half second (walks done of total, the running walks with their
    /// time and the events written so far, elapsed, an estimate of the time
    /// left). On a pipe or in CI: plain lines only.
    var began = Date()
    var finishedHere = 0

    /// Runs the queue; returns how many traces failed. An element of
    /// `interrupts` (the command's Ctrl-C) cancels the running replays and
    /// marks the rest cancelled.
    ///
    /// Each replay is a child process awaited through its termination handler
    /// (``ChildProcess``): the batch sleeps until a replay ends, a time limit
    /// passes or Ctrl-C arrives, and does nothing in between.
    public mutating func run(interrupts: AsyncStream<Void> = AsyncStream { $0.finish() }) async -> Int {
        let live = display.live

        for item in items where item.status == .done { announce(item, note: "already done") }
        writeStatus()
        began = Date()
        var cancelled = false
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await _ in interrupts { return .interrupted }
                return .cancelled(-1)
            }
            if live { group.addTask { await Self.tick() } }
            var running = 0
            while true {
                while !cancelled, running < jobs, let next = items.firstIndex(where: { $0.status == .queued }) {
                    if let job = prepare(next) {
                        group.addTask { await Self.perform(job) }
                        running += 1
                    }
                    writeStatus()
                }
                if running == 0 { break }
                guard let outcome = await group.next() else { break }
                switch outcome {
                case .tick:
                    drawProgress()
                    if running > 0 { group.addTask { await Self.tick() } }
                    continue
                case .interrupted:
                    cancelled = true
                    group.cancelAll()
                    for k in items.indices where items[k].status == .queued {
                        items[k].status = .cancelled
                        items[k].reason = "interrupted before it started"
                        announce(items[k])
                    }
                case .exited(let k, let status, let node):
                    running -= 1
                    items[k].node = node
                    if status.timedOut {
                        discard(k, status: .failed, reason: "still running after --timeout \(String(format: "%g", timeLimit ?? 0)) s; killed")
                    } else {
                        finish(k, status: status)
                    }
                case .lost(let k, let reason):
                    running -= 1
                    discard(k, status: .failed, reason: reason)
                case .timedOut(let k):
                    running -= 1
                    discard(k, status: .failed, reason: "still running after --timeout \(String(format: "%g", timeLimit ?? 0)) s; killed")
                case .notStarted(let k, let reason):
                    running -= 1
                    discard(k, status: .failed, reason: "cannot start a replay: \(reason)")
                case .cancelled(let k):
                    if k >= 0 {
                        running -= 1
                        discard(k, status: .cancelled, reason: "interrupted")
                    }
                }
                writeStatus()
            }
            group.cancelAll()
        }
        if live { display.write("\r\u{1B}[K") }
        let failed = items.filter { $0.status == .failed || $0.status == .diverged }.count
        let done = items.filter { $0.status == .done }.count
        let diverged = items.filter { $0.status == .diverged }.count
        display.write("batch: \(done) done, \(diverged) diverged, \(items.filter { $0.status == .failed }.count) failed, \(items.filter { $0.status == .cancelled }.count) cancelled; status in \(statusPath)\n")
        if cancelled { display.write("batch: interrupted; run it again to finish the rest\n") }
        return failed
    }


    static func tick() async -> Outcome {
        try? await Task.sleep(for: .milliseconds(500))
        return .tick
    }

}
