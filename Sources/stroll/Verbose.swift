import ArgumentParser
import Logging

/// `--verbose`: what Stroll is doing, on standard error, through swift-log.
struct VerboseOption: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log what is read, decided and written, on standard error.")
    var verbose = false

    /// A logger at debug level with --verbose, warnings only without.
    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}
