import ChildProcess
import Foundation
import Replay
import Traces

/// Each walk's replay: its files opened, run here or on the cluster, sharded or not.
extension Batch {
    /// What a child task needs to run one replay.
    struct Job: Sendable {
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
    mutating func prepare(_ k: Int) -> Job? {
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
    static func perform(_ job: Job) async -> Outcome {
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
    static func performSharded(_ job: Job, _ shards: ShardPlan) async -> Outcome {
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
    static func performOne(_ job: Job, arguments jobArguments: [String], stdout: FileHandle, stderr: FileHandle,
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
            return .notStarted(job.index, ErrorWords.reason(error))
        }
    }

}
