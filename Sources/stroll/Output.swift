import ArgumentParser
import Foundation

/// Writes one line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Prints `message` on standard error and gives `code`, the contract's exit
/// code, to throw: `throw failure("error: …", StrollExit.usage)`.
func failure(_ message: String, _ code: ExitCode) -> ExitCode {
    printError(message)
    return code
}
