import Foundation

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
