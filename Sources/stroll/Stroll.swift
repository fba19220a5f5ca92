import ArgumentParser

/// Exit codes of the command-line contract.
enum StrollExit {
    static let checkFailed = ExitCode(1)
    static let usage = ExitCode(64)
    static let badInput = ExitCode(65)
    static let missingInput = ExitCode(66)
    /// A service cannot start: its address is in use (EX_UNAVAILABLE).
    static let unavailable = ExitCode(69)
    static let internalError = ExitCode(70)
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
        70 internal error.

        The whole command line (options, JSON keys, exit codes) is described in \
        docs/CLI.md in Stroll's repository.
        """,
        subcommands: Stroll.commands,
        defaultSubcommand: ReplayCommand.self
    )
}

extension Stroll {
    static var commands: [any ParsableCommand.Type] {
        [ReplayCommand.self, TraceCommand.self, PlacesCommand.self, GeodesicCommand.self, BenchCommand.self, BatchCommand.self, ServeCommand.self, RouteCommand.self, GeocodeCommand.self, SearchCommand.self]
    }
}
