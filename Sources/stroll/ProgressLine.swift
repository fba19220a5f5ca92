import Foundation
import Synchronization
import Traces

/// The progress of a long command (`bench` over many places, `trace info` and
/// `trace convert` on large files), drawn in place on standard error when it
/// is a terminal, at most five times a second, and cleared before the
/// command's own output. On a pipe or in CI nothing is drawn: standard output
/// and standard error carry only what they would without it.
final class ProgressLine: Sendable {
    private struct State {
        var lastDraw: UInt64 = 0
        var drawn = false
    }

    /// Whether anything is drawn: standard error is a terminal.
    let live: Bool
    private let began = DispatchTime.now().uptimeNanoseconds
    private let state = Mutex(State())

    init(live: Bool = isatty(STDERR_FILENO) == 1) {
        self.live = live
    }

    /// Seconds since the command began.
    var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9 }

    /// Redraws the line with `text()` (made only when drawn): the first time at
    /// once, then at most every 0.2 s.
    func update(_ text: () -> String) {
        draw(text, always: false)
    }

    /// Draws a new phase ("building the index") at once.
    func phase(_ text: () -> String) {
        draw(text, always: true)
    }

    private func draw(_ text: () -> String, always: Bool) {
        guard live else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { s in
            guard always || !s.drawn || now - s.lastDraw >= 200_000_000 else { return }
            s.drawn = true
            s.lastDraw = now
            var line = text()
            let width = Self.columns()
            if line.count > width - 1 { line = String(line.prefix(max(10, width - 2))) + "…" }
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
        }
    }

    /// `done of total` with the elapsed time and an estimate of the time left.
    func update(_ what: String, done: Double, of total: Double, unit: (Double) -> String) {
        update {
            let elapsed = self.elapsed
            let share = total > 0 ? min(1, done / total) : 0
            let left = share > 0 && share < 1 ? ", about \(ElapsedTime.clock(elapsed / share - elapsed)) left" : ""
            return "\(what) \(unit(done)) of \(unit(total)) (\(Int(share * 100)) %), elapsed \(ElapsedTime.clock(elapsed))\(left)"
        }
    }

    /// An observer for ``ReadProgress``: "reading FILE: 12.0 of 50.3 MB".
    func reading(_ path: String) -> ReadProgress.Observer? {
        guard live else { return nil }
        let name = (path as NSString).lastPathComponent
        return { read, total in
            self.update("reading \(name):", done: Double(read), of: Double(total)) { String(format: "%.1f MB", $0 / 1e6) }
        }
    }

    /// Clears the line (if one was drawn) so the command's output starts on a clean line.
    func clear() {
        guard live else { return }
        state.withLock { s in
            if s.drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            s.drawn = false
        }
    }

    /// The terminal's width in columns (80 when it cannot be told).
    static func columns(_ fd: Int32 = STDERR_FILENO) -> Int {
        var size = winsize()
        return ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }
}
