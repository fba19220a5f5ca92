import Foundation
import Replay
import Traces

/// Writes replay events as JSON Lines (the contract in ../shared/CLI.md) or
/// as text for people (``ReplayText``): on a terminal during a real-time
/// replay, the screen redrawn in place.
struct EventWriter {
    let jsonl: Bool
    var text: ReplayText
    /// The lines not yet written to standard output.
    private var lines = JSONBytes(capacity: 1 << 16)

    init(format: String, realtime: Bool, groups: [String]) {
        jsonl = format == "jsonl"
        text = ReplayText(groups: groups, realtime: realtime, redraw: !jsonl && realtime && isatty(STDOUT_FILENO) == 1)
    }

    /// Prints one event: its JSON line, or what the text shows of it.
    mutating func write(_ event: ReplayEvent) {
        if jsonl {
            event.writeJSONLine(to: &lines)
            lines.byte(10)
            // Live (--realtime) each line as it comes; else in blocks of 64 KiB.
            if text.realtime || lines.bytes.count >= 1 << 16 { flush() }
            return
        }
        let output = text.render(event)
        if let out = output.standardOutput { print(out) }
        if let err = output.standardError { printError(err) }
    }

    /// Writes the lines not yet written to standard output (in JSON Lines
    /// nothing else is written there, so they keep their order).
    mutating func flush() {
        guard !lines.bytes.isEmpty else { return }
        lines.bytes.withUnsafeBytes { writeStandardOutput($0) }
        lines.removeAll()
    }

    func begin(trace: String, places: Int, notes: [String]) {
        if !jsonl { print(text.begin(trace: trace, places: places, notes: notes)) }
    }
}
