/// JSON written straight into a reused buffer of bytes, a value at a time:
/// the same text as ``JSON`` gives for the same values (numbers, strings,
/// `null`), without building the value first. The replay's event lines are
/// written with it, one line after another into the same buffer.
///
/// Keys and punctuation are written as they are with ``raw(_:)``
/// (`raw("{\"type\":\"map\",\"t\":")`), values with ``number(_:)-(Double)``,
/// ``int(_:)``, ``string(_:)-(String)`` and the rest.
public struct JSONBytes: Sendable {
    /// The bytes written since the last ``removeAll()``.
    public private(set) var bytes: [UInt8]

    /// An empty buffer with room for `capacity` bytes.
    public init(capacity: Int = 4096) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its room.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// The bytes written, as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Text written as it is: keys, punctuation, literals.
    @inline(__always)
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// One byte as it is (a newline, a bracket).
    @inline(__always)
    public mutating func byte(_ b: UInt8) {
        bytes.append(b)
    }

    /// A number as ``JSON/number(_:)`` writes it: `null` when not finite, a
    /// whole number below 10^15 as an integer, else the shortest digits that
    /// read back to the same double (Swift's `description`, the common
    /// decimals written by ``ShortestDouble`` without making a String).
    public mutating func number(_ d: Double) {
        if !d.isFinite {
            raw("null")
        } else if d == d.rounded(), abs(d) < 1e15 {
            int(Int(d))
        } else {
            let written = withUnsafeTemporaryAllocation(byteCount: ShortestDouble.capacity, alignment: 8) { out -> Bool in
                guard let n = ShortestDouble.write(d, into: out) else { return false }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: out[..<n]))
                return true
            }
            if !written { bytes.append(contentsOf: d.description.utf8) }
        }
    }

    /// A number, or `null` for nil.
    public mutating func number(_ d: Double?) {
        if let d { number(d) } else { raw("null") }
    }

    /// An integer's decimal digits.
    public mutating func int(_ i: Int) {
        if i < 0 { bytes.append(UInt8(ascii: "-")) }
        var v = i.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var k = buffer.count
            repeat {
                k -= 1
                buffer[k] = UInt8(truncatingIfNeeded: v % 10) &+ 48
                v /= 10
            } while v > 0
            bytes.append(contentsOf: buffer[k...])
        }
    }

    /// `true` or `false`.
    public mutating func bool(_ b: Bool) {
        if b { raw("true") } else { raw("false") }
    }

    /// A JSON string as ``JSON/quote(_:into:)`` writes it: quotes, backslashes
    /// and control characters escaped, everything else as its UTF-8.
    public mutating func string(_ s: String) {
        var s = s
        // Most strings need no escape: copied in one go.
        let copied = s.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if !copied { JSON.quote(s, into: &bytes) }
    }

    /// A string, or `null` for nil.
    public mutating func string(_ s: String?) {
        if let s { string(s) } else { raw("null") }
    }

    /// An array, each item written by `element`.
    @inline(__always)
    public mutating func array<Item>(_ items: [Item], _ element: (inout JSONBytes, Item) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (k, item) in items.enumerated() {
            if k > 0 { bytes.append(UInt8(ascii: ",")) }
            element(&self, item)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An array of strings.
    public mutating func strings(_ items: [String]) {
        array(items) { $0.string($1) }
    }

    /// An array of numbers.
    public mutating func numbers(_ items: [Double]) {
        array(items) { $0.number($1) }
    }

    /// Any JSON value, as ``JSON/text`` writes it.
    public mutating func value(_ json: JSON) {
        json.write(to: &bytes)
    }

    /// A time as ``ISO8601Time/format(_:)`` writes it, quoted.
    public mutating func time(_ seconds: Double) {
        bytes.append(UInt8(ascii: "\""))
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ASCIIWriter.timeCapacity) { out in
            var writer = ASCIIWriter(out)
            writer.time(seconds)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: out[0..<writer.written]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
