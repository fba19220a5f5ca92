import Foundation

/// How a child process ended.
public struct ChildExit: Sendable, Equatable {
    /// The exit code; 128 + the signal's number when a signal ended it.
    public var status: Int32
    /// The signal that ended it, if one did.
    public var signal: Int32?
    /// Whether it was killed for outliving its time limit.
    public var timedOut: Bool

    public init(status: Int32, signal: Int32? = nil, timedOut: Bool = false) {
        self.status = status
        self.signal = signal
        self.timedOut = timedOut
    }

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
/// thread pool: the end of the process is awaited (`waitpid`) on a Dispatch
/// thread, and its output pipes are read to their end on others, both at once,
/// so a child that fills one pipe while the other is read never stalls.
///
/// Children are started with `posix_spawn`, not Foundation's `Process`, for
/// two things `Process` does not do on Linux: every signal's disposition is
/// reset to the default and the signal mask emptied (a parent that ignores
/// SIGPIPE, as SwiftNIO makes every process that uses it, would otherwise
/// hand that on, and `yes | head` would print "Broken pipe" instead of
/// ending quietly), and the pipes are close-on-exec, so one child never holds
/// another's pipe open. Each child leads a process group of its own: a time
/// limit, a cancelled task, or the child's own end kills the whole group, so
/// nothing it started is left running.
public enum ChildProcess {
    /// Where a child's standard output or error goes.
    public enum Output: Sendable {
        /// Read whole into the result.
        case capture
        /// Written to this file, opened by the caller.
        case file(FileHandle)
    }

    private static let spawnLock = NSLock()

    /// Why a child could not be started.
    public struct SpawnError: LocalizedError, CustomStringConvertible {
        public var executable: String
        public var code: Int32
        public var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
        public var errorDescription: String? { description }
    }

    /// The absolute path of the running program's own executable, whatever
    /// `argv[0]` says: a program found on `PATH` is called by its bare name,
    /// which names no file in the working directory. Linux reads
    /// `/proc/self/exe`; macOS asks `_NSGetExecutablePath`. Symbolic links are
    /// resolved. Nil only where neither answers.
    public static var currentExecutable: String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #elseif canImport(Darwin)
        var size = UInt32(0)
        _ = _NSGetExecutablePath(nil, &size)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return URL(fileURLWithPath: String(decoding: bytes, as: UTF8.self)).resolvingSymlinksInPath().path
        #else
        return nil
        #endif
    }

    /// Runs `executable` to its end. `whileRunning` gets the child's process id
    /// (also its group's) as soon as it started, and may signal it.
    public static func run(_ executable: String, _ arguments: [String], stdin: Data = Data(),
                           stdout: Output = .capture, stderr: Output = .capture, timeout: Duration? = nil,
                           whileRunning: @escaping @Sendable (pid_t) async throws -> Void = { _ in }) async throws -> ChildRun {
        let (pid, input, outPipe, errPipe) = try start(executable, arguments, stdout: stdout, stderr: stderr)
        // The child has its own copies: the parent keeps only its ends.
        close(input.read)
        close(outPipe.write)
        close(errPipe.write)
        let writer = FileHandle(fileDescriptor: input.write, closeOnDealloc: true)
        DispatchQueue.global().async {
            try? writer.write(contentsOf: stdin)
            try? writer.close()
        }
        let outHandle = FileHandle(fileDescriptor: outPipe.read, closeOnDealloc: true)
        let errHandle = FileHandle(fileDescriptor: errPipe.read, closeOnDealloc: true)
        async let out = capture(stdout, outHandle)
        async let err = capture(stderr, errHandle)

        let exit = await withTaskCancellationHandler {
            await withTaskGroup(of: ChildExit?.self) { group in
                group.addTask {
                    try? await whileRunning(pid)
                    return nil
                }
                group.addTask { await reap(pid) }
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

    /// Makes the pipes and starts the child under one lock, so that no other
    /// child started here inherits a pipe in the moment before it is close-on-exec.
    private static func start(_ executable: String, _ arguments: [String], stdout: Output, stderr: Output) throws(SpawnError)
        -> (pid_t, Pipe, Pipe, Pipe) {
        spawnLock.lock()
        defer { spawnLock.unlock() }
        let input = try Pipe.closeOnExec()
        let outPipe = try Pipe.closeOnExec(), errPipe = try Pipe.closeOnExec()
        let outFD: Int32, errFD: Int32
        switch stdout {
        case .capture: outFD = outPipe.write
        case .file(let handle): outFD = handle.fileDescriptor
        }
        switch stderr {
        case .capture: errFD = errPipe.write
        case .file(let handle): errFD = handle.fileDescriptor
        }
        do {
            return (try spawn(executable, arguments, stdin: input.read, stdout: outFD, stderr: errFD), input, outPipe, errPipe)
        } catch {
            for fd in [input.read, input.write, outPipe.read, outPipe.write, errPipe.read, errPipe.write] { close(fd) }
            throw error
        }
    }

    /// Starts the child: its own process group, default signal dispositions, an
    /// empty signal mask, the three descriptors as its standard streams.
    static func spawn(_ executable: String, _ arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32) throws(SpawnError) -> pid_t {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let code = (argv + [nil]).withUnsafeBufferPointer { args -> Int32 in
            guard let base = args.baseAddress else { return EINVAL }
            return executable.contains("/")
                ? posix_spawn(&pid, executable, &actions, &attributes, base, environ)
                : posix_spawnp(&pid, executable, &actions, &attributes, base, environ)
        }
        guard code == 0 else { throw SpawnError(executable: executable, code: code) }
        return pid
    }

    /// Waits for the child's end on a Dispatch thread (`waitpid` blocks) and reaps it.
    private static func reap(_ pid: pid_t) async -> ChildExit {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                let signal = status & 0x7F
                if signal == 0 {
                    continuation.resume(returning: ChildExit(status: (status >> 8) & 0xFF, signal: nil, timedOut: false))
                } else {
                    continuation.resume(returning: ChildExit(status: 128 + signal, signal: signal, timedOut: false))
                }
            }
        }
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

/// A pipe's two descriptors, both close-on-exec.
private struct Pipe {
    var read: Int32
    var write: Int32

    static func closeOnExec() throws(ChildProcess.SpawnError) -> Pipe {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw ChildProcess.SpawnError(executable: "pipe", code: errno) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return Pipe(read: fds[0], write: fds[1])
    }
}
