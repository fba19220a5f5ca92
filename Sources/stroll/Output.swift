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

/// Writes `bytes` to standard output (file descriptor 1) whole, unbuffered.
func writeStandardOutput(_ bytes: UnsafeRawBufferPointer) {
    var done = 0
    while done < bytes.count, let base = bytes.baseAddress {
        let n = write(STDOUT_FILENO, base + done, bytes.count - done)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        done += n
    }
}
