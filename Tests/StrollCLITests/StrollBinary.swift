import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A child process's end, as a test sees it: its exit status or signal, all of
/// standard output and standard error, and whether it was stopped for taking
/// too long.
struct ChildRun: Sendable {
    /// The exit code; 128 + the signal's number when a signal ended it.
    let status: Int32
    /// The signal that ended it, if one did.
    let signal: Int32?
    let stdout: String
    let stderr: String
    let timedOut: Bool

    /// Why it ended, in words, for failure messages.
    var reason: String {
        if timedOut { return "timed out and was killed with its process group" }
        if let signal { return "killed by signal \(signal)" }
        return "exit \(status)"
    }
}

/// Runs child processes without blocking the cooperative thread pool: the
/// process is started and awaited with swift-subprocess (its own I/O thread),
/// standard output and standard error are drained together, and a child that
/// outlives `timeout` is killed with everything it started.
enum ChildProcess {
    /// Runs `executable` to its end. `whileRunning` gets the child's process id
    /// (also its process group's) while it runs; the child is awaited after it returns.
    static func run(_ executable: String, _ arguments: [String], stdin: String = "", timeout: Duration = .seconds(600),
                    whileRunning: @escaping @Sendable (pid_t) async throws -> Void = { _ in }) async throws -> ChildRun {
        let options = {
            var options = PlatformOptions()
            // A group of its own, so a timeout kills what the child started too.
            options.processGroupID = 0
            options.teardownSequence = [.send(signal: .kill, toProcessGroup: true, allowedDurationToNextStep: .seconds(1))]
            return options
        }()
        let limit = 1 << 28
        return try await withThrowingTaskGroup(of: ChildRun?.self) { group in
            group.addTask {
                let result = try await Subprocess.run(
                    .path(FilePath(executable)), arguments: Arguments(arguments), platformOptions: options,
                    input: .string(stdin), output: .bytes(limit: limit), error: .bytes(limit: limit)
                ) { execution in
                    try await whileRunning(execution.processIdentifier.value)
                }
                let status: Int32, signal: Int32?
                switch result.terminationStatus {
                case .exited(let code): (status, signal) = (code, nil)
                case .signaled(let number): (status, signal) = (128 + number, number)
                }
                return ChildRun(status: status, signal: signal, stdout: String(decoding: result.standardOutput, as: UTF8.self),
                                stderr: String(decoding: result.standardError, as: UTF8.self), timedOut: false)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            guard let first = try await group.next() else { throw CancellationError() }
            group.cancelAll()
            if let finished = first { return finished }
            // The run task's cancellation tears the child's group down; wait for that.
            while let _ = try? await group.next() {}
            return ChildRun(status: 128 + SIGKILL, signal: SIGKILL, stdout: "", stderr: "", timedOut: true)
        }
    }
}

/// Runs the built `stroll` executable, as a user's shell would.
enum StrollBinary {
    static var url: URL? {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["STROLL_BIN"] { candidates.append(URL(fileURLWithPath: path)) }
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent("stroll"))
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("stroll"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static func run(_ arguments: [String], stdin: String = "", timeout: Duration = .seconds(600),
                    whileRunning: @escaping @Sendable (pid_t) async throws -> Void = { _ in }) async throws -> ChildRun {
        guard let url else { throw CocoaError(.fileNoSuchFile) }
        return try await ChildProcess.run(url.path, arguments, stdin: stdin, timeout: timeout, whileRunning: whileRunning)
    }
}
