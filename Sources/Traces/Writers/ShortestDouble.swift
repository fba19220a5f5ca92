/// The shortest decimal digits that read back to a double, the digits Swift's
/// `description` prints, found without building a `String`: R. Giulietti's
/// Schubfach method ("The Schubfach way to render doubles", 2020; the method
/// behind Java's `Double.toString` since JDK 19). Of all decimals in the
/// double's rounding interval it picks one with the fewest digits, and of
/// those the closest (the even one on a tie), as Swift's `description` does.
///
/// Only the decimals JSON lines carry most, the non-integers from 0.0001 up
/// to 2^53 that `description` writes without an exponent, take this path;
/// ``decimal(_:)`` answers nil for the rest, which keep `description`.
/// `ShortestDoubleTests` holds the two to the same bytes over millions of
/// doubles.
public enum ShortestDouble {
    /// The most bytes ``write(_:into:)`` writes: a sign, 17 digits, a point
    /// and three zeros after it.
    public static let capacity = 24

    /// The digits and power of ten of `v`'s shortest decimal, `digits × 10^exponent`
    /// with no trailing zero in `digits`; nil unless `v` is finite, not whole,
    /// and `description` would write it without an exponent.
    public static func decimal(_ v: Double) -> (digits: UInt64, exponent: Int)? {
        shortest(v).map { ($0.digits, $0.exponent) }
    }

    /// ``decimal(_:)`` with the number of digits.
    @inline(__always)
    static func shortest(_ v: Double) -> (digits: UInt64, exponent: Int, count: Int)? {
        let bits = v.magnitude.bitPattern
        let biased = Int(truncatingIfNeeded: bits >> 52)
        let fraction = bits & ((1 << 52) - 1)
        // Normal doubles below 2^53 (above it every double is whole).
        guard biased > 0, biased < 1075 else { return nil }
        let c = (1 << 52) | fraction
        let q = biased - 1075
        // A whole number: description writes it with ".0", JSON as an integer.
        if -q < 53, c & ((1 << UInt64(-q)) - 1) == 0 { return nil }
        let out: UInt64 = c & 1
        let cb = c << 2
        let cbr = cb + 2
        let cbl: UInt64
        let k: Int
        if fraction != 0 || biased == 1 {
            cbl = cb - 2
            k = (q * 661_971_961_083) >> 41              // floor(log10(2^q))
        } else {
            cbl = cb - 1                                  // the gap below a power of two is half
            k = (q * 661_971_961_083 - 274_743_187_321) >> 41  // floor(log10(3/4 · 2^q))
        }
        let m = -k
        guard m >= 0, m < powersOfFive.count else { return nil }
        let h = q + ((m * 913_124_641_741) >> 38) + 2       // q + floor(log2(10^m)) + 2, in 1...4
        let g1 = powersOfFive[m]
        let vb = roundedProduct(g1, cb << UInt64(h))
        let vbl = roundedProduct(g1, cbl << UInt64(h))
        let vbr = roundedProduct(g1, cbr << UInt64(h))
        let s = vb >> 2
        var digits: UInt64
        var exponent = k
        if s >= 100, let shorter = oneDigitFewer(s, vbl: vbl, vbr: vbr, out: out) {
            digits = shorter
        } else {
            let t = s + 1
            let uin = vbl + out <= s << 2
            let win = (t << 2) + out <= vbr
            if uin != win {
                digits = uin ? s : t
            } else {
                // Both in the interval: the closer one, the even one on a tie.
                let cmp = Int64(bitPattern: vb &- ((s + t) << 1))
                digits = cmp < 0 || (cmp == 0 && s & 1 == 0) ? s : t
            }
        }
        while digits % 10 == 0 {
            digits /= 10
            exponent += 1
        }
        // description writes 0.0001 as such and 0.00001 as 1e-05.
        let count = digitCount(digits)
        guard count + exponent >= -3 else { return nil }
        return (digits, exponent, count)
    }

    /// Writes `v` as `description` does, if ``decimal(_:)`` takes it, into
    /// `out` (at least ``capacity`` bytes); the bytes written, or nil.
    @inline(__always)
    public static func write(_ v: Double, into out: UnsafeMutableRawBufferPointer) -> Int? {
        guard let (digits, exponent, count) = shortest(v) else { return nil }
        var n = 0
        if v < 0 {
            out[0] = UInt8(ascii: "-")
            n = 1
        }
        let point = count + exponent        // digits before the point; exponent < 0
        if point <= 0 {
            out[n] = UInt8(ascii: "0")
            out[n + 1] = UInt8(ascii: ".")
            n += 2
            for _ in 0 ..< -point {
                out[n] = UInt8(ascii: "0")
                n += 1
            }
            writeDigits(digits, count: count, at: n, into: out)
            return n + count
        }
        // The digits with the point after the first `point` of them: the
        // fraction's digits written one place to the right.
        // All the digits one place right, then the whole part moved back
        // over the gap and the point put in it (no division by 10^fraction).
        writeDigits(digits, count: count, at: n + 1, into: out)
        for k in n..<(n + point) { out[k] = out[k + 1] }
        out[n + point] = UInt8(ascii: ".")
        return n + count + 1
    }

    /// "00" to "99": two digits a step.
    private static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// `value`'s last `count` decimal digits, with leading zeros, at `start`:
    /// eight at a time from the right, each eight as four pairs found
    /// independently of one another (three dependent divisions for eight
    /// digits, where a pair at a time takes four), the rest a pair at a time.
    @inline(__always)
    static func writeDigits(_ value: UInt64, count: Int, at start: Int, into out: UnsafeMutableRawBufferPointer) {
        var v = value
        var k = start + count
        while k - start > 8 {
            let (q, r) = v.quotientAndRemainder(dividingBy: 100_000_000)
            v = q
            k -= 8
            writeEight(r, at: k, into: out)
        }
        while k - start >= 2 {
            let (q, r) = v.quotientAndRemainder(dividingBy: 100)
            v = q
            k -= 2
            writePair(r, at: k, into: out)
        }
        if k > start {
            out[start] = UInt8(truncatingIfNeeded: v % 10) &+ 48
        }
    }

    /// The eight decimal digits of `v` (below 10^8) at `k`.
    @inline(__always)
    private static func writeEight(_ v: UInt64, at k: Int, into out: UnsafeMutableRawBufferPointer) {
        let (high, low) = v.quotientAndRemainder(dividingBy: 10_000)
        let (a, b) = high.quotientAndRemainder(dividingBy: 100)
        let (c, d) = low.quotientAndRemainder(dividingBy: 100)
        writePair(a, at: k, into: out)
        writePair(b, at: k + 2, into: out)
        writePair(c, at: k + 4, into: out)
        writePair(d, at: k + 6, into: out)
    }

    /// The two decimal digits of `r` (below 100) at `k`, in one store.
    @inline(__always)
    private static func writePair(_ r: UInt64, at k: Int, into out: UnsafeMutableRawBufferPointer) {
        let pair = UnsafeRawPointer(pairs.utf8Start).loadUnaligned(fromByteOffset: Int(r) * 2, as: UInt16.self)
        out.storeBytes(of: pair, toByteOffset: k, as: UInt16.self)
    }

    /// The number of decimal digits of `v` (1 for 0).
    @inline(__always)
    static func digitCount(_ v: UInt64) -> Int {
        // log10(2) ≈ 1233 / 4096: the count from the bit length, one less at most.
        let guess = ((64 - v.leadingZeroBitCount) * 1233) >> 12
        return guess + (guess < powersOfTen.count && v >= powersOfTen[guess] ? 1 : 0) + (v == 0 ? 1 : 0)
    }

    /// 10^0 ... 10^19.
    static let powersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000,
        10_000_000_000_000_000_000,
    ]

    /// s rounded down to a multiple of ten, or up to the next: the one in the
    /// interval, when exactly one of them is.
    @inline(__always)
    private static func oneDigitFewer(_ s: UInt64, vbl: UInt64, vbr: UInt64, out: UInt64) -> UInt64? {
        let sp10 = 10 * (s / 10)
        let tp10 = sp10 + 10
        let upin = vbl + out <= sp10 << 2
        let wpin = (tp10 << 2) + out <= vbr
        return upin != wpin ? (upin ? sp10 : tp10) : nil
    }

    /// `g · cp / 2^127`, rounded to odd (the lowest bit set when anything
    /// was dropped), for g = g1 · 2^63 + 1, the table's 126-bit upper
    /// bound of 10^m.
    @inline(__always)
    private static func roundedProduct(_ g1: UInt64, _ cp: UInt64) -> UInt64 {
        // g0 = 1 adds cp / 2^64 to the low word: nothing, cp < 2^59.
        let y = g1.multipliedFullWidth(by: cp)
        let z = y.low >> 1
        let vbp = y.high &+ (z >> 63)
        let mask63: UInt64 = (1 << 63) - 1
        return vbp | (((z & mask63) &+ mask63) >> 63)
    }

    /// The upper 63 bits of ⌊10^m · 2^(125 − ⌊log2 10^m⌋)⌋ + 1 for m in
    /// 0...22: 10^m = 5^m · 2^m is exact in 126 bits, so each is 5^m shifted
    /// to bit 62 and the lower half is 1 (`ShortestDoubleTests` recomputes them).
    static let powersOfFive: [UInt64] = [
        0x4000_0000_0000_0000, 0x5000_0000_0000_0000, 0x6400_0000_0000_0000, 0x7D00_0000_0000_0000,
        0x4E20_0000_0000_0000, 0x61A8_0000_0000_0000, 0x7A12_0000_0000_0000, 0x4C4B_4000_0000_0000,
        0x5F5E_1000_0000_0000, 0x7735_9400_0000_0000, 0x4A81_7C80_0000_0000, 0x5D21_DBA0_0000_0000,
        0x746A_5288_0000_0000, 0x48C2_7395_0000_0000, 0x5AF3_107A_4000_0000, 0x71AF_D498_D000_0000,
        0x470D_E4DF_8200_0000, 0x58D1_5E17_6280_0000, 0x6F05_B59D_3B20_0000, 0x4563_9182_44F4_0000,
        0x56BC_75E2_D631_0000, 0x6C6B_935B_8BBD_4000, 0x43C3_3C19_3756_4800,
    ]
}
