import ChildProcess
import Foundation
import Replay
import Traces

/// The walks' lines as their statuses change and, on a terminal, the progress line.
extension Batch {
    mutating func announce(_ item: Item, note: String? = nil) {
        if [.done, .diverged, .failed].contains(item.status) && note == nil { finishedHere += 1 }
        // On a terminal the running walks are in the progress line; only their ends get lines of their own.
        if display.live && item.status == .running { return drawProgress() }
        let line = "[\(item.status.rawValue)] \(item.trace)\(item.reason.map { ": \($0)" } ?? "")\(note.map { " (\($0))" } ?? "")\n"
        display.write((display.live ? "\r\u{1B}[K" : "") + line)
        if display.live { drawProgress() }
    }

    /// The progress line, drawn over itself.
    func drawProgress() {
        guard display.live else { return }
        func clock(_ t: Double) -> String { ElapsedTime.clock(t) }
        let ended = items.filter { [.done, .diverged, .failed, .cancelled].contains($0.status) }.count
        let elapsed = Date().timeIntervalSince(began)
        let left = items.count - ended
        let estimate = finishedHere > 0 && left > 0 ? ", about \(clock(elapsed / Double(finishedHere) * Double(left))) left" : ""
        let running = items.indices.filter { items[$0].status == .running }.map { k -> String in
            let size = (try? FileManager.default.attributesOfItem(atPath: output(".\(items[k].stem).jsonl.partial"))[.size] as? Int) ?? 0
            let time = startedAt[k].map { Date().timeIntervalSince($0) } ?? 0
            return "\((items[k].trace as NSString).lastPathComponent) \(Int(time)) s, \(size / 1024) KB"
        }
        var line = "\(ended)/\(items.count) walks, elapsed \(clock(elapsed))\(estimate)"
        if !running.isEmpty { line += "; running: " + running.joined(separator: ", ") }
        let width = display.columns()
        if line.count > width - 1 { line = String(line.prefix(max(10, width - 2))) + "…" }
        display.write("\r\u{1B}[K" + line)
    }

}
