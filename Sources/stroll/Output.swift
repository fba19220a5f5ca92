import ArgumentParser
import Traces
import Foundation

/// Writes one line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Prints `message` on standard error and gives `code`, the contract's exit
/// code, to throw: `throw failure("error: …", StrollExit.usage)`. Every
/// error is one voice: a message without the `error:` prefix gets it (a
/// failed check, exit 1, speaks as itself: `verify: …`).
func failure(_ message: String, _ code: ExitCode) -> ExitCode {
    printError(code == StrollExit.checkFailed || message.hasPrefix("error: ") ? message : "error: " + message)
    return code
}

/// Refuses, before any work, the output paths that cannot be created: exit 73
/// (EX_CANTCREAT) naming the path, nothing written.
func checkOutputs(_ paths: [String?]) throws {
    for case let path? in paths {
        do {
            try OutputFile.checkCreatable(path)
        } catch {
            throw failure("error: \(error.description)", StrollExit.cannotCreate)
        }
    }
}

/// The exit code for an output that was not written: 74 (EX_IOERR) for a
/// write that failed midway, 73 for a file that could not be created, the
/// path and the reason on standard error.
func writeFailure(_ error: any Error, path: String) -> ExitCode {
    if let error = error as? OutputFileError { return failure("error: \(error.description)", ExitCode(error.exitCode)) }
    return failure("error: cannot write \(path): \(ErrorWords.reason(error))", StrollExit.ioError)
}

/// `1 place`, `2 places`, `0 places`: a count and its noun in the right number.
func count(_ n: Int, _ noun: String, plural: String? = nil) -> String {
    "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
}

/// A write to standard output that failed: exit 74 naming it, except a
/// closed pipe (`stroll … | head`), which ends quietly as a pipeline expects.
func standardOutputFailure(_ code: Int32) -> ExitCode {
    if code == EPIPE { return ExitCode.success }
    return failure("error: cannot write standard output: \(String(cString: strerror(code)))", StrollExit.ioError)
}

/// Flushes what `print` buffered; a failure as ``standardOutputFailure(_:)``.
func flushStandardOutput() -> ExitCode? {
    // Every C stream (`stdout` itself is not for Swift 6's concurrency checks
    // to read): a write that failed before leaves its bytes to fail again here.
    guard fflush(nil) != 0 else { return nil }
    let code = errno
    return standardOutputFailure(code == 0 ? EIO : code)
}
