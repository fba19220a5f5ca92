import ArgumentParser
import Foundation
import ChildProcess
import Traces

struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Replay many traces with bounded concurrency, each with its own outputs and status.",
        discussion: """
        Each trace is replayed as `stroll replay TRACE --format jsonl` in its own process, \
        --jobs at a time (three by default, like an operation queue with a maximum of three). \
        Its outputs go in --out: STEM.jsonl (the events), STEM.geojson and STEM.svg, each \
        written atomically (a temporary file, then a rename). The status of every trace \
        (queued, running, done, failed with its reason, cancelled) is shown as it changes \
        and kept in OUT/status.json.

        Ctrl-C cancels the running replays at once, keeps what finished, and marks the \
        rest cancelled (exit code 130). Running the same batch again skips the traces \
        already done. With --timeout a replay still running after that many seconds is \
        killed and fails. A replay that exits non-zero or is killed by a signal fails with \
        that reason. Exit code 1 when a trace failed or diverged.

        Every option of `stroll replay` that shapes the run (places, groups, accuracy, \
        distance filter, rate, noise and seed, regions, region span, follow, sort, within, \
        select, clusters) applies to every walk; the places, groups, regions and selection \
        are checked once, before any replay starts. --record-dir DIR writes each walk's \
        golden timeline to DIR/<walk's file name>.json; --verify-dir DIR checks each walk \
        against its golden there: a walk whose order changes differ is `diverged`, with \
        the first divergence as its reason, and a walk without a golden fails. --junit \
        FILE writes a JUnit XML report (a test case per walk) for CI systems.

        With --ray ADDRESS each replay runs as a task on a Ray cluster's worker nodes \
        (the driver: pip install ./python), with the same outputs, byte for byte; files \
        travel through Ray's object store, and a task lost with its node is retried. \
        --shard-places K splits the places into K shards, replays each walk once per \
        shard (on different workers with --ray) and merges the events into exactly those \
        of one replay over all places.

        Examples:
          stroll batch traces/*.gpx --jobs 3 --out runs
          stroll batch traces/*.gpx --out runs --places cafes.json --record-dir goldens
          stroll batch traces/*.gpx --out runs --places cafes.json --verify-dir goldens --junit report.xml
          stroll batch traces/*.gpx --out runs --ray 127.0.0.1:6379
        """
    )

    @Argument(help: "Traces (any format replay reads); more may come from --plan.")
    var traces: [String] = []

    @Option(name: .customLong("jobs"), help: "How many replays run at once (default 3; with --ray, the cluster's CPUs).")
    var jobsOption: Int?

    @Option(help: ArgumentHelp("Directory for the outputs and status.json.", valueName: "DIR"))
    var out: String

    @Option(help: ArgumentHelp("Time limit for each replay; a replay still running then is killed and fails.", valueName: "SECONDS"))
    var timeout: Double?

    @OptionGroup var simulation: SimulationOptions

    @Option(name: .customLong("record-dir"), help: ArgumentHelp("Write each walk's golden timeline to DIR/<walk's file name>.json.", valueName: "DIR"))
    var recordDir: String?

    @Option(name: .customLong("verify-dir"), help: ArgumentHelp("Check each walk against DIR/<walk's file name>.json.", valueName: "DIR"))
    var verifyDir: String?

    @Option(help: ArgumentHelp("Write a JUnit XML report: a test case per walk.", valueName: "FILE"))
    var junit: String?

    @Option(help: ArgumentHelp("A JSON plan of walks, each with its own replay options and golden (see docs/CLI.md).", valueName: "FILE"))
    var plan: String?

    @Option(help: ArgumentHelp("Run each replay as a task on this Ray cluster (HOST:PORT of a node, ray://HOST:PORT, or auto).", valueName: "ADDRESS"))
    var ray: String?

    @Option(name: .customLong("ray-python"), help: ArgumentHelp("The Python with the Ray driver installed (pip install ./python); default $STROLL_RAY_PYTHON, else python3.", valueName: "PATH"))
    var rayPython: String?

    @Option(name: .customLong("ray-stroll"), help: ArgumentHelp("The stroll executable on the worker nodes (default: this one's path).", valueName: "PATH"))
    var rayStroll: String?

    @Option(name: .customLong("ray-retries"), help: ArgumentHelp("Retries of a replay lost with its node or worker, or on a worker without stroll.", valueName: "N"))
    var rayRetries: Int = 2

    @Option(name: .customLong("ray-connect-timeout"), help: ArgumentHelp("Seconds to reach the Ray cluster before giving up.", valueName: "SECONDS"))
    var rayConnectTimeout: Double = 10

    @Option(name: .customLong("shard-places"), help: ArgumentHelp("Split the places into K shards, replay each walk once per shard (on different workers with --ray) and merge the events into the exact order of all places.", valueName: "K"))
    var shardPlaces: Int?

    @OptionGroup var logging: VerboseOption

    func validate() throws {
        if let jobsOption { guard jobsOption >= 1 else { throw ValidationError("--jobs must be at least 1") } }
        guard rayRetries >= 0, rayRetries <= 100 else { throw ValidationError("--ray-retries must be 0 to 100") }
        guard rayConnectTimeout > 0, rayConnectTimeout.isFinite else { throw ValidationError("--ray-connect-timeout must be more than 0 seconds") }
        if let shardPlaces {
            guard shardPlaces >= 2, shardPlaces <= 64 else { throw ValidationError("--shard-places must be 2 to 64") }
            for (name, given) in [("--select", simulation.select != nil), ("--cluster", simulation.cluster),
                                  ("--record-dir", recordDir != nil), ("--verify-dir", verifyDir != nil)] where given {
                throw ValidationError("--shard-places cannot go with \(name): it needs every place on one machine")
            }
        }
        if ray == nil {
            for (name, given) in [("--ray-python", rayPython != nil), ("--ray-stroll", rayStroll != nil)] where given {
                throw ValidationError("\(name) goes with --ray ADDRESS")
            }
        }
        guard !traces.isEmpty || plan != nil else { throw ValidationError("name at least one trace, or a --plan") }
        if let timeout { guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds") } }
        guard recordDir == nil || verifyDir == nil else { throw ValidationError("--record-dir and --verify-dir cannot be given together: record goldens, then verify against them") }
    }

    func run() async throws {
        // The options are checked once, before any replay starts.
        let log = logging.logger("stroll.batch")
        let (placeSet, activeGroups, _, _) = try simulation.loadPlaces(log: log)
        _ = try simulation.loadEnvironments()
        var walks = traces.map { BatchPlan.Walk(trace: $0, options: [], golden: nil) }
        if let plan {
            let planned = try BatchPlan.load(plan)
            for walk in planned.walks where !walk.options.isEmpty {
                // A walk's own options come after the batch's, so they win; checked like the batch's.
                let combined: SimulationOptions
                do {
                    combined = try SimulationOptions.parse(simulation.arguments + walk.options)
                } catch {
                    printError("error: \(plan): walk \(walk.trace): \(SimulationOptions.message(for: error))")
                    throw StrollExit.usage
                }
                let placeOptions = walk.options.filter { ["--places", "--group", "--select", "--cluster"].contains($0.split(separator: "=").first.map(String.init) ?? $0) }
                if shardPlaces != nil, !placeOptions.isEmpty {
                    printError("error: \(plan): walk \(walk.trace): \(placeOptions[0]) cannot go with --shard-places: the shards hold the batch's places")
                    throw StrollExit.usage
                }
                _ = try combined.loadPlaces(log: log)
                _ = try combined.loadEnvironments()
            }
            walks += planned.walks
        }
        for walk in walks where !FileManager.default.fileExists(atPath: walk.trace) {
            printError("error: \(walk.trace): no such trace\(plan.map { " (in \($0))" } ?? "")")
            throw StrollExit.missingInput
        }
        if let dir = verifyDir {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
                printError("error: --verify-dir \(dir): no such directory")
                throw StrollExit.missingInput
            }
        }
        let outExisted = FileManager.default.fileExists(atPath: out)
        for dir in [out] + [recordDir].compactMap({ $0 }) {
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                printError("error: cannot create \(dir): \(error.localizedDescription)")
                throw StrollExit.missingInput
            }
        }
        let goldens = recordDir.map { Batch.Goldens.record($0) } ?? verifyDir.map { Batch.Goldens.verify($0) }
        var jobs = jobsOption ?? 3
        var executor: RayExecutor?
        if let ray {
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
            let python = rayPython ?? ProcessInfo.processInfo.environment["STROLL_RAY_PYTHON"] ?? "python3"
            let started = RayExecutor(logPath: (out as NSString).appendingPathComponent(".ray-driver.log"))
            switch await started.start(address: ray, python: python, stroll: rayStroll ?? executable, retries: rayRetries, connectTimeout: rayConnectTimeout) {
            case .success(let cluster):
                if jobsOption == nil { jobs = max(1, cluster.cpus) }
                FileHandle.standardOutput.write(Data("batch: on the Ray cluster at \(ray): \(cluster.nodes) nodes, \(cluster.cpus) CPUs (Ray \(cluster.version)); \(jobs) replays at a time\n".utf8))
            case .failure(let error):
                await started.finish()
                printError("error: --ray \(ray): \(error.message)")
                // Nothing ran: no driver log and, if this run made it, no output folder.
                try? FileManager.default.removeItem(atPath: started.logPath)
                if !outExisted, (try? FileManager.default.contentsOfDirectory(atPath: out))?.isEmpty == true {
                    try? FileManager.default.removeItem(atPath: out)
                }
                throw StrollExit.unavailable
            }
            executor = started
        }
        var batch = Batch(walks: walks, directory: out, jobs: jobs, timeLimit: timeout, replayArguments: simulation.arguments, goldens: goldens)
        batch.ray = executor
        let shardDirectory = (out as NSString).appendingPathComponent(".shards")
        if let shardPlaces {
            do {
                batch.shards = try ShardPlan.write(placeSet.places(inGroups: activeGroups), activeGroups: activeGroups, count: shardPlaces,
                                                   placesRejected: placeSet.rejected.count, sortMode: simulation.sort ?? .distance, directory: shardDirectory)
            } catch {
                printError("error: cannot write the shards in \(shardDirectory): \(error.localizedDescription)")
                throw StrollExit.internalError
            }
        }
        defer { if shardPlaces != nil { try? FileManager.default.removeItem(atPath: shardDirectory) } }
        let started = Date()
        let failed = await batch.run()
        await executor?.finish()
        batch.printSummary(seconds: Date().timeIntervalSince(started))
        if let junit {
            do {
                try TraceWriter.writeAtomically(batch.junitXML(seconds: Date().timeIntervalSince(started)), to: junit)
            } catch {
                printError("error: cannot write \(junit): \(error.localizedDescription)")
                throw StrollExit.internalError
            }
        }
        if batch.items.contains(where: { $0.status == .cancelled }) { throw ExitCode(130) }
        if failed > 0 { throw StrollExit.checkFailed }
    }
}

/// One batch run: a queue of traces, at most `jobs` child processes at once.
struct Batch {
    enum Status: String, Codable {
        /// `diverged`: the walk ran, and its order changes differ from its golden.
        case queued, running, done, diverged, failed, cancelled
    }

    /// Goldens per walk: written, or checked, in a directory.
    enum Goldens {
        case record(String)
        case verify(String)
    }

    struct Item: Codable {
        var trace: String
        var stem: String
        var status: Status
        var reason: String?
        var outputs: [String]
        /// How long its replay took.
        var seconds: Double?
        /// Its own replay options and golden, from a plan.
        var options: [String]?
        var golden: String?
        /// The Ray node it ran on (--ray).
        var node: String?
    }

    struct StatusFile: Codable {
        var jobs: Int
        var traces: [Item]
    }

    var items: [Item]
    let directory: String
    let jobs: Int
    /// Seconds a replay may run before it is killed; nil for no limit.
    let timeLimit: Double?
    /// The replay options every walk gets.
    let replayArguments: [String]
    let goldens: Goldens?
    private var startedAt: [Int: Date] = [:]
    /// With --ray: the cluster that runs the replays instead of child processes here.
    var ray: RayExecutor?
    /// With --shard-places: the shards each walk is replayed on, then merged.
    var shards: ShardPlan?

    init(traces: [String], directory: String, jobs: Int, timeLimit: Double? = nil) {
        self.init(walks: traces.map { BatchPlan.Walk(trace: $0, options: [], golden: nil) }, directory: directory, jobs: jobs, timeLimit: timeLimit)
    }

    init(walks: [BatchPlan.Walk], directory: String, jobs: Int, timeLimit: Double? = nil, replayArguments: [String] = [], goldens: Goldens? = nil) {
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

    var statusPath: String { (directory as NSString).appendingPathComponent("status.json") }

    private func output(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// How a job ended.
    private enum Outcome: Sendable {
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
    private let live = isatty(STDOUT_FILENO) == 1
    private var began = Date()
    private var finishedHere = 0

    /// Runs the queue; returns how many traces failed.
    ///
    /// Each replay is a child process awaited through its termination handler
    /// (``ChildProcess``): the batch sleeps until a replay ends, a time limit
    /// passes or Ctrl-C arrives, and does nothing in between.
    mutating func run() async -> Int {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let (interrupts, interrupt, sources) = Interrupts.stream()
        defer { sources.forEach { $0.cancel() } }

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
                    if let job = prepare(next, executable: executable) {
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
            interrupt.finish()
            group.cancelAll()
        }
        if live { FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8)) }
        let failed = items.filter { $0.status == .failed || $0.status == .diverged }.count
        let done = items.filter { $0.status == .done }.count
        let diverged = items.filter { $0.status == .diverged }.count
        FileHandle.standardOutput.write(Data("batch: \(done) done, \(diverged) diverged, \(items.filter { $0.status == .failed }.count) failed, \(items.filter { $0.status == .cancelled }.count) cancelled; status in \(statusPath)\n".utf8))
        if cancelled { FileHandle.standardOutput.write(Data("batch: interrupted; run it again to finish the rest\n".utf8)) }
        return failed
    }

    /// What a child task needs to run one replay.
    private struct Job: Sendable {
        let index: Int
        let executable: String
        let arguments: [String]
        let stdout: FileHandle
        let stderr: FileHandle
        let timeLimit: Double?
        let ray: RayExecutor?
        let stdoutPath: String
        let stderrPath: String
        let shards: ShardPlan?
    }

    /// Opens a job's output files and marks it running; nil (and the job failed) when they cannot be opened.
    private mutating func prepare(_ k: Int, executable: String) -> Job? {
        let item = items[k]
        let partial = output(".\(item.stem).jsonl.partial")
        let errors = output(".\(item.stem).stderr")
        guard FileManager.default.createFile(atPath: partial, contents: nil), let sink = FileHandle(forWritingAtPath: partial) else {
            discard(k, status: .failed, reason: "cannot write \(partial)")
            return nil
        }
        // Standard error to a file, not a pipe: a chatty replay must never block on a full pipe.
        guard FileManager.default.createFile(atPath: errors, contents: nil), let errorSink = FileHandle(forWritingAtPath: errors) else {
            try? sink.close()
            discard(k, status: .failed, reason: "cannot write \(errors)")
            return nil
        }
        // Sharded: the events only (the GeoJSON and SVG would draw one shard's places).
        var arguments = ["replay", item.trace, "--format", "jsonl"]
            + (shards == nil ? ["--geojson", output("\(item.stem).geojson"), "--svg", output("\(item.stem).svg")] : [])
            + replayArguments + (item.options ?? [])
        switch goldens {
        case .record(let dir)?:
            let golden = item.golden ?? Self.golden(for: item.trace, in: dir)
            try? FileManager.default.createDirectory(atPath: (golden as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            arguments += ["--record", golden]
        case .verify(let dir)?:
            let golden = item.golden ?? Self.golden(for: item.trace, in: dir)
            guard FileManager.default.fileExists(atPath: golden) else {
                try? sink.close()
                try? errorSink.close()
                discard(k, status: .failed, reason: "no golden timeline \(golden) to verify against (record one with --record-dir)")
                return nil
            }
            arguments += ["--verify", golden]
        case nil:
            break
        }
        items[k].status = .running
        startedAt[k] = Date()
        announce(items[k])
        return Job(index: k, executable: executable, arguments: arguments, stdout: sink, stderr: errorSink, timeLimit: timeLimit,
                   ray: ray, stdoutPath: partial, stderrPath: errors, shards: shards)
    }

    /// Runs one replay to its end, its time limit, or the batch's cancellation
    /// (which kills it at once).
    private static func perform(_ job: Job) async -> Outcome {
        defer {
            try? job.stdout.close()
            try? job.stderr.close()
        }
        if let shards = job.shards { return await performSharded(job, shards) }
        return await performOne(job, arguments: job.arguments, stdout: job.stdout, stderr: job.stderr,
                                stdoutPath: job.stdoutPath, stderrPath: job.stderrPath, id: job.index * 100)
    }

    /// A sharded walk: every shard's replay at once, then their events merged
    /// into the walk's. A shard that fails speaks for the walk.
    private static func performSharded(_ job: Job, _ shards: ShardPlan) async -> Outcome {
        let k = job.index
        let paths = shards.files.indices.map { s in (out: "\(job.stdoutPath).shard-\(s)", err: "\(job.stderrPath).shard-\(s)") }
        defer {
            for p in paths {
                try? FileManager.default.removeItem(atPath: p.out)
                try? FileManager.default.removeItem(atPath: p.err)
            }
        }
        var outcomes = [Outcome?](repeating: nil, count: paths.count)
        await withTaskGroup(of: (Int, Outcome).self) { group in
            for (s, p) in paths.enumerated() {
                group.addTask {
                    guard FileManager.default.createFile(atPath: p.out, contents: nil), FileManager.default.createFile(atPath: p.err, contents: nil),
                          let out = FileHandle(forWritingAtPath: p.out), let err = FileHandle(forWritingAtPath: p.err) else {
                        return (s, .lost(k, "cannot write \(p.out)"))
                    }
                    defer {
                        try? out.close()
                        try? err.close()
                    }
                    return (s, await performOne(job, arguments: shards.arguments(job.arguments, shard: s), stdout: out, stderr: err,
                                                stdoutPath: p.out, stderrPath: p.err, id: k * 100 + s))
                }
            }
            for await (s, outcome) in group { outcomes[s] = outcome }
        }
        if Task.isCancelled { return .cancelled(k) }
        var nodes: [String] = []
        for (s, outcome) in outcomes.enumerated() {
            guard let outcome else { return .lost(k, "shard \(s) did not run") }
            guard case .exited(_, let exit, let node) = outcome else { return outcome }
            if let node, !nodes.contains(node) { nodes.append(node) }
            if exit.status != 0 || exit.signal != nil || exit.timedOut {
                // The walk's own files tell why, as for a walk that is not sharded.
                for (from, to) in [(paths[s].err, job.stderrPath), (paths[s].out, job.stdoutPath)] {
                    try? FileManager.default.removeItem(atPath: to)
                    try? FileManager.default.copyItem(atPath: from, toPath: to)
                }
                return outcome
            }
        }
        let merged: Result<Void, ShardPlan.MergeError> = await withCheckedContinuation { c in
            DispatchQueue.global().async {
                c.resume(returning: Result { () throws(ShardPlan.MergeError) in try shards.merge(paths.map(\.out), into: job.stdoutPath) })
            }
        }
        if case .failure(let error) = merged { return .lost(k, "the shards' events cannot be merged: \(error.reason)") }
        return .exited(k, ChildExit(status: 0), node: nodes.isEmpty ? nil : nodes.sorted().joined(separator: ", "))
    }

    /// One replay: here as a child process, or on the cluster.
    private static func performOne(_ job: Job, arguments jobArguments: [String], stdout: FileHandle, stderr: FileHandle,
                                   stdoutPath: String, stderrPath: String, id: Int) async -> Outcome {
        if let ray = job.ray {
            let (arguments, inputs, outputs) = RayExecutor.files(in: jobArguments)
            let absolute = arguments.enumerated().map { i, a in
                inputs.contains(i) || outputs.contains(i) ? URL(fileURLWithPath: a).standardizedFileURL.path : a
            }
            let request = RayExecutor.Request(id: id, args: absolute, inputs: inputs, outputs: outputs,
                                              stdout: stdoutPath, stderr: stderrPath, timeout: job.timeLimit)
            switch await ray.run(request) {
            case .exited(let exit, let node): return Task.isCancelled ? .cancelled(job.index) : .exited(job.index, exit, node: node)
            case .failed(let reason): return Task.isCancelled ? .cancelled(job.index) : .lost(job.index, reason)
            case .cancelled: return .cancelled(job.index)
            }
        }
        do {
            let run = try await ChildProcess.run(job.executable, jobArguments, stdout: .file(stdout), stderr: .file(stderr),
                                                 timeout: job.timeLimit.map { .seconds($0) })
            if Task.isCancelled { return .cancelled(job.index) }
            return run.timedOut ? .timedOut(job.index) : .exited(job.index, run.exit, node: nil)
        } catch {
            return .notStarted(job.index, error.localizedDescription)
        }
    }

    /// Removes a job's partial outputs and records why it did not finish.
    private mutating func discard(_ k: Int, status: Status, reason: String) {
        try? FileManager.default.removeItem(atPath: output(".\(items[k].stem).jsonl.partial"))
        try? FileManager.default.removeItem(atPath: output(".\(items[k].stem).stderr"))
        items[k].status = status
        items[k].reason = reason
        announce(items[k])
    }

    /// A walk's golden: named after its file name, extension included, so walk.gpx and walk.csv keep their own.
    static func golden(for trace: String, in directory: String) -> String {
        (directory as NSString).appendingPathComponent((trace as NSString).lastPathComponent + ".json")
    }

    private mutating func finish(_ k: Int, status: ChildExit) {
        if let began = startedAt[k] { items[k].seconds = Date().timeIntervalSince(began) }
        let partial = output(".\(items[k].stem).jsonl.partial")
        let errorsPath = output(".\(items[k].stem).stderr")
        let stderr = FileManager.default.contents(atPath: errorsPath) ?? Data()
        try? FileManager.default.removeItem(atPath: errorsPath)
        switch (status.status, status.signal) {
        case (0, nil):
            let final = output("\(items[k].stem).jsonl")
            do {
                if FileManager.default.fileExists(atPath: final) { try FileManager.default.removeItem(atPath: final) }
                try FileManager.default.moveItem(atPath: partial, toPath: final)
                items[k].status = .done
                items[k].reason = nil
                items[k].outputs = shards == nil ? ["\(items[k].stem).jsonl", "\(items[k].stem).geojson", "\(items[k].stem).svg"] : ["\(items[k].stem).jsonl"]
            } catch {
                items[k].status = .failed
                items[k].reason = "cannot keep the output: \(error.localizedDescription)"
            }
        case (1, nil) where Self.divergence(in: stderr) != nil:
            // Verified against its golden, and different: the first divergence is the reason.
            let final = output("\(items[k].stem).jsonl")
            if FileManager.default.fileExists(atPath: final) { try? FileManager.default.removeItem(atPath: final) }
            try? FileManager.default.moveItem(atPath: partial, toPath: final)
            items[k].status = .diverged
            items[k].reason = Self.divergence(in: stderr)
            items[k].outputs = ["\(items[k].stem).jsonl", "\(items[k].stem).geojson", "\(items[k].stem).svg"]
        case (let code, nil):
            // The reason: the replay's first line on standard error, else its error event.
            var message = String(decoding: stderr, as: UTF8.self).split(separator: "\n").first.map(String.init)
            if message == nil, let events = FileManager.default.contents(atPath: partial) {
                let errorEvent = String(decoding: events, as: UTF8.self).split(separator: "\n").first { $0.contains("\"type\":\"error\"") }
                message = errorEvent.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["message"] as? String
            }
            try? FileManager.default.removeItem(atPath: partial)
            items[k].status = .failed
            items[k].reason = "exit \(code): \(message ?? "no message")"
        case (_, let number?) where number == SIGINT || number == SIGTERM:
            // Stopped by an interrupt sent to the replay itself (each replay leads its own process group,
            // so Ctrl-C at a terminal reaches only the batch, which kills them): interrupted, not failed.
            try? FileManager.default.removeItem(atPath: partial)
            items[k].status = .cancelled
            items[k].reason = "interrupted"
        case (_, let number?):
            try? FileManager.default.removeItem(atPath: partial)
            items[k].status = .failed
            items[k].reason = "killed by signal \(number)\(strsignal(number).map { " (\(String(cString: $0)))" } ?? "")"
        }
        announce(items[k])
    }

    /// The first divergence `replay --verify` printed, if it printed one.
    static func divergence(in stderr: Data) -> String? {
        String(decoding: stderr, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("verify: ") && !$0.hasSuffix("order changes match") }.map(String.init)
    }

    /// The table at the end: walks, passed, diverged, failed, cancelled, time.
    func printSummary(seconds: Double) {
        func count(_ s: Status) -> Int { items.filter { $0.status == s }.count }
        let rows = [("walks", "\(items.count)"), ("passed", "\(count(.done))"), ("diverged", "\(count(.diverged))"), ("failed", "\(count(.failed))"),
                    ("cancelled", "\(count(.cancelled))"), ("time", String(format: "%.1f s", seconds))]
        var text = ""
        for (name, value) in rows { text += "  \(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(value)\n" }
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// JUnit XML as GitHub Actions, GitLab and Jenkins read it: one test suite,
    /// a test case per walk with its time; a divergence or failure as the
    /// failure's message; cancelled walks skipped.
    func junitXML(seconds: Double) -> String {
        let escape = TraceWriter.escape
        let failures = items.filter { $0.status == .diverged }.count
        let errors = items.filter { $0.status == .failed }.count
        let skipped = items.filter { $0.status == .cancelled || $0.status == .queued }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"stroll batch\" tests=\"\(items.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(String(format: "%.3f", seconds))\">\n"
        xml += "  <testsuite name=\"stroll batch\" tests=\"\(items.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(String(format: "%.3f", seconds))\">\n"
        for item in items {
            let time = String(format: "%.3f", item.seconds ?? 0)
            xml += "    <testcase classname=\"stroll.batch\" name=\"\(escape(item.trace))\" time=\"\(time)\""
            let reason = escape(item.reason ?? "")
            switch item.status {
            case .done:
                xml += "/>\n"
            case .diverged:
                xml += ">\n      <failure message=\"\(reason)\" type=\"diverged\">\(reason)</failure>\n    </testcase>\n"
            case .failed:
                xml += ">\n      <error message=\"\(reason)\" type=\"failed\">\(reason)</error>\n    </testcase>\n"
            case .cancelled, .queued, .running:
                xml += ">\n      <skipped message=\"\(reason.isEmpty ? "not run" : reason)\"/>\n    </testcase>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    private static func tick() async -> Outcome {
        try? await Task.sleep(for: .milliseconds(500))
        return .tick
    }

    private mutating func announce(_ item: Item, note: String? = nil) {
        if [.done, .diverged, .failed].contains(item.status) && note == nil { finishedHere += 1 }
        // On a terminal the running walks are in the progress line; only their ends get lines of their own.
        if live && item.status == .running { return drawProgress() }
        let line = "[\(item.status.rawValue)] \(item.trace)\(item.reason.map { ": \($0)" } ?? "")\(note.map { " (\($0))" } ?? "")\n"
        FileHandle.standardOutput.write(Data(((live ? "\r\u{1B}[K" : "") + line).utf8))
        if live { drawProgress() }
    }

    /// The progress line, drawn over itself.
    private func drawProgress() {
        guard live else { return }
        func clock(_ t: Double) -> String { EventWriter.clock(t) }
        let ended = items.filter { [.done, .diverged, .failed, .cancelled].contains($0.status) }.count
        let elapsed = Date().timeIntervalSince(began)
        let left = items.count - ended
        let estimate = finishedHere > 0 && left > 0 ? ", about \(clock(elapsed / Double(finishedHere) * Double(left))) left" : ""
        let running = items.indices.filter { items[$0].status == .running }.map { k -> String in
            let size = (try? FileManager.default.attributesOfItem(atPath: output(".\(items[k].stem).jsonl.partial"))[.size] as? Int) ?? 0
            let time = startedAt[k].map { Date().timeIntervalSince($0) } ?? 0
            return "\((items[k].trace as NSString).lastPathComponent) \(Int(time)) s, \(size / 1024) KB"
        }
        var line = "\(ended)/\(items.count) walks, elapsed \(clock(elapsed))\(estimate)"
        if !running.isEmpty { line += "; running: " + running.joined(separator: ", ") }
        let width = ProgressLine.columns(STDOUT_FILENO)
        if line.count > width - 1 { line = String(line.prefix(max(10, width - 2))) + "…" }
        FileHandle.standardOutput.write(Data(("\r\u{1B}[K" + line).utf8))
    }

    /// status.json, written atomically so an interrupted run never leaves half a file.
    private func writeStatus() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(StatusFile(jobs: jobs, traces: items)) else { return }
        try? data.write(to: URL(fileURLWithPath: statusPath), options: .atomic)
    }
}

/// `--plan FILE`: walks with their own replay options and goldens, kept beside
/// the walks. `{"walks": [{"trace": "walk.gpx", "options": ["--noise",
/// "gaussian"], "golden": "goldens/walk.json"}]}` (or the array alone); paths
/// are relative to the plan's folder; `options` and `golden` may be left out.
struct BatchPlan: Decodable {
    struct Walk: Decodable {
        var trace: String
        var options: [String]
        var golden: String?

        init(trace: String, options: [String], golden: String?) {
            self.trace = trace
            self.options = options
            self.golden = golden
        }

        enum CodingKeys: String, CodingKey { case trace, options, golden }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            trace = try c.decode(String.self, forKey: .trace)
            options = try c.decodeIfPresent([String].self, forKey: .options) ?? []
            golden = try c.decodeIfPresent(String.self, forKey: .golden)
        }
    }

    var walks: [Walk]

    enum CodingKeys: String, CodingKey { case walks }

    init(walks: [Walk]) {
        self.walks = walks
    }

    init(from decoder: any Decoder) throws {
        if let array = try? decoder.singleValueContainer().decode([Walk].self) {
            walks = array
        } else {
            walks = try decoder.container(keyedBy: CodingKeys.self).decode([Walk].self, forKey: .walks)
        }
    }

    /// Reads and checks a plan; errors name the file and the reason (exit 66 missing, 65 not a plan).
    static func load(_ path: String) throws -> BatchPlan {
        guard let data = FileManager.default.contents(atPath: path) else {
            printError("error: \(path): cannot read the plan")
            throw StrollExit.missingInput
        }
        var plan: BatchPlan
        do {
            plan = try JSONDecoder().decode(BatchPlan.self, from: data)
        } catch let error as DecodingError {
            printError("error: \(path): not a plan: \(Self.describe(error))")
            throw StrollExit.badInput
        } catch {
            printError("error: \(path): not a plan: \(error.localizedDescription)")
            throw StrollExit.badInput
        }
        guard !plan.walks.isEmpty else {
            printError("error: \(path): the plan lists no walks")
            throw StrollExit.badInput
        }
        let folder = (path as NSString).deletingLastPathComponent
        func resolve(_ p: String) -> String { p.hasPrefix("/") || folder.isEmpty ? p : (folder as NSString).appendingPathComponent(p) }
        for k in plan.walks.indices {
            plan.walks[k].trace = resolve(plan.walks[k].trace)
            plan.walks[k].golden = plan.walks[k].golden.map(resolve)
        }
        return plan
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let c): return c.underlyingError.map { "not JSON (\($0.localizedDescription))" } ?? c.debugDescription
        case .keyNotFound(let key, let c): return "\(c.codingPath.map(\.stringValue).joined(separator: ".")): missing \"\(key.stringValue)\""
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
