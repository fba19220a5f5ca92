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
    private var buffer: [UInt8] = []
    private var pos = 0
    /// Absolute offset of `buffer[0]` in the (UTF-8) stream.
    private var base = 0
    private var countedTo = 0
    private var lineNumber = 1
    private var lineStart = 0

    /// Line and column of the current token's `<` (or of the error).
    package private(set) var line = 1
    package private(set) var column = 1

    /// Where the current element's local name is in `stackBytes` (see there).
    private var nameRange = 0..<0
    /// The current element's local name (prefix removed) after `.start`/`.end`.
    package var name: String { String(decoding: stackBytes[nameRange], as: UTF8.self) }

    /// The current element's local name packed (``ByteSearch/packedName(_:count:)``).
    private(set) var nameKey: UInt64 = 0

    /// Whether the current start tag closed itself (`<a/>`); an `.end` follows.
    package private(set) var selfClosing = false

    /// One attribute of the current start tag: its local name in `buffer`, and
    /// its value in `buffer` as written or, when it holds entities, decoded in
    /// `attributeBytes` (valid until the next token).
    private struct Attribute {
        var name: Range<Int>
        var value: Range<Int>
        var decoded: Bool
    }
    private var attributes: [Attribute] = []
    private var attributeBytes: [UInt8] = []
    /// Character data since the last tag (entities decoded, CDATA included).
    private(set) var text: [UInt8] = []

    /// The open elements' qualified names one after another, and where each ends in
    /// `stackBytes`. Bytes past the innermost one are not cleared: a start tag's name is
    /// written there before it is pushed, and a closed element's name stays there until
    /// the next start tag, so that `name` can point at either without a copy.
    private var stackBytes: [UInt8] = []
    private var stackEnds: [Int] = []
    private var pendingEnd = false
    private var sawRoot = false
    private var finished = false
    private let maxDepth = 256
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
    private mutating func fill(keepFrom: Int? = nil) throws(TraceError) -> Bool {
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
    private static func firstIndex(of byte: UInt8, in bytes: [UInt8], from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        return bytes.withUnsafeBufferPointer { b -> Int? in
            guard let start = b.baseAddress else { return nil }
            return ByteSearch.firstIndex(of: byte, in: start, from: from, to: to)
        }
    }

    private mutating func mark(_ index: Int) {
        advanceLines(to: base + index)
        line = lineNumber
        column = base + index - lineStart + 1
    }

    private mutating func error(_ reason: String, at index: Int? = nil) -> TraceError {
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
    private mutating func decode(_ range: Range<Int>, intoText: Bool) throws(TraceError) {
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

    @inline(__always)
    private func isNameByte(_ c: UInt8) -> Bool { Self.isNameByte(c) }

    @inline(__always)
    private static func isNameByte(_ c: UInt8) -> Bool {
        // Letters and most punctuation sort after '>', the last byte that can end a name.
        if c > UInt8(ascii: ">") { return true }
        return !(c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == UInt8(ascii: ">") || c == UInt8(ascii: "/")
            || c == UInt8(ascii: "=") || c == UInt8(ascii: "<") || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'"))
    }

    /// The local part of the qualified name at `qname` in the buffer (after its last colon).
    private func localName(_ qname: Range<Int>) -> Range<Int> {
        var i = qname.upperBound
        while i > qname.lowerBound {
            if buffer[i - 1] == UInt8(ascii: ":") { return i..<qname.upperBound }
            i -= 1
        }
        return qname
    }

    private func string(_ range: Range<Int>) -> String { String(decoding: buffer[range], as: UTF8.self) }

    /// Where the innermost open element's qualified name is in `stackBytes`.
    private var openElement: Range<Int> {
        let end = stackEnds.last ?? 0
        return (stackEnds.count > 1 ? stackEnds[stackEnds.count - 2] : 0)..<end
    }

    private mutating func popElement() {
        if !stackEnds.isEmpty { stackEnds.removeLast() }
    }

    /// Writes the start tag's qualified name `qname` just past the open elements
    /// in `stackBytes` and makes its local part the current name.
    private mutating func stageName(_ qname: Range<Int>) {
        let start = stackEnds.last ?? 0
        let end = start + qname.count
        if stackBytes.count < end { stackBytes.append(contentsOf: repeatElement(0, count: end - stackBytes.count)) }
        Self.write(qname, of: buffer, to: &stackBytes, at: start)
        let local = localName(qname)
        nameRange = (start + local.lowerBound - qname.lowerBound)..<end
        nameKey = Self.packedName(local, of: buffer)
    }

    @inline(__always)
    private static func packedName(_ range: Range<Int>, of bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { b in
            guard let start = b.baseAddress else { return 0 }
            return ByteSearch.packedName(start + range.lowerBound, count: range.count)
        }
    }

    @inline(__always)
    private static func write(_ range: Range<Int>, of source: [UInt8], to target: inout [UInt8], at offset: Int) {
        source.withUnsafeBufferPointer { s in
            target.withUnsafeMutableBufferPointer { t in
                guard let from = s.baseAddress, let to = t.baseAddress else { return }
                // Names are short: byte by byte costs less than a call to memmove.
                for k in 0..<range.count { to[offset + k] = from[range.lowerBound + k] }
            }
        }
    }

    private mutating func tagEnd() throws(TraceError) -> Int {
        // Attribute values may hold '>' only when escaped, so the first '>' outside quotes ends the tag.
        var i = pos + 1
        var quote: UInt8 = 0
        while true {
            if i >= buffer.count {
                let shift = pos
                guard try fill(keepFrom: pos) else { throw error("the file ends inside a tag (truncated XML?)") }
                i -= shift
                continue
            }
            let found: (index: Int, byte: UInt8)? = buffer.withUnsafeBufferPointer { b in
                guard let start = b.baseAddress else { return nil }
                let j = quote != 0
                    ? ByteSearch.firstIndex(ofAny: quote, UInt8(ascii: "<"), quote, quote, in: start, from: i, to: b.count)
                    : ByteSearch.firstIndex(ofAny: UInt8(ascii: ">"), UInt8(ascii: "<"), UInt8(ascii: "\""), UInt8(ascii: "'"), in: start, from: i, to: b.count)
                return j.map { ($0, b[$0]) }
            }
            guard let found else {
                i = buffer.count
                continue
            }
            i = found.index
            if quote != 0 {
                if found.byte == UInt8(ascii: "<") { throw error("'<' inside an attribute value", at: i) }
                quote = 0
            } else if found.byte == UInt8(ascii: ">") {
                return i
            } else if found.byte == UInt8(ascii: "<") {
                throw error("'<' inside a tag", at: i)
            } else {
                quote = found.byte
            }
            i += 1
        }
    }

    /// The usual start tag in one pass: a name, attributes quoted without `<` or `&`
    /// in their values, then `>` or `/>`, all in the buffer. Records the attributes
    /// and returns where the tag ends and its name does, or nil for anything else,
    /// which `startTag` then reads (and reports) as any tag. (What this accepts,
    /// `tagEnd` would end at the same `>` and `startTag` read to the same attributes.)
    private mutating func quickStartTag() -> (close: Int, nameEnd: Int)? {
        var list: [Attribute] = []
        swap(&list, &attributes)
        defer { swap(&list, &attributes) }
        if !list.isEmpty { list.removeAll(keepingCapacity: true) }
        let p = pos
        return buffer.withUnsafeBufferPointer { b -> (close: Int, nameEnd: Int)? in
            guard let base = b.baseAddress else { return nil }
            let n = b.count
            var i = p + 1
            while i < n && Self.isNameByte(b[i]) { i += 1 }
            guard i > p + 1 else { return nil }
            let nameEnd = i
            while true {
                while i < n && isSpace(b[i]) { i += 1 }
                guard i < n else { return nil }
                if b[i] == UInt8(ascii: ">") { return (i, nameEnd) }
                if b[i] == UInt8(ascii: "/") { return i + 1 < n && b[i + 1] == UInt8(ascii: ">") ? (i + 1, nameEnd) : nil }
                let an = i
                while i < n && Self.isNameByte(b[i]) { i += 1 }
                guard i > an else { return nil }
                let attributeName = ByteSearch.localNameStart(base, from: an, to: i)..<i
                while i < n && isSpace(b[i]) { i += 1 }
                guard i < n, b[i] == UInt8(ascii: "=") else { return nil }
                i += 1
                while i < n && isSpace(b[i]) { i += 1 }
                guard i < n, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else { return nil }
                let quote = b[i]
                let vs = i + 1
                // The closing quote, with no '<' or '&' before it (one pass).
                guard let ve = ByteSearch.firstIndex(ofAny: quote, UInt8(ascii: "<"), UInt8(ascii: "&"), quote, in: base, from: vs, to: n),
                      base[ve] == quote
                else { return nil }
                list.append(Attribute(name: attributeName, value: vs..<ve, decoded: false))
                i = ve + 1
            }
        }
    }

    private mutating func startTag() throws(TraceError) -> Token {
        if let (close, nameEnd) = quickStartTag() {
            mark(pos)
            stageName((pos + 1)..<nameEnd)
            if !attributeBytes.isEmpty { attributeBytes.removeAll(keepingCapacity: true) }
            selfClosing = buffer[close - 1] == UInt8(ascii: "/")
            return try open(close: close)
        }
        let close = try tagEnd()
        mark(pos)
        var i = pos + 1
        let nameStart = i
        while i < close && isNameByte(buffer[i]) { i += 1 }
        guard i > nameStart else { throw error("a tag without a name") }
        let qname = nameStart..<i
        stageName(qname)
        if !attributes.isEmpty { attributes.removeAll(keepingCapacity: true) }
        if !attributeBytes.isEmpty { attributeBytes.removeAll(keepingCapacity: true) }
        selfClosing = buffer[close - 1] == UInt8(ascii: "/")
        let attributesEnd = selfClosing ? close - 1 : close
        while true {
            while i < attributesEnd && isSpace(buffer[i]) { i += 1 }
            if i >= attributesEnd { break }
            let an = i
            while i < attributesEnd && isNameByte(buffer[i]) { i += 1 }
            guard i > an else { throw error("malformed attribute in <\(name)>", at: i) }
            let attributeName = localName(an..<i)
            while i < attributesEnd && isSpace(buffer[i]) { i += 1 }
            guard i < attributesEnd, buffer[i] == UInt8(ascii: "=") else {
                throw error("attribute \(string(attributeName)) of <\(name)> has no value", at: i)
            }
            i += 1
            while i < attributesEnd && isSpace(buffer[i]) { i += 1 }
            guard i < attributesEnd, buffer[i] == UInt8(ascii: "\"") || buffer[i] == UInt8(ascii: "'") else {
                throw error("attribute \(string(attributeName)) of <\(name)> is not quoted", at: i)
            }
            let quote = buffer[i]
            i += 1
            let vs = i
            guard let ve = Self.firstIndex(of: quote, in: buffer, from: vs, to: attributesEnd) else {
                throw error("attribute \(string(attributeName)) of <\(name)> is not closed", at: vs)
            }
            i = ve
            if Self.firstIndex(of: UInt8(ascii: "&"), in: buffer, from: vs, to: ve) == nil {
                attributes.append(Attribute(name: attributeName, value: vs..<ve, decoded: false))
            } else {
                let valueStart = attributeBytes.count
                try decode(vs..<ve, intoText: false)
                attributes.append(Attribute(name: attributeName, value: valueStart..<attributeBytes.count, decoded: true))
            }
            i += 1
        }
        return try open(close: close)
    }

    /// Opens the element whose start tag (its name staged, its attributes read) ends at `close`.
    private mutating func open(close: Int) throws(TraceError) -> Token {
        if stackEnds.isEmpty {
            if sawRoot { throw error("a second root element") }
            sawRoot = true
        }
        guard stackEnds.count < maxDepth else { throw error("elements nested deeper than \(maxDepth)") }
        stackEnds.append(nameRange.upperBound)
        pos = close + 1
        if !text.isEmpty { text.removeAll(keepingCapacity: true) }
        if selfClosing { pendingEnd = true }
        return .start
    }

    /// The decoded value of the current start tag's attribute `name`.
    package func attribute(_ name: String) -> ArraySlice<UInt8>? {
        var key = name
        return key.withUTF8 { k -> ArraySlice<UInt8>? in
            buffer.withUnsafeBufferPointer { b -> ArraySlice<UInt8>? in
                guard let start = b.baseAddress, let keyStart = k.baseAddress else { return nil }
                for a in attributes where a.name.count == k.count && ByteSearch.equal(start + a.name.lowerBound, keyStart, count: k.count) {
                    return a.decoded ? attributeBytes[a.value] : buffer[a.value]
                }
                return nil
            }
        }
    }

    /// Calls `body` with the decoded value of the current start tag's attribute
    /// `name` where it lies (nil when the tag has no such attribute).
    func withAttribute<R>(_ name: StaticString, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        name.withUTF8Buffer { key in
            buffer.withUnsafeBufferPointer { b in
                attributeBytes.withUnsafeBufferPointer { decoded in
                    attributes.withUnsafeBufferPointer { list in
                        guard let start = b.baseAddress, let keyStart = key.baseAddress else { return body(nil) }
                        for a in list where a.name.count == key.count && ByteSearch.equal(start + a.name.lowerBound, keyStart, count: key.count) {
                            return body(UnsafeBufferPointer(rebasing: (a.decoded ? decoded : b)[a.value]))
                        }
                        return body(nil)
                    }
                }
            }
        }
    }

    /// The usual end tag at once, `</name>` (space before `>` allowed) all in the buffer:
    /// where it ends, or nil for anything else, which `tagEnd` then finds.
    private func quickTagEnd() -> Int? {
        let p = pos
        return buffer.withUnsafeBufferPointer { b -> Int? in
            let n = b.count
            var i = p + 2
            while i < n && Self.isNameByte(b[i]) { i += 1 }
            while i < n && isSpace(b[i]) { i += 1 }
            return i < n && b[i] == UInt8(ascii: ">") ? i : nil
        }
    }

    private mutating func endTag() throws(TraceError) -> Token {
        let close: Int
        if let quick = quickTagEnd() { close = quick } else { close = try tagEnd() }
        mark(pos)
        var nameEnd = close
        while nameEnd > pos + 2 && (buffer[nameEnd - 1] == 0x20 || buffer[nameEnd - 1] == 0x09 || buffer[nameEnd - 1] == 0x0A || buffer[nameEnd - 1] == 0x0D) {
            nameEnd -= 1
        }
        let qname = (pos + 2)..<nameEnd
        guard !stackEnds.isEmpty else { throw error("</\(string(qname))> closes nothing") }
        let open = openElement
        let matches = open.count == qname.count && stackBytes.withUnsafeBufferPointer { s in
            buffer.withUnsafeBufferPointer { b in
                guard let sp = s.baseAddress, let bp = b.baseAddress else { return open.isEmpty }
                return ByteSearch.equal(sp + open.lowerBound, bp + qname.lowerBound, count: open.count)
            }
        }
        guard matches else {
            throw error("</\(string(qname))> does not match <\(String(decoding: stackBytes[open], as: UTF8.self))>")
        }
        popElement()
        if stackEnds.isEmpty { finished = true }
        let local = localName(qname)
        nameRange = (open.lowerBound + local.lowerBound - qname.lowerBound)..<open.upperBound
        nameKey = Self.packedName(local, of: buffer)
        selfClosing = false
        pos = close + 1
        return .end
    }

    /// Reads the children of the element just opened, straight from the buffer,
    /// while each is a leaf written plainly: `<name>text</name>` (the end tag may
    /// have space before its `>`), no attributes, no entity or markup in the text,
    /// and only whitespace between one child and the next. `body` gets each child's
    /// packed local name (as ``nameKey``) and its text in the buffer, with `visitor`
    /// (passed through so that a caller can fill in one of its own fields), as if `.start`
    /// and `.end` had been read for it. When the open element's own end tag comes
    /// next, it is read as `.end` would read it (with ``nameKey`` set) and the
    /// result is true. At anything else (another kind of child, mixed text, a
    /// mismatched end tag, the end of the buffer) the scanner stops before it and
    /// the result is false: `next()` then reads on as usual, and reports any error.
    /// ``line`` and ``column`` stay those of the open element's start tag.
    mutating func readLeafChildren<Visitor>(into visitor: inout Visitor, _ body: (inout Visitor, UInt64, UnsafeBufferPointer<UInt8>) -> Void) -> Bool {
        guard !pendingEnd, let parent = stackEnds.last else { return false }
        let parentStart = stackEnds.count > 1 ? stackEnds[stackEnds.count - 2] : 0
        if !text.isEmpty { text.removeAll(keepingCapacity: true) }
        let leafDepthAllowed = stackEnds.count < maxDepth
        let p = pos
        let result: (next: Int, closed: Bool, nameKey: UInt64, local: Int) = buffer.withUnsafeBufferPointer { b in
            stackBytes.withUnsafeBufferPointer { s in
                guard let base = b.baseAddress, let stack = s.baseAddress else { return (p, false, 0, 0) }
                let n = b.count
                var i = p
                while true {
                    // Whitespace, then '<' and at least one byte after it.
                    var lt = i
                    while lt < n && isSpace(base[lt]) { lt += 1 }
                    guard lt + 1 < n, base[lt] == UInt8(ascii: "<") else { return (i, false, 0, 0) }
                    if base[lt + 1] == UInt8(ascii: "/") {
                        // The parent's end tag, if its name matches.
                        let count = parent - parentStart
                        let nameStart = lt + 2
                        guard n - nameStart > count, ByteSearch.equal(base + nameStart, stack + parentStart, count: count) else {
                            return (i, false, 0, 0)
                        }
                        var close = nameStart + count
                        while close < n && isSpace(base[close]) { close += 1 }
                        guard close < n, base[close] == UInt8(ascii: ">") else { return (i, false, 0, 0) }
                        let local = ByteSearch.localNameStart(base, from: nameStart, to: nameStart + count)
                        return (close + 1, true, ByteSearch.packedName(base + local, count: nameStart + count - local), local - nameStart)
                    }
                    guard leafDepthAllowed else { return (i, false, 0, 0) }
                    if let leaf = Self.quickLeaf(base, at: lt, count: n) {
                        body(&visitor, leaf.key, UnsafeBufferPointer(start: base + leaf.textStart, count: leaf.textEnd - leaf.textStart))
                        i = leaf.next
                        continue
                    }
                    // A child's start tag: a name, then '>' at once.
                    let nameStart = lt + 1
                    var j = nameStart
                    while j < n && Self.isNameByte(base[j]) && base[j] != UInt8(ascii: "!") && base[j] != UInt8(ascii: "?") { j += 1 }
                    guard j > nameStart, j < n, base[j] == UInt8(ascii: ">") else { return (i, false, 0, 0) }
                    let nameEnd = j
                    // Its text, up to the next '<', with no entity in it.
                    let textStart = j + 1
                    guard let textEnd = ByteSearch.firstIndex(ofEither: UInt8(ascii: "<"), UInt8(ascii: "&"), in: base, from: textStart, to: n),
                          base[textEnd] == UInt8(ascii: "<") else { return (i, false, 0, 0) }
                    // Its end tag, with the same name.
                    let count = nameEnd - nameStart
                    let endName = textEnd + 2
                    guard textEnd + 1 < n, base[textEnd + 1] == UInt8(ascii: "/"), n - endName > count,
                          ByteSearch.equal(base + endName, base + nameStart, count: count) else { return (i, false, 0, 0) }
                    var close = endName + count
                    while close < n && isSpace(base[close]) { close += 1 }
                    guard close < n, base[close] == UInt8(ascii: ">") else { return (i, false, 0, 0) }
                    let local = ByteSearch.localNameStart(base, from: nameStart, to: nameEnd)
                    body(&visitor, ByteSearch.packedName(base + local, count: nameEnd - local), UnsafeBufferPointer(start: base + textStart, count: textEnd - textStart))
                    i = close + 1
                }
            }
        }
        pos = result.next
        guard result.closed else { return false }
        popElement()
        if stackEnds.isEmpty { finished = true }
        nameRange = (parentStart + result.local)..<parent
        nameKey = result.nameKey
        selfClosing = false
        return true
    }

    /// The commonest leaf, `<name>text</name>` with a name of one to seven bytes
    /// that are letters (any byte from `A` on), read a word at a time: its packed
    /// name, where its text is, and the index after its end tag; nil for anything
    /// else (what this accepts, the byte-by-byte reading of `readLeafChildren`
    /// accepts alike).
    @inline(__always)
    private static func quickLeaf(_ base: UnsafePointer<UInt8>, at lt: Int, count n: Int) -> (key: UInt64, textStart: Int, textEnd: Int, next: Int)? {
        let ones = 0x0101_0101_0101_0101 as UInt64
        let raw = UnsafeRawPointer(base)
        guard lt + 9 <= n else { return nil }
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: lt + 1, as: UInt64.self))
        let closes = ByteSearch.zeroBytes(word ^ (UInt64(UInt8(ascii: ">")) &* ones))
        guard closes != 0 else { return nil }
        let length = closes.trailingZeroBitCount / 8
        guard length > 0 else { return nil }
        let mask = (1 as UInt64) << (8 * UInt64(length)) - 1
        let name = word & mask
        // Every name byte from 'A' (0x41) on: the bytes past the name are set to 'A' to pass.
        let padded = name | (0x4141_4141_4141_4141 & ~mask)
        guard (padded & 0x8080_8080_8080_8080) | ((padded &- 0x4141_4141_4141_4141) & ~padded & 0x8080_8080_8080_8080) == 0 || Self.allFromA(name, length) else { return nil }
        let textStart = lt + 2 + length
        guard let textEnd = ByteSearch.firstIndex(ofEither: UInt8(ascii: "<"), UInt8(ascii: "&"), in: base, from: textStart, to: n),
              base[textEnd] == UInt8(ascii: "<"), textEnd + 10 <= n, base[textEnd + 1] == UInt8(ascii: "/") else { return nil }
        let end = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: textEnd + 2, as: UInt64.self))
        guard end & mask == name, base[textEnd + 2 + length] == UInt8(ascii: ">") else { return nil }
        return (name, textStart, textEnd, textEnd + 3 + length)
    }

    /// Whether the `length` bytes packed in `name` are all from 'A' on (bytes
    /// from 0x80 on are UTF-8, name bytes too).
    private static func allFromA(_ name: UInt64, _ length: Int) -> Bool {
        for k in 0..<length where UInt8(truncatingIfNeeded: name >> (8 * UInt64(k))) < UInt8(ascii: "A") { return false }
        return true
    }

    var fileName: String { source.path }

    /// Nesting depth of the current position (the root element is depth 1).
    var depth: Int { stackEnds.count }
}

/// Searching and comparing the short runs of bytes a trace file is made of, without
/// a library call per run: eight bytes at a time, then `memchr` for a long run.
enum ByteSearch {
    /// Index of the first `byte` in `start[from..<to]`, or nil.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in start: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        var i = from
        let raw = UnsafeRawPointer(start)
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        // A byte equal to `byte` is a zero byte of `word ^ pattern`; the lowest flag the
        // "has a zero byte" test raises is the first such byte (words read little-endian).
        let stop = min(to, from + 64)
        while i + 8 <= stop {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ pattern
            let zeros = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            if zeros != 0 { return i + zeros.trailingZeroBitCount / 8 }
            i += 8
        }
        if i + 8 > to {
            while i < to {
                if start[i] == byte { return i }
                i += 1
            }
            return nil
        }
        guard let hit = memchr(start + i, Int32(byte), to - i) else { return nil }
        return UnsafeRawPointer(hit) - raw
    }

    /// Where the local part of the qualified name at `start[from..<to]` begins (after its last colon).
    @inline(__always)
    static func localNameStart(_ start: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var local = from
        for k in from..<to where start[k] == UInt8(ascii: ":") { local = k + 1 }
        return local
    }

    /// Index of the first `a` or `b` in `start[from..<to]`, or nil.
    @inline(__always)
    static func firstIndex(ofEither a: UInt8, _ b: UInt8, in start: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        let ones = 0x0101_0101_0101_0101 as UInt64
        let pa = UInt64(a) &* ones, pb = UInt64(b) &* ones
        let raw = UnsafeRawPointer(start)
        var i = from
        while i + 8 <= to {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let hits = zeroBytes(word ^ pa) | zeroBytes(word ^ pb)
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < to {
            if start[i] == a || start[i] == b { return i }
            i += 1
        }
        return nil
    }

    /// A flag (the byte's high bit) for every zero byte of `x`, exactly: no borrow
    /// runs from byte to byte, so the flags can be counted.
    @inline(__always)
    static func zeroBytes(_ x: UInt64) -> UInt64 {
        let low = 0x7F7F_7F7F_7F7F_7F7F as UInt64
        return ~(((x & low) &+ low) | x | low)
    }

    /// Index of the first of the bytes `a`, `b`, `c`, `d` in `start[from..<to]`, or nil.
    @inline(__always)
    static func firstIndex(ofAny a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, in start: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        let ones = 0x0101_0101_0101_0101 as UInt64
        let pa = UInt64(a) &* ones, pb = UInt64(b) &* ones, pc = UInt64(c) &* ones, pd = UInt64(d) &* ones
        let raw = UnsafeRawPointer(start)
        var i = from
        while i + 8 <= to {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let hits = zeroBytes(word ^ pa) | zeroBytes(word ^ pb) | zeroBytes(word ^ pc) | zeroBytes(word ^ pd)
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < to {
            let x = start[i]
            if x == a || x == b || x == c || x == d { return i }
            i += 1
        }
        return nil
    }

    /// How many line feeds `start[from..<to]` holds, and the index of the last (-1 if none).
    @inline(__always)
    static func lineBreaks(in start: UnsafePointer<UInt8>, from: Int, to: Int) -> (count: Int, last: Int) {
        let pattern = 0x0A0A_0A0A_0A0A_0A0A as UInt64
        let raw = UnsafeRawPointer(start)
        var count = 0, last = -1
        var i = from
        while i + 8 <= to {
            let flags = zeroBytes(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ pattern)
            if flags != 0 {
                count += flags.nonzeroBitCount
                last = i + (63 - flags.leadingZeroBitCount) / 8
            }
            i += 8
        }
        while i < to {
            if start[i] == 0x0A {
                count += 1
                last = i
            }
            i += 1
        }
        return (count, last)
    }

    /// The first eight bytes of a name packed little-endian into one integer, for
    /// telling known names apart at once; 0 for a name longer than eight bytes.
    @inline(__always)
    static func packedName(_ start: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        guard count <= 8 else { return 0 }
        var key: UInt64 = 0
        for k in 0..<count { key |= UInt64(start[k]) << (8 * UInt64(k)) }
        return key
    }

    /// Whether `count` bytes at `a` and at `b` are the same.
    @inline(__always)
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Bool {
        for k in 0..<count where a[k] != b[k] { return false }
        return true
    }
}
