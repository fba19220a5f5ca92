import ChildProcess
import Foundation

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
        return try await ChildProcess.run(url.path, arguments, stdin: Data(stdin.utf8), timeout: timeout, whileRunning: whileRunning)
    }
}
