import Foundation

/// A small streaming XML tokenizer for trace files.
///
/// Why not Foundation's `XMLParser`: this scanner reads GPX several times
/// faster (it parses numbers and times straight from bytes, with no string per
/// callback), streams in bounded memory, reports exact line and column, and
/// has no DTD machinery at all: entity declarations are refused outright, so
/// external entities are never read and entity expansion cannot explode.
///
/// It allocates nothing per token: names and attribute values stay where
/// they are in the read buffer (values holding entities are decoded aside),
/// open elements' names are kept one after another in one array, and the
/// scans for `<`, `&`, quotes and line breaks are `memchr` calls.
///
/// It checks well-formedness as far as a trace needs: matching tags, quoted
/// attributes, known entities, one root element, nothing after it but
/// whitespace, comments and processing instructions.
package struct XMLScanner {
    package enum Token: Equatable {
        case start
        case end
        case endOfDocument
    }

    private let source: ByteSource
    var buffer: [UInt8] = []
    var pos = 0
    /// Absolute offset of `buffer[0]` in the (UTF-8) stream.
    private var base = 0
    private var countedTo = 0
    private var lineNumber = 1
    private var lineStart = 0

    /// Line and column of the current token's `<` (or of the error).
    package private(set) var line = 1
    package private(set) var column = 1

    /// Where the current element's local name is in `stackBytes` (see there).
    var nameRange = 0..<0
    /// The current element's local name (prefix removed) after `.start`/`.end`.
    package var name: String { String(decoding: stackBytes[nameRange], as: UTF8.self) }

    /// The current element's local name packed (``ByteSearch/packedName(_:count:)``).
    var nameKey: UInt64 = 0

    /// Whether the current start tag closed itself (`<a/>`); an `.end` follows.
    package internal(set) var selfClosing = false

    /// One attribute of the current start tag: its local name in `buffer`, and
    /// its value in `buffer` as written or, when it holds entities, decoded in
    /// `attributeBytes` (valid until the next token).
    struct Attribute {
        var name: Range<Int>
        var value: Range<Int>
        var decoded: Bool
    }
    var attributes: [Attribute] = []
    var attributeBytes: [UInt8] = []
    /// Character data since the last tag (entities decoded, CDATA included).
    var text: [UInt8] = []

    /// The open elements' qualified names one after another, and where each ends in
    /// `stackBytes`. Bytes past the innermost one are not cleared: a start tag's name is
    /// written there before it is pushed, and a closed element's name stays there until
    /// the next start tag, so that `name` can point at either without a copy.
    var stackBytes: [UInt8] = []
    var stackEnds: [Int] = []
    var pendingEnd = false
    var sawRoot = false
    var finished = false
    let maxDepth = 256
    /// Bounds memory: no text run, tag or comment may be longer than this.
    static let maxTokenBytes = 64 << 20

    package init(source: ByteSource) throws(TraceError) {
        self.source = source
        try fill()
        try prologue()
    }

    // MARK: Buffer

    /// Reads another chunk, keeping bytes from `keepFrom` on. Returns false at the end.
    @discardableResult
    mutating func fill(keepFrom: Int? = nil) throws(TraceError) -> Bool {
        let keep = min(keepFrom ?? pos, pos)
        guard buffer.count - keep < Self.maxTokenBytes else {
            throw error("a single XML token longer than \(Self.maxTokenBytes >> 20) MiB", at: keep)
        }
        // The chunk is appended before the consumed bytes are dropped: at the end of the
        // file nothing moves, so the callers' indices stay valid.
        guard try source.appendChunk(to: &buffer) else { return false }
        if keep > 0 {
            advanceLines(to: base + keep)
            buffer.removeSubrange(0..<keep)
            base += keep
            pos -= keep
        }
        return true
    }

    private mutating func advanceLines(to absolute: Int) {
        guard absolute > countedTo else { return }
        let from = countedTo - base, to = absolute - base
        let (lines, lastBreak) = buffer.withUnsafeBufferPointer { b -> (Int, Int) in
            guard let start = b.baseAddress else { return (0, -1) }
            return ByteSearch.lineBreaks(in: start, from: from, to: to)
        }
        if lines > 0 {
            lineNumber += lines
            lineStart = base + lastBreak + 1
        }
        countedTo = absolute
    }

    /// Replaces `target`'s contents with `source[range]`, copying from the buffer
    /// directly (no slice of it is made, so it is not retained and released).
    @inline(__always)
    private static func copy(_ range: Range<Int>, of source: [UInt8], to target: inout [UInt8], appending: Bool = false) {
        if !appending && !target.isEmpty { target.removeAll(keepingCapacity: true) }
        guard !range.isEmpty else { return }
        source.withUnsafeBufferPointer { s in
            if range.count <= 24 {
                // A short run (most text in a trace is a number or a time) byte by byte.
                for k in range { target.append(s[k]) }
            } else {
                target.append(contentsOf: UnsafeBufferPointer(rebasing: s[range]))
            }
        }
    }

    /// Index of the first `byte` in `bytes[from..<to]`, or nil.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        return bytes.withUnsafeBufferPointer { b -> Int? in
            guard let start = b.baseAddress else { return nil }
            return ByteSearch.firstIndex(of: byte, in: start, from: from, to: to)
        }
    }

    mutating func mark(_ index: Int) {
        advanceLines(to: base + index)
        line = lineNumber
        column = base + index - lineStart + 1
    }

    mutating func error(_ reason: String, at index: Int? = nil) -> TraceError {
        mark(min(index ?? pos, buffer.count))
        return TraceError(.malformed, file: source.path, line: line, column: column, reason: reason)
    }

    /// Index of `byte` at or after `from`, reading more as needed; nil at the end of the file.
    /// `keepFrom` (never after `pos`) is the first byte the caller still needs.
    private mutating func find(_ byte: UInt8, from: Int, keepFrom: Int) throws(TraceError) -> Int? {
        var i = from
        var keepIndex = keepFrom
        while true {
            if let hit = Self.firstIndex(of: byte, in: buffer, from: i, to: buffer.count) { return hit }
            i = buffer.count
            let shift = keepIndex
            guard try fill(keepFrom: keepIndex) else { return nil }
            i -= shift
            keepIndex = 0
        }
    }

    /// Index of the sequence `pattern` at or after `from`; nil at the end of the file.
    private mutating func find(_ pattern: [UInt8], from: Int, keepFrom: Int) throws(TraceError) -> Int? {
        var start = from
        var keepIndex = keepFrom
        while true {
            if buffer.count - start >= pattern.count {
                var i = start
                let last = buffer.count - pattern.count
                while i <= last {
                    if buffer[i] == pattern[0] {
                        var k = 1
                        while k < pattern.count && buffer[i + k] == pattern[k] { k += 1 }
                        if k == pattern.count { return i }
                    }
                    i += 1
                }
                start = last + 1
            }
            let shift = keepIndex
            guard try fill(keepFrom: keepIndex) else { return nil }
            start -= shift
            keepIndex = 0
        }
    }

    private mutating func ensure(_ count: Int) throws(TraceError) -> Bool {
        while buffer.count - pos < count {
            guard try fill() else { return false }
        }
        return true
    }

    private func hasPrefix(_ p: [UInt8], at i: Int) -> Bool {
        guard buffer.count - i >= p.count else { return false }
        for k in 0..<p.count where buffer[i + k] != p[k] { return false }
        return true
    }

    // MARK: Prologue

    private mutating func prologue() throws(TraceError) {
        // ByteSource has read the declaration's encoding and dropped any byte-order mark.
        guard hasPrefix(Array("<?xml".utf8), at: pos) else { return }
        guard let close = try find(Array("?>".utf8), from: pos, keepFrom: pos) else {
            throw error("the XML declaration is not closed", at: pos)
        }
        pos = close + 2
    }

    // MARK: Tokens

    /// Advances to the next start or end tag, collecting text on the way.
    package mutating func next() throws(TraceError) -> Token {
        if pendingEnd {
            pendingEnd = false
            selfClosing = false
            if !text.isEmpty { text.removeAll(keepingCapacity: true) }
            popElement()
            return .end
        }
        if !text.isEmpty { text.removeAll(keepingCapacity: true) }
        while true {
            if let lt = Self.firstIndex(of: UInt8(ascii: "<"), in: buffer, from: pos, to: buffer.count), lt + 1 < buffer.count {
                // The next tag and the byte after its '<' are in the buffer already.
                try appendText(upTo: lt)
                pos = lt
            } else {
                guard let lt = try find(UInt8(ascii: "<"), from: pos, keepFrom: pos) else {
                    try appendText(upTo: buffer.count)
                    pos = buffer.count
                    return try endOfInput()
                }
                try appendText(upTo: lt)
                pos = lt
                guard try ensure(2) else { throw error("the file ends inside a tag") }
            }
            let c = buffer[pos + 1]
            if c == UInt8(ascii: "!") {
                try markup()
                continue
            }
            if c == UInt8(ascii: "?") {
                guard let close = try find(Array("?>".utf8), from: pos + 2, keepFrom: pos) else {
                    throw error("the file ends inside a processing instruction")
                }
                pos = close + 2
                continue
            }
            if finished { throw error("content after the end of the root element") }
            return c == UInt8(ascii: "/") ? try endTag() : try startTag()
        }
    }

    private mutating func endOfInput() throws(TraceError) -> Token {
        if !stackEnds.isEmpty {
            throw error("the file ends before </\(String(decoding: stackBytes[openElement], as: UTF8.self))> (truncated XML?)")
        }
        if !sawRoot { throw error("no XML element in the file (not XML?)") }
        return .endOfDocument
    }

    private mutating func appendText(upTo end: Int) throws(TraceError) {
        guard pos < end else { return }
        if stackEnds.isEmpty {
            for i in pos..<end where !(buffer[i] == 0x20 || buffer[i] == 0x09 || buffer[i] == 0x0A || buffer[i] == 0x0D) {
                throw error(sawRoot ? "text after the end of the root element" : "text before the root element (not XML?)", at: i)
            }
            return
        }
        try decode(pos..<end, intoText: true)
    }

    /// Copies `range` of the buffer with its entities decoded, to `text` or to `attributeBytes`.
    mutating func decode(_ range: Range<Int>, intoText: Bool) throws(TraceError) {
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            let amp = Self.firstIndex(of: UInt8(ascii: "&"), in: buffer, from: i, to: end) ?? end
            if intoText { Self.copy(i..<amp, of: buffer, to: &text, appending: true) } else { Self.copy(i..<amp, of: buffer, to: &attributeBytes, appending: true) }
            i = amp
            if i < end {
                let decoded = try entity(at: i, end: end)
                if intoText { text.append(contentsOf: decoded.bytes) } else { attributeBytes.append(contentsOf: decoded.bytes) }
                i = decoded.next
            }
        }
    }

    /// Decodes the entity at `i`: its UTF-8 bytes and the index after it.
    private mutating func entity(at i: Int, end: Int) throws(TraceError) -> (bytes: String.UTF8View, next: Int) {
        var j = i + 1
        while j < end && buffer[j] != UInt8(ascii: ";") && j - i < 12 { j += 1 }
        guard j < end, buffer[j] == UInt8(ascii: ";") else { throw error("a bare & that does not start an entity", at: i) }
        let name = String(decoding: buffer[(i + 1)..<j], as: UTF8.self)
        let decoded: String
        switch name {
        case "lt": decoded = "<"
        case "gt": decoded = ">"
        case "amp": decoded = "&"
        case "quot": decoded = "\""
        case "apos": decoded = "'"
        case let ref where ref.hasPrefix("#"):
            let digits = ref.dropFirst()
            let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                throw error("invalid character reference &\(ref);", at: i)
            }
            decoded = String(Character(scalar))
        default:
            throw error("undefined entity &\(name); (DTD entities are not processed)", at: i)
        }
        return (decoded.utf8, j + 1)
    }

    /// Comments, CDATA and DOCTYPE (`<!...`).
    private mutating func markup() throws(TraceError) {
        guard try ensure(9) || hasPrefix(Array("<!--".utf8), at: pos) else { throw error("the file ends inside markup") }
        if hasPrefix(Array("<!--".utf8), at: pos) {
            guard let close = try find(Array("-->".utf8), from: pos + 4, keepFrom: pos) else { throw error("the file ends inside a comment") }
            pos = close + 3
        } else if hasPrefix(Array("<![CDATA[".utf8), at: pos) {
            guard !stackEnds.isEmpty else { throw error("CDATA outside the root element") }
            guard let close = try find(Array("]]>".utf8), from: pos + 9, keepFrom: pos) else { throw error("the file ends inside CDATA") }
            text.append(contentsOf: buffer[(pos + 9)..<close])
            pos = close + 3
        } else if hasPrefix(Array("<!DOCTYPE".utf8), at: pos) {
            try doctype()
        } else {
            throw error("unexpected markup declaration")
        }
    }

    private mutating func doctype() throws(TraceError) {
        guard !sawRoot else { throw error("DOCTYPE after the root element") }
        let start = pos
        var i = pos + 9
        var depth = 0
        while true {
            if i >= buffer.count {
                let shift = start
                guard try fill(keepFrom: start) else { throw error("the file ends inside DOCTYPE", at: start) }
                i -= shift
                continue
            }
            let c = buffer[i]
            if c == UInt8(ascii: "[") { depth += 1 }
            if c == UInt8(ascii: "]") { depth -= 1 }
            if c == UInt8(ascii: "<") && hasPrefix(Array("<!ENTITY".utf8), at: i) {
                throw error("entity declarations are refused: a trace needs none, and expanding them is unsafe", at: i)
            }
            if c == UInt8(ascii: ">") && depth <= 0 {
                pos = i + 1
                return
            }
            i += 1
        }
    }

    /// Where the innermost open element's qualified name is in `stackBytes`.
    var openElement: Range<Int> {
        let end = stackEnds.last ?? 0
        return (stackEnds.count > 1 ? stackEnds[stackEnds.count - 2] : 0)..<end
    }

    mutating func popElement() {
        if !stackEnds.isEmpty { stackEnds.removeLast() }
    }

    var fileName: String { source.path }

    /// Nesting depth of the current position (the root element is depth 1).
    var depth: Int { stackEnds.count }
}
