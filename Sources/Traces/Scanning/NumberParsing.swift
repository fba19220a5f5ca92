/// A decimal number from bytes (surrounding whitespace allowed); nil when
/// the text is not plain decimal notation: no "nan", "inf" or hexadecimal.
/// Typical coordinates take the exact fast path (at most 19 digits making an
/// integer of at most 2^53, and a power of ten within 10^±22: one correctly
/// rounded operation on exact operands, Clinger's fast path); anything else goes
/// to the standard library's correctly rounded parser, so every result is what
/// `Double(String)` gives.
func parseNumber<C: Collection>(_ bytes: C) -> Double? where C.Element == UInt8 {
    if let parsed = bytes.withContiguousStorageIfAvailable({ parseNumber(buffer: $0) }) { return parsed }
    return Array(bytes).withUnsafeBufferPointer { parseNumber(buffer: $0) }
}

func parseNumber(buffer bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    parseNumber(in: bytes, from: 0, to: bytes.count)
}

/// The number in `bytes[from..<to]` (as ``parseNumber(buffer:)``), whose digits may
/// be read eight at a time up to the end of `bytes`, past `to`.
func parseNumber(in bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Double? {
    var start = from, end = to
    guard start >= 0, end <= bytes.count else { return nil }
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    guard start < end else { return nil }
    var i = start
    var negative = false
    if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
        negative = bytes[i] == UInt8(ascii: "-")
        i += 1
    }
    // All the digits into one integer (it wraps past 19 digits, and is then not used).
    var mantissa: UInt64 = 0
    let integerDigits = accumulateDigits(bytes, &i, end, &mantissa)
    var fractionDigits = 0
    if i < end, bytes[i] == UInt8(ascii: ".") {
        i += 1
        fractionDigits = accumulateDigits(bytes, &i, end, &mantissa)
    }
    guard integerDigits + fractionDigits > 0 else { return nil }
    var exponent = 0
    if i < end {
        guard bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") else { return nil }
        i += 1
        var expNegative = false
        if i < end, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            expNegative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var expDigits = 0
        while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            exponent = min(exponent * 10 + Int(bytes[i] - 0x30), 100_000)
            expDigits += 1
            i += 1
        }
        guard expDigits > 0, i == end else { return nil }
        if expNegative { exponent = -exponent }
    }
    let scale = exponent - fractionDigits
    if integerDigits + fractionDigits <= 19 && mantissa <= 1 << 53 && scale >= -22 && scale <= 22 {
        // Both operands are exact (the integer is at most 2^53; 10^22 is exact too), so the
        // one operation rounds correctly: the value `Double(String)` gives.
        var value = Double(mantissa)
        value = scale < 0 ? value / exactPowerOfTen(-scale) : value * exactPowerOfTen(scale)
        return negative ? -value : value
    }
    return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
}

/// Reads the decimal digits at `i` on (before `end`) into `mantissa`, wrapping;
/// returns how many there were.
@inline(__always)
private func accumulateDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int, _ mantissa: inout UInt64) -> Int {
    let start = i
    if let base = bytes.baseAddress {
        // Eight bytes at a time while they are in the buffer (they may run past `end`): the
        // digits before the first other byte, however many, at once and without a branch on
        // their count (the usual field has fewer than eight). What is left near the buffer's
        // end is read below.
        while i < end, i + 8 <= bytes.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let digits = word &- 0x3030_3030_3030_3030
            // A byte below '0' sets its high bit in `digits`, one above '9' in `word + 0x46`; only
            // the lowest flag is used, and no borrow or carry reaches it from the digits below.
            let other = ((word &+ 0x4646_4646_4646_4646) | digits) & 0x8080_8080_8080_8080
            let n = min(other.trailingZeroBitCount / 8, end - i)
            guard n > 0 else { break }
            // The n digits moved to the top, zeros (leading zero digits) below them.
            mantissa = mantissa &* powerOfTen(n) &+ eightDigits(digits << UInt64(64 - 8 * n))
            i += n
            if n < 8 { return i - start }
        }
    }
    if let base = bytes.baseAddress {
        // Four at a time while four digits follow (read as one little-endian word).
        while i + 4 <= end {
            let word = UInt32(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self))
            let digits = word &- 0x3030_3030
            // A byte below '0' sets its high bit in `digits`, one above '9' in `word + 0x46`.
            guard ((word &+ 0x4646_4646) | digits) & 0x8080_8080 == 0 else { break }
            let pairs = (digits &* 10 &+ (digits >> 8)) & 0x00FF_00FF
            let four = (pairs &* 100 &+ (pairs >> 16)) & 0xFFFF
            mantissa = mantissa &* 10_000 &+ UInt64(four)
            i += 4
        }
    }
    while i < end {
        let d = bytes[i] &- 0x30
        guard d <= 9 else { break }
        mantissa = mantissa &* 10 &+ UInt64(d)
        i += 1
    }
    return i - start
}

/// The number eight digit values make, the first in the lowest byte.
@inline(__always)
private func eightDigits(_ digits: UInt64) -> UInt64 {
    let pairs = digits &* 10 &+ (digits >> 8)
    let low = (pairs & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 << 32))
    let high = ((pairs >> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 << 32))
    return ((low &+ high) >> 32) & 0xFFFF_FFFF
}

/// 10^n for n in 1...8.
@inline(__always)
private func powerOfTen(_ n: Int) -> UInt64 {
    switch n {
    case 1: 10
    case 2: 100
    case 3: 1000
    case 4: 10000
    case 5: 100_000
    case 6: 1_000_000
    case 7: 10_000_000
    default: 100_000_000
    }
}

/// 10^n for n in 0...22, every one exactly representable.
@inline(__always)
private func exactPowerOfTen(_ n: Int) -> Double {
    switch n {
    case 0: 1e0
    case 1: 1e1
    case 2: 1e2
    case 3: 1e3
    case 4: 1e4
    case 5: 1e5
    case 6: 1e6
    case 7: 1e7
    case 8: 1e8
    case 9: 1e9
    case 10: 1e10
    case 11: 1e11
    case 12: 1e12
    case 13: 1e13
    case 14: 1e14
    case 15: 1e15
    case 16: 1e16
    case 17: 1e17
    case 18: 1e18
    case 19: 1e19
    case 20: 1e20
    case 21: 1e21
    default: 1e22
    }
}
