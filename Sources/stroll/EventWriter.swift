import Foundation
import Replay
import Traces

/// Writes replay events as JSON Lines (the contract in ../shared/CLI.md) or
/// as text for people (``ReplayText``): on a terminal during a real-time
/// replay, the screen redrawn in place.
struct EventWriter {
    let jsonl: Bool
    var text: ReplayText
    var lines: JSONLinesOutput

    init(format: String, realtime: Bool, groups: [String]) {
        jsonl = format == "jsonl"
        text = ReplayText(groups: groups, realtime: realtime, redraw: !jsonl && realtime && isatty(STDOUT_FILENO) == 1)
        lines = JSONLinesOutput(live: realtime)
    }

    /// Prints one event: its JSON line, or what the text shows of it.
    mutating func write(_ event: ReplayEvent) {
        if jsonl { return lines.write(event) }
        let output = text.render(event)
        if let out = output.standardOutput { print(out) }
        if let err = output.standardError { printError(err) }
    }

    /// What comes before the events: the text's heading, or in JSON Lines the
    /// `route` line of a replay along a route.
    mutating func begin(trace: String, places: Int, notes: [String], route: JSON? = nil) {
        if !jsonl { return print(text.begin(trace: trace, places: places, notes: notes)) }
        if let route { lines.write(route) }
    }
}
