import ArgumentParser
import Foundation

/// Exit codes of the command-line contract.
enum StrollExit {
    static let checkFailed = ExitCode(1)
    static let usage = ExitCode(64)
    static let badInput = ExitCode(65)
    static let missingInput = ExitCode(66)
    /// A service cannot start: its address is in use (EX_UNAVAILABLE).
    static let unavailable = ExitCode(69)
    static let internalError = ExitCode(70)
    /// An output file cannot be created (EX_CANTCREAT).
    static let cannotCreate = ExitCode(73)
    /// A write failed midway: a full disk, a file too large (EX_IOERR).
    static let ioError = ExitCode(74)
}

@main
struct Stroll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stroll",
        abstract: "Replay walks as CoreLocation would deliver them, and watch places re-sort.",
        discussion: """
        Stroll is a headless location-event simulator: it replays GPX or CSV traces \
        with CoreLocation's accuracy and distance-filter semantics, re-sorts places by \
        exact WGS84 geodesic distance on every delivered fix, and tracks a MapKit-style \
        map model.

        Exit codes: 0 ok, 1 a check failed, 64 usage, 65 bad input data, \
        66 missing or unreadable input, 69 a service cannot start (address in use), \
        70 internal error, 73 an output cannot be created, 74 a write failed.

        The whole command line (options, JSON keys, exit codes) is described in \
        docs/CLI.md in Stroll's repository.
        """,
        version: "stroll \(BuildVersion.version) (commit \(BuildVersion.commit))",
        subcommands: Stroll.commands,
        defaultSubcommand: ReplayCommand.self
    )

    /// ArgumentParser's entry, after ``CommandWords``: negative coordinates
    /// as values, an unknown command word refused, one `error:` prefix.
    static func main() async {
        // A file grown past `ulimit -f` fails its write with EFBIG, reported
        // as any failed write, instead of killing the process.
        signal(SIGXFSZ, SIG_IGN)
        let words = CommandWords.prepare(Array(CommandLine.arguments.dropFirst()))
        if let message = CommandWords.unknownCommand(words, commands: CommandWords.commandNames(commands),
                                                     fileExists: { FileManager.default.fileExists(atPath: $0) }) {
            printError("error: " + message)
            Foundation.exit(StrollExit.usage.rawValue)
        }
        do {
            var command = try await asyncParseAsRoot(words)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            if let code = flushStandardOutput() { Foundation.exit(code.rawValue) }
        } catch {
            if let code = flushStandardOutput(), code != .success { Foundation.exit(code.rawValue) }
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty {
                if code == .success {
                    print(message)
                } else {
                    printError(CommandWords.lowercasePrefix(message))
                }
            }
            Foundation.exit(code.rawValue)
        }
    }
}

extension Stroll {
    static var commands: [any ParsableCommand.Type] {
        [ReplayCommand.self, TraceCommand.self, PlacesCommand.self, GeodesicCommand.self, BenchCommand.self, BatchCommand.self, ServeCommand.self, RouteCommand.self, GeocodeCommand.self, SearchCommand.self]
    }
}
