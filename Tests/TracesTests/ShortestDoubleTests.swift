import Testing
@testable import Traces

/// ShortestDouble writes the bytes Swift's `description` writes, for every
/// double it takes, and takes every double JSON lines print most.
@Suite("Shortest round-trip digits, as description writes them")
struct ShortestDoubleTests {
    /// What ShortestDouble writes of `d`, or nil when it leaves `d` to description.
    func written(_ d: Double) -> String? {
        withUnsafeTemporaryAllocation(byteCount: ShortestDouble.capacity, alignment: 8) { out in
            ShortestDouble.write(d, into: out).map { String(decoding: UnsafeRawBufferPointer(rebasing: out[..<$0]), as: UTF8.self) }
        }
    }

    /// Whether description writes `d` as a decimal without an exponent and it is not whole.
    func decimalFraction(_ d: Double) -> Bool {
        d.isFinite && d != d.rounded() && !d.description.contains("e")
    }

    /// Checks `d` both ways: the same bytes as description when taken, and
    /// taken whenever description writes a fraction without an exponent.
    func check(_ d: Double, _ failures: inout [String]) {
        let mine = written(d)
        if let mine, mine != d.description {
            failures.append("\(d.bitPattern): \(mine) vs description \(d.description)")
        } else if mine == nil, decimalFraction(d), d.magnitude >= 1e-4 {
            failures.append("\(d.bitPattern): \(d.description) not taken")
        } else if mine != nil, !decimalFraction(d) {
            failures.append("\(d.bitPattern): taken, description \(d.description)")
        }
    }

    @Test("a million doubles of every bit pattern from 1e-5 to 2^54, both signs")
    func randomBitPatterns() {
        var rng = SeededGenerator(state: 0x5EED)
        var failures: [String] = []
        var taken = 0
        for _ in 0..<1_000_000 {
            let exponent = UInt64.random(in: 1006...1077, using: &rng)   // 2^-17 ... 2^54
            let bits = (rng.next() & (1 << 63)) | (exponent << 52) | (rng.next() & ((1 << 52) - 1))
            let d = Double(bitPattern: bits)
            check(d, &failures)
            if written(d) != nil { taken += 1 }
            if failures.count > 10 { break }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(taken > 800_000, "only \(taken) of a million taken")
    }

    @Test("short decimals, the coordinates, distances and accuracies traces hold: n / 10^k")
    func shortDecimals() {
        var rng = SeededGenerator(state: 27)
        var failures: [String] = []
        for _ in 0..<300_000 {
            let k = Int.random(in: 1...17, using: &rng)
            var scale = 1.0
            for _ in 0..<k { scale *= 10 }
            let n = Double(Int64.random(in: -999_999_999_999...999_999_999_999, using: &rng) % Int64(min(scale * 1000, 1e15)))
            check(n / scale, &failures)
            check(53.4 + Double.random(in: 0..<0.1, using: &rng), &failures)
            check(-2.97 - Double.random(in: 0..<0.1, using: &rng), &failures)
            if failures.count > 10 { break }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("powers of two (the narrower gap below them), their neighbours, and the edges of the range")
    func edges() {
        var failures: [String] = []
        var p = 1.0 / 65536
        while p < 9.1e15 {
            for d in [p, p.nextUp, p.nextDown, p * 1.5, -p, -p.nextDown] { check(d, &failures) }
            p *= 2
        }
        for d in [1e-4, 1e-4.nextUp, 1e-4.nextDown, 0.001, 0.1, 0.2, 0.3, 0.5, 1.5, 2.5, 0.1 + 0.2, 1.0 / 3,
                  9_007_199_254_740_991.5.nextDown, 4_503_599_627_370_495.5, 1e15 + 0.5, 123_456_789_012.345_67,
                  -5300.116628007168, 441.34316399525056, 53.4071481, -2.9795275] {
            check(d, &failures)
        }
        #expect(failures.isEmpty, "\(failures)")
        // Whole numbers, infinities, NaN and tiny values are left to description.
        for d in [0.0, -0.0, 1.0, 1e15, 9_007_199_254_740_992, .infinity, .nan, 1e-5, .leastNonzeroMagnitude, 2.2250738585072014e-308] {
            #expect(written(d) == nil, "\(d)")
        }
    }

    @Test("the table is 5^m shifted to bit 62")
    func table() {
        var five: UInt64 = 1
        for m in 0...22 {
            let shifted = five << UInt64(five.leadingZeroBitCount - 1)
            #expect(ShortestDouble.powersOfFive[m] == shifted, "m = \(m)")
            five *= 5
        }
    }

    @Test("digit counts at every power of ten and either side of it")
    func digitCounts() {
        var p: UInt64 = 1
        for n in 1...19 {
            #expect(ShortestDouble.digitCount(p) == n, "\(p)")
            if p > 1 { #expect(ShortestDouble.digitCount(p - 1) == n - 1, "\(p - 1)") }
            #expect(ShortestDouble.digitCount(p + 1) == (p == 1 ? 1 : n), "\(p + 1)")
            p = p &* 10
        }
        #expect(ShortestDouble.digitCount(0) == 1)
        #expect(ShortestDouble.digitCount(.max) == 20)
    }

    @Test("JSON text and JSONBytes write numbers the same way")
    func jsonAgrees() {
        var rng = SeededGenerator(state: 3)
        for _ in 0..<10_000 {
            let d = Double(bitPattern: rng.next())
            var bytes = JSONBytes()
            bytes.number(d)
            #expect(bytes.text == JSON.number(d).text, "\(d.bitPattern)")
            let plain: String = !d.isFinite ? "null" : (d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : d.description)
            #expect(bytes.text == plain, "\(d.bitPattern)")
        }
    }
}
