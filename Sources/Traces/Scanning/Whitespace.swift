/// Whitespace in the bytes of a trace (space, tab, line feed, carriage return): the test, trimming, and blank fields.
@inline(__always) func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

/// Bytes as a string without surrounding whitespace.
func trimmedString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8, C.Index == Int {
    var start = bytes.startIndex, end = bytes.endIndex
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    return String(decoding: bytes[start..<end], as: UTF8.self)
}

/// Whether bytes are empty or whitespace only.
func isBlank<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
    bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
}
