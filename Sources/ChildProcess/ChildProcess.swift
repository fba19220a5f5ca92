import Foundation

/// How a child process ended.
public struct ChildExit: Sendable, Equatable {
    /// The exit code; 128 + the signal's number when a signal ended it.
    public var status: Int32
    /// The signal that ended it, if one did.
    public var signal: Int32?
    /// Whether it was killed for outliving its time limit.
    public var timedOut: Bool

    /// Why it ended, in words.
    public var reason: String {
        if timedOut { return "timed out and was killed with its process group" }
        if let signal { return "killed by signal \(signal)" }
        return "exit \(status)"
    }
}

/// A finished child with everything it wrote.
public struct ChildRun: Sendable {
    public var exit: ChildExit
    public var stdout: String
    public var stderr: String

    public var status: Int32 { exit.status }
    public var signal: Int32? { exit.signal }
    public var timedOut: Bool { exit.timedOut }
    public var reason: String { exit.reason }
}

/// Starts child processes and awaits them without blocking the cooperative
/// thread pool: the end of the process arrives through its termination
/// handler, and its output pipes are read to their end on Dispatch's threads,
/// both at once, so a child that fills one pipe while the other is read never
/// stalls. Each child leads a process group of its own (Foundation's `Process`
/// makes it so): a time limit, a cancelled task, or the child's own end kills
/// the whole group, so nothing it started is left running.
public enum ChildProcess {
    /// Where a child's standard output or error goes.
    public enum Output: Sendable {
        /// Read whole into the result.
        case capture
        /// Written to this file, opened by the caller.
        case file(FileHandle)
    }

    /// Runs `executable` to its end. `whileRunning` gets the child's process id
    /// (also its group's) as soon as it started, and may signal it.
    public static func run(_ executable: String, _ arguments: [String], stdin: Data = Data(),
                           stdout: Output = .capture, stderr: Output = .capture, timeout: Duration? = nil,
                           whileRunning: @escaping @Sendable (pid_t) async throws -> Void = { _ in }) async throws -> ChildRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let input = Pipe()
        process.standardInput = input
        let outPipe = Pipe(), errPipe = Pipe()
        switch stdout {
        case .capture: process.standardOutput = outPipe
        case .file(let handle): process.standardOutput = handle
        }
        switch stderr {
        case .capture: process.standardError = errPipe
        case .file(let handle): process.standardError = handle
        }
        let (ended, ending) = AsyncStream.makeStream(of: ChildExit.self)
        process.terminationHandler = { p in
            let signal = p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil
            ending.yield(ChildExit(status: signal.map { 128 + $0 } ?? p.terminationStatus, signal: signal, timedOut: false))
            ending.finish()
        }
        try process.run()
        let pid = process.processIdentifier
        defer { withExtendedLifetime(process) {} }
        if case .capture = stdout { try? outPipe.fileHandleForWriting.close() }
        if case .capture = stderr { try? errPipe.fileHandleForWriting.close() }
        try? input.fileHandleForReading.close()
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async {
            try? writer.write(contentsOf: stdin)
            try? writer.close()
        }
        async let out = capture(stdout, outPipe.fileHandleForReading)
        async let err = capture(stderr, errPipe.fileHandleForReading)

        let exit = await withTaskCancellationHandler {
            await withTaskGroup(of: ChildExit?.self) { group in
                group.addTask {
                    try? await whileRunning(pid)
                    return nil
                }
                group.addTask {
                    var iterator = ended.makeAsyncIterator()
                    return await iterator.next()
                }
                if let timeout {
                    group.addTask {
                        try? await Task.sleep(for: timeout)
                        if Task.isCancelled { return nil }
                        kill(-pid, SIGKILL)
                        return ChildExit(status: 128 + SIGKILL, signal: SIGKILL, timedOut: true)
                    }
                }
                var result: ChildExit?
                var timedOut = false
                while let next = await group.next() {
                    guard let next else { continue }
                    if next.timedOut {
                        timedOut = true
                    } else {
                        result = next
                        group.cancelAll()
                    }
                }
                var exit = result ?? ChildExit(status: 128 + SIGKILL, signal: SIGKILL, timedOut: true)
                exit.timedOut = exit.timedOut || timedOut
                return exit
            }
        } onCancel: {
            kill(-pid, SIGKILL)
        }
        // Whatever the child left behind in its group goes with it, and lets go of the pipes.
        kill(-pid, SIGKILL)
        return ChildRun(exit: exit, stdout: await out, stderr: await err)
    }

    /// A pipe read to its end off the cooperative pool.
    private static func capture(_ output: Output, _ handle: FileHandle) async -> String {
        guard case .capture = output else { return "" }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = handle.readDataToEndOfFile()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }
}
