/// XMLScanner's start and end tags: qualified and local names, attributes, and the elements they open and close.
extension XMLScanner {
    @inline(__always)
    private func isNameByte(_ c: UInt8) -> Bool { Self.isNameByte(c) }

    @inline(__always)
    static func isNameByte(_ c: UInt8) -> Bool {
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

    mutating func startTag() throws(TraceError) -> Token {
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

    mutating func endTag() throws(TraceError) -> Token {
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
}
