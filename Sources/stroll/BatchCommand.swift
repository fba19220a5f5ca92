import ArgumentParser
import Foundation

struct BatchCommand: ParsableCommand {
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

        Ctrl-C cancels the running replays, keeps what finished, and marks the rest \
        cancelled (exit code 130). Running the same batch again skips the traces already \
        done. Exit code 1 when a trace failed.

        Example:
          stroll batch traces/*.gpx --jobs 3 --out runs
        """
    )

    @Argument(help: "GPX or CSV traces.")
    var traces: [String]

    @Option(help: "How many replays run at once.")
    var jobs: Int = 3

    @Option(help: ArgumentHelp("Directory for the outputs and status.json.", valueName: "DIR"))
    var out: String

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard !traces.isEmpty else { throw ValidationError("name at least one trace") }
    }

    func run() throws {
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            printError("error: cannot create \(out): \(error.localizedDescription)")
            throw StrollExit.missingInput
        }
        var batch = Batch(traces: traces, directory: out, jobs: jobs)
        let failed = batch.run()
        if batch.items.contains(where: { $0.status == .cancelled }) { throw ExitCode(130) }
        if failed > 0 { throw StrollExit.checkFailed }
    }
}

/// One batch run: a queue of traces, at most `jobs` child processes at once.
struct Batch {
    enum Status: String, Codable {
        case queued, running, done, failed, cancelled
    }

    struct Item: Codable {
        var trace: String
        var stem: String
        var status: Status
        var reason: String?
        var outputs: [String]
    }

    struct StatusFile: Codable {
        var jobs: Int
        var traces: [Item]
    }

    var items: [Item]
    let directory: String
    private var stderrFiles: [Int: String] = [:]
    let jobs: Int
    init(traces: [String], directory: String, jobs: Int) {
        self.directory = directory
        self.jobs = jobs
        var stems: [String: Int] = [:]
        items = traces.map { trace in
            var stem = ((trace as NSString).lastPathComponent as NSString).deletingPathExtension
            stems[stem, default: 0] += 1
            if let n = stems[stem], n > 1 { stem += "-\(n)" }
            return Item(trace: trace, stem: stem, status: .queued, reason: nil, outputs: [])
        }
        // Resume: what an earlier run finished (and whose outputs are still there) is not redone.
        if let data = FileManager.default.contents(atPath: statusPath), let previous = try? JSONDecoder().decode(StatusFile.self, from: data) {
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

    /// Runs the queue; returns how many traces failed.
    mutating func run() -> Int {
        // Ctrl-C and SIGTERM arrive through Dispatch and a pipe that the loop polls, so
        // that cancelling is an ordinary step of the loop, whatever thread runs it.
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            printError("error: cannot create a pipe for signals")
            return items.count
        }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        defer {
            close(readEnd)
            close(writeEnd)
        }
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                var byte: UInt8 = 1
                _ = write(writeEnd, &byte, 1)
            }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }

        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var running: [(index: Int, process: Process, partial: String)] = []
        for item in items where item.status == .done { announce(item, note: "already done") }
        writeStatus()
        var cancelled = false
        while true {
            var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 20) > 0 { cancelled = true }
            if cancelled {
                for job in running {
                    kill(job.process.processIdentifier, SIGKILL)
                    job.process.waitUntilExit()
                    try? FileManager.default.removeItem(atPath: job.partial)
                    if let errors = stderrFiles.removeValue(forKey: job.index) { try? FileManager.default.removeItem(atPath: errors) }
                    items[job.index].status = .cancelled
                    items[job.index].reason = "interrupted"
                    announce(items[job.index])
                }
                running.removeAll()
                for k in items.indices where items[k].status == .queued {
                    items[k].status = .cancelled
                    items[k].reason = "interrupted before it started"
                    announce(items[k])
                }
                writeStatus()
                break
            }
            // Reap finished jobs.
            var k = 0
            while k < running.count {
                let job = running[k]
                if job.process.isRunning {
                    k += 1
                    continue
                }
                finish(job.index, process: job.process, partial: job.partial)
                running.remove(at: k)
                writeStatus()
            }
            // Start queued ones up to the limit.
            while running.count < jobs, let next = items.firstIndex(where: { $0.status == .queued }) {
                if let started = start(next, executable: executable) {
                    running.append(started)
                }
                writeStatus()
            }
            if running.isEmpty && !items.contains(where: { $0.status == .queued }) { break }
        }
        let failed = items.filter { $0.status == .failed }.count
        let done = items.filter { $0.status == .done }.count
        FileHandle.standardOutput.write(Data("batch: \(done) done, \(failed) failed, \(items.filter { $0.status == .cancelled }.count) cancelled; status in \(statusPath)\n".utf8))
        if cancelled { FileHandle.standardOutput.write(Data("batch: interrupted; run it again to finish the rest\n".utf8)) }
        return failed
    }

    /// A new empty file for a job's output; on failure the job is marked failed.
    private mutating func openForWriting(_ path: String, item k: Int) -> FileHandle? {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            items[k].status = .failed
            items[k].reason = "cannot write \(path)"
            announce(items[k])
            return nil
        }
        return handle
    }

    private mutating func start(_ k: Int, executable: URL) -> (index: Int, process: Process, partial: String)? {
        let item = items[k]
        let partial = output(".\(item.stem).jsonl.partial")
        guard let sink = openForWriting(partial, item: k) else { return nil }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["replay", item.trace, "--format", "jsonl", "--geojson", output("\(item.stem).geojson"), "--svg", output("\(item.stem).svg")]
        process.standardOutput = sink
        // Standard error to a file, not a pipe: a chatty replay must never block on a full pipe.
        let errors = output(".\(item.stem).stderr")
        guard let errorSink = openForWriting(errors, item: k) else { return nil }
        process.standardError = errorSink
        stderrFiles[k] = errors
        do {
            try process.run()
        } catch {
            items[k].status = .failed
            items[k].reason = "cannot start a replay: \(error.localizedDescription)"
            announce(items[k])
            return nil
        }
        try? sink.close()
        try? errorSink.close()
        items[k].status = .running
        announce(items[k])
        return (k, process, partial)
    }

    private mutating func finish(_ k: Int, process: Process, partial: String) {
        let errorsPath = stderrFiles.removeValue(forKey: k)
        let stderr = errorsPath.flatMap { FileManager.default.contents(atPath: $0) } ?? Data()
        if let errorsPath { try? FileManager.default.removeItem(atPath: errorsPath) }
        if process.terminationStatus == 0 {
            let final = output("\(items[k].stem).jsonl")
            do {
                if FileManager.default.fileExists(atPath: final) { try FileManager.default.removeItem(atPath: final) }
                try FileManager.default.moveItem(atPath: partial, toPath: final)
                items[k].status = .done
                items[k].reason = nil
                items[k].outputs = ["\(items[k].stem).jsonl", "\(items[k].stem).geojson", "\(items[k].stem).svg"]
            } catch {
                items[k].status = .failed
                items[k].reason = "cannot keep the output: \(error.localizedDescription)"
            }
        } else {
            // The reason: the replay's first line on standard error, else its error event.
            var message = String(decoding: stderr, as: UTF8.self).split(separator: "\n").first.map(String.init)
            if message == nil, let events = FileManager.default.contents(atPath: partial) {
                let errorEvent = String(decoding: events, as: UTF8.self).split(separator: "\n").first { $0.contains("\"type\":\"error\"") }
                message = errorEvent.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["message"] as? String
            }
            try? FileManager.default.removeItem(atPath: partial)
            items[k].status = .failed
            items[k].reason = "exit \(process.terminationStatus): \(message ?? "no message")"
        }
        announce(items[k])
    }

    private func announce(_ item: Item, note: String? = nil) {
        let line = "[\(item.status.rawValue)] \(item.trace)\(item.reason.map { ": \($0)" } ?? "")\(note.map { " (\($0))" } ?? "")\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }

    /// status.json, written atomically so an interrupted run never leaves half a file.
    private func writeStatus() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(StatusFile(jobs: jobs, traces: items)) else { return }
        try? data.write(to: URL(fileURLWithPath: statusPath), options: .atomic)
    }
}
