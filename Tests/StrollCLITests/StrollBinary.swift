import Foundation

/// Runs the built `stroll` executable, as a user's shell would.
enum StrollBinary {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

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

    static func run(_ arguments: [String], stdin: String = "") throws -> Run {
        guard let url else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}
