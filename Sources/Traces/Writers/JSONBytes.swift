/// JSON written straight into a reused buffer of bytes, a value at a time:
/// the same text as ``JSON`` gives for the same values (numbers, strings,
/// `null`), without building the value first. The replay's event lines are
/// written with it, one line after another into the same buffer.
///
/// Keys and punctuation are written as they are with ``raw(_:)``
/// (`raw("{\"type\":\"map\",\"t\":")`), values with ``number(_:)-(Double)``,
/// ``int(_:)``, ``string(_:)-(String)`` and the rest.
public struct JSONBytes: Sendable {
    /// Room for the lines, `count` of it written: the bytes past it are room,
    /// so that a value is written in place, with no append per byte.
    private var storage: [UInt8]
    /// How many bytes are written.
    public private(set) var count = 0

    /// The bytes written since the last ``removeAll()`` (a copy: to write them
    /// out, ``withUnsafeBytes(_:)`` lends them without one).
    public var bytes: [UInt8] { Array(storage[..<count]) }

    /// An empty buffer with room for `capacity` bytes.
    public init(capacity: Int = 4096) {
        storage = [UInt8](repeating: 0, count: max(capacity, 64))
    }

    /// Empties the buffer, keeping its room.
    public mutating func removeAll() {
        count = 0
    }

    /// The bytes written, as text.
    public var text: String { String(decoding: storage[..<count], as: UTF8.self) }

    /// Lends the bytes written.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Room for `n` more bytes.
    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if count + n > storage.count {
            storage.append(contentsOf: repeatElement(0, count: max(storage.count, n)))
        }
    }

    /// Writes at most `most` bytes in place with `body`, which returns how many it wrote.
    @inline(__always)
    private mutating func put(most: Int, _ body: (UnsafeMutableRawBufferPointer) -> Int) {
        reserve(most)
        let at = count
        count += storage.withUnsafeMutableBytes { body(UnsafeMutableRawBufferPointer(rebasing: $0[at..<(at + most)])) }
    }

    /// Appends bytes as they are.
    @inline(__always)
    private mutating func append(_ source: UnsafeRawBufferPointer) {
        guard let base = source.baseAddress, source.count > 0 else { return }
        put(most: source.count) { out in
            out.baseAddress.map { $0.copyMemory(from: base, byteCount: source.count) }
            return source.count
        }
    }

    /// Text written as it is: keys, punctuation, literals.
    @inline(__always)
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    /// One byte as it is (a newline, a bracket).
    @inline(__always)
    public mutating func byte(_ b: UInt8) {
        reserve(1)
        storage[count] = b
        count += 1
    }

    /// A number as ``JSON/number(_:)`` writes it: `null` when not finite, a
    /// whole number below 10^15 as an integer, else the shortest digits that
    /// read back to the same double (Swift's `description`, the common
    /// decimals written by ``ShortestDouble`` in place, without making a String).
    public mutating func number(_ d: Double) {
        put(most: Self.numberCapacity) { Self.write(number: d, into: $0) }
    }

    /// The most bytes a number takes (``number(_:)-(Double)``).
    public static let numberCapacity = 32

    /// `d` as ``number(_:)-(Double)`` writes it, into `out` (``numberCapacity`` bytes); the bytes written.
    @inline(__always)
    static func write(number d: Double, into out: UnsafeMutableRawBufferPointer) -> Int {
        if !d.isFinite {
            return write(literal: "null", into: out)
        } else if d == d.rounded(), abs(d) < 1e15 {
            return write(int: Int(d), into: out)
        } else if let n = ShortestDouble.write(d, into: out) {
            return n
        }
        // Beyond the common decimals (exponents): Swift's own text, at most 24 bytes.
        var text = d.description
        return text.withUTF8 { utf8 in
            guard let from = utf8.baseAddress, let to = out.baseAddress else { return 0 }
            to.copyMemory(from: from, byteCount: utf8.count)
            return utf8.count
        }
    }

    /// `i`'s decimal digits into `out` (20 bytes); the bytes written.
    @inline(__always)
    static func write(int i: Int, into out: UnsafeMutableRawBufferPointer) -> Int {
        var n = 0
        if i < 0 {
            out[0] = UInt8(ascii: "-")
            n = 1
        }
        let v = UInt64(i.magnitude)
        let digits = ShortestDouble.digitCount(v)
        ShortestDouble.writeDigits(v, count: digits, at: n, into: out)
        return n + digits
    }

    /// `text` as it is into `out`; the bytes written.
    @inline(__always)
    static func write(literal text: StaticString, into out: UnsafeMutableRawBufferPointer) -> Int {
        if let to = out.baseAddress { to.copyMemory(from: text.utf8Start, byteCount: text.utf8CodeUnitCount) }
        return text.utf8CodeUnitCount
    }

    /// Writes at most `most` bytes with `body` through a ``Writer``, which
    /// checks no room: for a line of known parts (keys, punctuation, numbers,
    /// integers) written without a check of room per value.
    @inline(__always)
    public mutating func write(most: Int, _ body: (inout Writer) -> Void) {
        put(most: most) { out in
            var writer = Writer(out: out)
            body(&writer)
            return writer.count
        }
    }

    /// Values written into room already reserved (``write(most:_:)``), as
    /// ``JSONBytes`` writes them. Each value checks, by one comparison, that
    /// the room left holds the most it can take (a number
    /// ``JSONBytes/numberCapacity`` bytes, an integer 20): a line that asked
    /// for too little room stops there, and nothing is written past it.
    public struct Writer: ~Copyable {
        let out: UnsafeMutableRawBufferPointer
        /// Bytes written.
        public private(set) var count = 0

        init(out: UnsafeMutableRawBufferPointer) {
            self.out = out
        }

        private var rest: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(rebasing: out[count...]) }

        /// Keys, punctuation, literals, as they are.
        @inline(__always)
        public mutating func raw(_ text: StaticString) {
            room(text.utf8CodeUnitCount)
            count += JSONBytes.write(literal: text, into: rest)
        }

        /// A number as ``JSONBytes/number(_:)-(Double)`` writes it (``JSONBytes/numberCapacity`` bytes at most).
        @inline(__always)
        public mutating func number(_ d: Double) {
            room(JSONBytes.numberCapacity)
            count += JSONBytes.write(number: d, into: rest)
        }

        /// An integer's decimal digits (20 bytes at most).
        @inline(__always)
        public mutating func int(_ i: Int) {
            room(20)
            count += JSONBytes.write(int: i, into: rest)
        }

        /// One byte.
        @inline(__always)
        public mutating func byte(_ b: UInt8) {
            room(1)
            out[count] = b
            count += 1
        }

        @inline(__always)
        private func room(_ n: Int) {
            precondition(count + n <= out.count, "a line longer than the room asked for")
        }
    }

    /// A number, or `null` for nil.
    public mutating func number(_ d: Double?) {
        if let d { number(d) } else { raw("null") }
    }

    /// An integer's decimal digits.
    public mutating func int(_ i: Int) {
        put(most: 20) { Self.write(int: i, into: $0) }
    }

    /// `true` or `false`.
    public mutating func bool(_ b: Bool) {
        if b { raw("true") } else { raw("false") }
    }

    /// A JSON string as ``JSON/quote(_:into:)`` writes it: quotes, backslashes
    /// and control characters escaped, everything else as its UTF-8.
    public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { string(utf8: $0) }
    }

    /// A JSON string of the UTF-8 `utf8`, as ``string(_:)-(String)`` writes it.
    public mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        // Every byte looked at, without an early exit: the loop is vectorised.
        var escape: UInt8 = 0
        for b in utf8 { escape |= (b < 0x20 ? 1 : 0) | (b == UInt8(ascii: "\"") ? 1 : 0) | (b == UInt8(ascii: "\\") ? 1 : 0) }
        // Most strings need no escape: copied in one go.
        if escape == 0 {
            put(most: utf8.count + 2) { out in
                out[0] = UInt8(ascii: "\"")
                if let base = utf8.baseAddress, let to = out.baseAddress { (to + 1).copyMemory(from: base, byteCount: utf8.count) }
                out[utf8.count + 1] = UInt8(ascii: "\"")
                return utf8.count + 2
            }
        } else {
            var quoted: [UInt8] = []
            JSON.quote(String(decoding: utf8, as: UTF8.self), into: &quoted)
            quoted.withUnsafeBytes { append($0) }
        }
    }

    /// A string, or `null` for nil.
    public mutating func string(_ s: String?) {
        if let s { string(s) } else { raw("null") }
    }

    /// An array, each item written by `element`.
    @inline(__always)
    public mutating func array<Item>(_ items: [Item], _ element: (inout JSONBytes, Item) -> Void) {
        byte(UInt8(ascii: "["))
        for (k, item) in items.enumerated() {
            if k > 0 { byte(UInt8(ascii: ",")) }
            element(&self, item)
        }
        byte(UInt8(ascii: "]"))
    }

    /// An array of strings.
    public mutating func strings(_ items: [String]) {
        array(items) { $0.string($1) }
    }

    /// An array of strings picked from a table of UTF-8 strings kept back to
    /// back (string `k` is `utf8[starts[k]..<starts[k + 1]]`): string
    /// `offset + p` for each `p` in `picks`. The same text as ``strings(_:)``
    /// of those strings, copied from the table without making a `String`.
    public mutating func strings(picking picks: UnsafeBufferPointer<UInt32>, offset: Int = 0,
                                 from utf8: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>) {
        byte(UInt8(ascii: "["))
        for (k, p) in picks.enumerated() {
            if k > 0 { byte(UInt8(ascii: ",")) }
            let s = offset + Int(p)
            string(utf8: UnsafeBufferPointer(rebasing: utf8[Int(starts[s])..<Int(starts[s + 1])]))
        }
        byte(UInt8(ascii: "]"))
    }

    /// ``strings(picking:offset:from:starts:)`` for a table none of whose
    /// strings needs an escape (no control character, quotation mark or
    /// backslash) or is longer than `longest` bytes, with at least 8 bytes
    /// after its last string: each string copied in whole 8-byte words.
    public mutating func plainStrings(picking picks: UnsafeBufferPointer<UInt32>, offset: Int = 0, longest: Int,
                                      from utf8: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>) {
        precondition(utf8.count >= Int(starts[starts.count - 1]) + 8, "8 bytes after the last string")
        // Each string's quotes and comma, the brackets, and a word's overrun past the last.
        reserve(picks.count * (longest + 3) + 2 + 8)
        let at = count
        count += storage.withUnsafeMutableBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress, let source = utf8.baseAddress else { return 0 }
            var out = base + at
            out.pointee = UInt8(ascii: "[")
            out += 1
            for p in picks {
                let s = offset + Int(p)
                let start = Int(starts[s]), length = Int(starts[s + 1] &- starts[s])
                out.pointee = UInt8(ascii: "\"")
                // Whole words: the bytes past the string are overwritten by what comes next.
                let from = UnsafeRawPointer(source + start), to = UnsafeMutableRawPointer(out + 1)
                var i = 0
                while i < length {
                    to.storeBytes(of: from.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
                    i += 8
                }
                out[length + 1] = UInt8(ascii: "\"")
                out[length + 2] = UInt8(ascii: ",")
                out += length + 3
            }
            if !picks.isEmpty { out -= 1 }
            out.pointee = UInt8(ascii: "]")
            return out + 1 - (base + at)
        }
    }

    /// String `k` of a table of UTF-8 strings kept back to back (as
    /// ``strings(picking:offset:from:starts:)`` reads it), or `null` for a negative `k`.
    public mutating func string(picking k: Int, from utf8: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>) {
        guard k >= 0 else { return raw("null") }
        string(utf8: UnsafeBufferPointer(rebasing: utf8[Int(starts[k])..<Int(starts[k + 1])]))
    }

    /// An array of numbers.
    public mutating func numbers(_ items: [Double]) {
        // Room for every number and its comma at once: no check of room per number.
        write(most: items.count * (Self.numberCapacity + 1) + 2) { w in
            w.byte(UInt8(ascii: "["))
            for (k, d) in items.enumerated() {
                if k > 0 { w.byte(UInt8(ascii: ",")) }
                w.number(d)
            }
            w.byte(UInt8(ascii: "]"))
        }
    }

    /// Any JSON value, as ``JSON/text`` writes it.
    public mutating func value(_ json: JSON) {
        var text: [UInt8] = []
        json.write(to: &text)
        text.withUnsafeBytes { append($0) }
    }

    /// A time as ``ISO8601Time/format(_:)`` writes it, quoted.
    public mutating func time(_ seconds: Double) {
        put(most: ASCIIWriter.timeCapacity + 2) { out in
            out[0] = UInt8(ascii: "\"")
            let room = UnsafeMutableBufferPointer(rebasing: out.bindMemory(to: UInt8.self)[1...ASCIIWriter.timeCapacity])
            var writer = ASCIIWriter(room)
            writer.time(seconds)
            out[writer.written + 1] = UInt8(ascii: "\"")
            return writer.written + 2
        }
    }
}
