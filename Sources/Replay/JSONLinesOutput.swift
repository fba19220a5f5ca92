#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Traces

/// Replay events written as JSON Lines to a file descriptor (standard
/// output by default), as `stroll replay --format jsonl` writes them: each
/// line encoded straight into one reused buffer and written in blocks of 64
/// KiB, or line by line when `live`. Call ``flush()`` before the end.
public struct JSONLinesOutput: Sendable {
    /// The file descriptor written to.
    public let descriptor: Int32
    /// Whether each line is written as it comes (a real-time replay).
    public let live: Bool
    private var lines = JSONBytes(capacity: 1 << 16)
    /// The `errno` of the first write that failed (a full disk, a file past
    /// `ulimit -f`, a closed pipe); nil while every write went through.
    public private(set) var failure: Int32?

    /// Lines to `descriptor` (standard output by default), each written at once when `live`.
    public init(descriptor: Int32 = 1, live: Bool = false) {
        self.descriptor = descriptor
        self.live = live
    }

    /// Adds the event's line.
    public mutating func write(_ event: ReplayEvent) {
        event.writeJSONLine(to: &lines)
        lines.byte(10)
        if live || lines.count >= 1 << 16 { flush() }
    }

    /// Adds a line that is not a replay event (a `route` line), as `JSON.text` writes it.
    public mutating func write(_ json: JSON) {
        lines.value(json)
        lines.byte(10)
        if live || lines.count >= 1 << 16 { flush() }
    }

    /// Writes the lines not yet written, whole (a write cut short by a signal
    /// goes on). After a failed write nothing more is written: ``failure``
    /// says why.
    public mutating func flush() {
        if failure == nil {
            failure = lines.withUnsafeBytes { writeWhole(descriptor, $0) }
        }
        lines.removeAll()
    }
}

/// Writes all of `bytes`; the `errno` of a write that failed, else nil.
private func writeWhole(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var done = 0
    while done < bytes.count, let base = bytes.baseAddress {
        let n = write(descriptor, base + done, bytes.count - done)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return n < 0 ? errno : ENOSPC }
        done += n
    }
    return nil
}
