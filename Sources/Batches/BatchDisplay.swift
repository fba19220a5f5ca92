import Foundation

/// Where a batch writes the walks' lines as their statuses change and, on a
/// terminal, the progress line it redraws in place.
public struct BatchDisplay: Sendable {
    /// Writes text as it is (whole lines, or a line drawn over itself).
    public var write: @Sendable (String) -> Void
    /// Whether a progress line is drawn and redrawn in place (a terminal).
    public var live: Bool
    /// The terminal's width in columns, asked each time the progress line is drawn.
    public var columns: @Sendable () -> Int

    public init(write: @escaping @Sendable (String) -> Void, live: Bool = false, columns: @escaping @Sendable () -> Int = { 80 }) {
        self.write = write
        self.live = live
        self.columns = columns
    }

    /// Standard output: plain lines on a pipe or in CI, a progress line on a terminal.
    public static var standardOutput: BatchDisplay {
        BatchDisplay(write: { FileHandle.standardOutput.write(Data($0.utf8)) }, live: isatty(STDOUT_FILENO) == 1, columns: {
            var size = winsize()
            return ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        })
    }

    /// Nothing written: for a batch run inside a program that reads its statuses.
    public static let silent = BatchDisplay(write: { _ in })
}
