import ArgumentParser
import Batches
import ChildProcess
import Foundation
import Replay
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
          stroll batch traces/*.gpx --out runs \\
              --places Fixtures/lecture-theatres.json --record-dir goldens
          stroll batch traces/*.gpx --out runs \\
              --places Fixtures/lecture-theatres.json --verify-dir goldens \\
              --junit report.xml
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
            let planned: BatchPlan
            do {
                planned = try BatchPlan.load(plan)
            } catch {
                throw failure("error: \(error.description)", error.missing ? StrollExit.missingInput : StrollExit.badInput)
            }
            for walk in planned.walks where !walk.options.isEmpty {
                // A walk's own options come after the batch's, so they win; checked like the batch's.
                let combined: SimulationOptions
                do {
                    combined = try SimulationOptions.parse(simulation.arguments + walk.options)
                } catch {
                    throw failure("error: \(plan): walk \(walk.trace): \(SimulationOptions.message(for: error))", StrollExit.usage)
                }
                let placeOptions = walk.options.filter { ["--places", "--group", "--select", "--cluster"].contains($0.split(separator: "=").first.map(String.init) ?? $0) }
                if shardPlaces != nil, !placeOptions.isEmpty {
                    throw failure("error: \(plan): walk \(walk.trace): \(placeOptions[0]) cannot go with --shard-places: the shards hold the batch's places", StrollExit.usage)
                }
                _ = try combined.loadPlaces(log: log)
                _ = try combined.loadEnvironments()
            }
            walks += planned.walks
        }
        let outExisted = FileManager.default.fileExists(atPath: out)
        do {
            try Batch.prepare(walks: walks, directory: out, recordDirectory: recordDir, verifyDirectory: verifyDir, plan: plan)
        } catch {
            throw failure("error: \(error.message)", StrollExit.missingInput)
        }
        let goldens = recordDir.map { Batch.Goldens.record($0) } ?? verifyDir.map { Batch.Goldens.verify($0) }
        var jobs = jobsOption ?? 3
        var executor: RayExecutor?
        let executable = ChildProcess.currentExecutable ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        if let ray {
            let python = rayPython ?? ProcessInfo.processInfo.environment["STROLL_RAY_PYTHON"] ?? "python3"
            do {
                let (started, cluster) = try await Batch.connect(ray: ray, python: python, stroll: rayStroll ?? executable, retries: rayRetries,
                                                                 connectTimeout: rayConnectTimeout, directory: out, directoryExisted: outExisted)
                if jobsOption == nil { jobs = max(1, cluster.cpus) }
                FileHandle.standardOutput.write(Data("batch: on the Ray cluster at \(ray): \(cluster.nodes) nodes, \(cluster.cpus) CPUs (Ray \(cluster.version)); \(jobs) replays at a time\n".utf8))
                executor = started
            } catch {
                throw failure("error: \(error.message)", StrollExit.unavailable)
            }
        }
        var batch = Batch(walks: walks, directory: out, jobs: jobs, timeLimit: timeout, replayArguments: simulation.arguments, goldens: goldens,
                          executable: executable)
        batch.ray = executor
        if let shardPlaces {
            do {
                try batch.shard(placeSet, activeGroups: activeGroups, count: shardPlaces, sortMode: simulation.sort ?? .distance)
            } catch {
                throw failure("error: \(error.message)", StrollExit.internalError)
            }
        }
        defer { if shardPlaces != nil { try? FileManager.default.removeItem(atPath: batch.shardDirectory) } }
        let started = Date()
        let (interrupts, interrupt, sources) = Interrupts.stream()
        let failed = await batch.run(interrupts: interrupts)
        interrupt.finish()
        sources.forEach { $0.cancel() }
        await executor?.finish()
        FileHandle.standardOutput.write(Data(batch.summary(seconds: Date().timeIntervalSince(started)).utf8))
        if let junit {
            do {
                try TraceWriter.writeAtomically(batch.junitXML(seconds: Date().timeIntervalSince(started)), to: junit)
            } catch {
                throw failure("error: cannot write \(junit): \(ErrorWords.reason(error))", StrollExit.internalError)
            }
        }
        if batch.items.contains(where: { $0.status == .cancelled }) { throw ExitCode(130) }
        if failed > 0 { throw StrollExit.checkFailed }
    }
}

