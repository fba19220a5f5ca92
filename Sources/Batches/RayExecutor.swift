import ChildProcess
import Foundation
import Traces
import Places

/// `stroll batch --ray ADDRESS`: each replay runs as a Ray task on a worker
/// node, through the driver in `python/` (`python -m stroll_ray`, installed
/// with `pip install ./python`). The batch keeps everything else (the queue,
/// status.json, resume, Ctrl-C, goldens, reports); the driver only runs a
/// `stroll` command line somewhere on the cluster and writes its standard
/// output, standard error and output files where the batch named them. They
/// speak JSON lines over the driver's standard input and output (the protocol
/// is in python/stroll_ray/driver.py).
public actor RayExecutor {
    /// What the cluster offers.
    public struct Cluster: Sendable {
        public var nodes: Int
        public var cpus: Int
        public var version: String
    }

    /// How a replay sent to the cluster ended.
    public enum Reply: Sendable {
        /// It ran: its exit, and the node it ran on.
        case exited(ChildExit, node: String)
        /// The cluster could not run it (after the driver's retries): why.
        case failed(String)
        /// The batch cancelled it.
        case cancelled
    }

    /// One replay: the `stroll` arguments and which of them are files to send or to bring back.
    struct Request: Encodable, Sendable {
        var op = "run"
        var id: Int
        var args: [String]
        var inputs: [Int]
        var outputs: [Int]
        var stdout: String
        var stderr: String
        var timeout: Double?
    }

    private struct Answer: Decodable {
        var event: String
        var id: Int?
        var message: String?
        var reason: String?
        var status: Int32?
        var signal: Int32?
        var timedOut: Bool?
        var node: String?
        var nodes: Int?
        var cpus: Int?
        var ray: String?
    }

    private let process = Process()
    private let requests = Pipe()
    private let answers = Pipe()
    /// The driver's standard error (Ray's own messages), kept beside the outputs.
    public nonisolated let logPath: String
    private var waiting: [Int: CheckedContinuation<Reply, Never>] = [:]
    private var readyWaiter: CheckedContinuation<Result<Cluster, StartError>, Never>?
    private var readyResult: Result<Cluster, StartError>?
    private var ended = false

    /// The Ray driver could not be started, with what it printed.
    public struct StartError: Error, Sendable {
        public var message: String
    }

    public init(logPath: String) {
        self.logPath = logPath
    }

    /// The file arguments of a `stroll replay` command line: what each task needs
    /// sent (the trace, place files, regions, the golden it verifies against) and
    /// what it writes (GeoJSON, SVG, the golden it records), by index. Options
    /// written `--places=FILE` are split first. A `FILE.gpkg#LAYER` is sent as
    /// its file, the driver keeping `#LAYER`.
    public static func files(in arguments: [String]) -> (arguments: [String], inputs: [Int], outputs: [Int]) {
        var split: [String] = []
        for a in arguments {
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                split += [String(a[..<eq]), String(a[a.index(after: eq)...])]
            } else {
                split.append(a)
            }
        }
        var inputs = split.count > 1 && split[0] == "replay" ? [1] : []
        var outputs: [Int] = []
        for i in split.indices.dropFirst() {
            switch split[i - 1] {
            // A PostGIS URI is no file: each worker connects to the database itself.
            case "--places" where PlaceSourceURI.isPostgreSQL(split[i]): break
            case "--places", "--regions", "--environments", "--verify": inputs.append(i)
            case "--geojson", "--svg", "--record": outputs.append(i)
            default: break
            }
        }
        return (split, inputs, outputs)
    }

    /// Starts the driver and joins the cluster: the cluster's size, or why not
    /// (an unreachable address answers within the driver's connect timeout).
    public func start(address: String, python: String, stroll: String, retries: Int, connectTimeout: Double) async -> Result<Cluster, StartError> {
        signal(SIGPIPE, SIG_IGN)
        guard FileManager.default.createFile(atPath: logPath, contents: nil), let log = FileHandle(forWritingAtPath: logPath) else {
            return .failure(StartError(message: "cannot write \(logPath)"))
        }
        process.executableURL = URL(fileURLWithPath: python.contains("/") ? python : "/usr/bin/env")
        process.arguments = (python.contains("/") ? [] : [python])
            + ["-m", "stroll_ray", "--address", address, "--stroll", stroll, "--retries", "\(retries)", "--connect-timeout", "\(connectTimeout)"]
        process.standardInput = requests
        process.standardOutput = answers
        process.standardError = log
        do {
            try process.run()
        } catch {
            return .failure(StartError(message: "cannot start \(python): \(ErrorWords.reason(error))"))
        }
        try? log.close()
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        let reading = answers.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            continuation.finish()
        }
        Task { await self.consume(lines) }
        // Importing Ray and joining take seconds; a driver that says nothing for long is stopped.
        let limit = connectTimeout + 60
        Task {
            try? await Task.sleep(for: .seconds(limit))
            self.giveUp(after: limit)
        }
        return await withCheckedContinuation { c in
            if let readyResult { c.resume(returning: readyResult) } else { readyWaiter = c }
        }
    }

    private func giveUp(after seconds: Double) {
        guard readyResult == nil else { return }
        process.terminate()
        ready(.failure(StartError(message: "the Ray driver did not join the cluster within \(Int(seconds)) s")))
    }

    private func ready(_ result: Result<Cluster, StartError>) {
        guard readyResult == nil else { return }
        readyResult = result
        readyWaiter?.resume(returning: result)
        readyWaiter = nil
    }

    private func consume(_ lines: AsyncStream<String>) async {
        for await line in lines {
            guard let answer = try? JSONDecoder().decode(Answer.self, from: Data(line.utf8)) else { continue }
            switch answer.event {
            case "ready":
                ready(.success(Cluster(nodes: answer.nodes ?? 0, cpus: answer.cpus ?? 0, version: answer.ray ?? "?")))
            case "error":
                ready(.failure(StartError(message: answer.message ?? "the Ray driver failed")))
            case "exit":
                if let id = answer.id, let c = waiting.removeValue(forKey: id) {
                    let exit = ChildExit(status: answer.status ?? 1, signal: answer.signal, timedOut: answer.timedOut ?? false)
                    c.resume(returning: .exited(exit, node: answer.node ?? "?"))
                }
            case "failed":
                if let id = answer.id, let c = waiting.removeValue(forKey: id) { c.resume(returning: .failed(answer.reason ?? "failed on the cluster")) }
            default:
                break
            }
        }
        // The driver ended: nothing more will be answered.
        ended = true
        let last = lastLogLine()
        let hint = last?.contains("No module named") == true ? "; install the driver in that Python: pip install ./python" : ""
        let why = "the Ray driver ended\(last.map { ": \($0)" } ?? "")\(hint)"
        ready(.failure(StartError(message: why)))
        for (_, c) in waiting { c.resume(returning: .failed(why)) }
        waiting.removeAll()
    }

    /// The last line the driver wrote on standard error, for a message.
    func lastLogLine() -> String? {
        guard let data = FileManager.default.contents(atPath: logPath) else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init)
    }

    /// Runs one replay on the cluster; a cancelled task cancels it there.
    func run(_ request: Request) async -> Reply {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Reply, Never>) in
                if Task.isCancelled { return c.resume(returning: .cancelled) }
                if ended { return c.resume(returning: .failed("the Ray driver ended\(lastLogLine().map { ": \($0)" } ?? "") (its log: \(logPath))")) }
                waiting[request.id] = c
                send(request)
            }
        } onCancel: {
            Task { await self.cancel(request.id) }
        }
    }

    private func cancel(_ id: Int) {
        guard let c = waiting.removeValue(forKey: id) else { return }
        c.resume(returning: .cancelled)
        struct Cancel: Encodable { var op = "cancel"; var id: Int }
        send(Cancel(id: id))
    }

    private func send(_ message: some Encodable) {
        guard var data = try? JSONEncoder().encode(message) else { return }
        data.append(0x0A)
        try? requests.fileHandleForWriting.write(contentsOf: data)
    }

    /// Ends the driver: its input closes, it cancels what still runs and leaves the cluster.
    public func finish() async {
        try? requests.fileHandleForWriting.close()
        for _ in 0..<100 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if process.isRunning { process.terminate() }
    }
}
