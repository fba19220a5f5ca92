/// XMLScanner's fast path for an element's plain leaf children (`<name>text</name>`), read straight from the buffer.
extension XMLScanner {
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
}
