/// Lines of a ``ByteSource`` one at a time, with their 1-based numbers, in
/// bounded memory (a line longer than `maximumLength` is an error): the
/// line-based trace formats, and the shards' event streams that
/// ``ShardPlan`` merges (lines of megabytes at a million places).
package struct LineReader {
    private let source: ByteSource
    private var buffer: [UInt8] = []
    private var position = 0
    private var atEnd = false
    package private(set) var lineNumber = 0
    /// The longest line read, in bytes (1 MiB unless told).
    package let maximumLength: Int

    init(source: ByteSource, maximumLength: Int = 1 << 20) {
        self.source = source
        self.maximumLength = maximumLength
    }

    /// Opens `path`; a missing file or a directory is `.unreadable`.
    package init(path: String, maximumLength: Int = 1 << 20) throws(TraceError) {
        self.init(source: try ByteSource(path: path), maximumLength: maximumLength)
    }

    var fileName: String { source.path }

    /// The next line without its line break, nil at the end.
    package mutating func next() throws(TraceError) -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[position...].firstIndex(of: 0x0A) {
                var end = newline
                if end > position, buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[position..<end]
                position = newline + 1
                lineNumber += 1
                return line
            }
            if atEnd {
                guard position < buffer.count else { return nil }
                var end = buffer.count
                if buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[position..<end]
                position = buffer.count
                lineNumber += 1
                return line
            }
            if buffer.count - position > maximumLength {
                throw TraceError(.malformed, file: source.path, line: lineNumber + 1, column: 1, reason: "a line longer than \(maximumLength) bytes")
            }
            buffer.removeSubrange(..<position)
            position = 0
            if let chunk = try source.nextChunk() { buffer.append(contentsOf: chunk) } else { atEnd = true }
        }
    }
}
