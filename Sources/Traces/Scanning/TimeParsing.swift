import Foundation

/// ISO 8601 date-times as trace files write them, parsed from bytes.
public enum ISO8601Time {
    /// A parsed date-time: seconds since 1970 and whether a zone was given.
    public struct Parsed: Equatable, Sendable {
        /// Seconds since 1970-01-01T00:00:00Z.
        public var seconds: Double
        /// No zone was given; the time was read as UTC.
        public var zoneless: Bool
    }

    /// Parses `YYYY-MM-DD[T| ]hh:mm[:ss[.fff…]][Z|±hh[:mm]|±hhmm]`, or a plain date (midnight).
    public static func parse<C: Collection>(_ bytes: C) -> Parsed? where C.Element == UInt8 {
        if let parsed = bytes.withContiguousStorageIfAvailable({ parse(buffer: $0) }) { return parsed }
        return Array(bytes).withUnsafeBufferPointer { parse(buffer: $0) }
    }

    /// Reads fields left to right; a struct, not closures, so the hot path stays free of captured state.
    private struct Cursor {
        let b: UnsafeBufferPointer<UInt8>
        var i: Int
        var end: Int

        mutating func digits(_ n: Int) -> Int? {
            guard end - i >= n else { return nil }
            var v = 0
            for _ in 0..<n {
                let c = b[i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
                i += 1
            }
            return v
        }

        mutating func take(_ c: UInt8) -> Bool {
            guard i < end, b[i] == c else { return false }
            i += 1
            return true
        }
    }

    private static func parse(buffer b: UnsafeBufferPointer<UInt8>) -> Parsed? {
        var start = 0, end = b.count
        while start < end, isSpace(b[start]) { start += 1 }
        while end > start, isSpace(b[end - 1]) { end -= 1 }
        return parseUTC(b, from: start, to: end) ?? parseAnyLayout(b, from: start, to: end)
    }

    /// `parse` for the layout `YYYY-MM-DDThh:mm:ss[.fff…]Z` only (nil for any other).
    /// (`dates` keeps the day number of the last valid date read, for a reader whose times mostly fall on one day.)
    static func parseFixedLayout(_ b: UnsafeBufferPointer<UInt8>, dates: inout DayNumberCache) -> Parsed? {
        var start = 0, end = b.count
        while start < end, isSpace(b[start]) { start += 1 }
        while end > start, isSpace(b[end - 1]) { end -= 1 }
        return parseUTC(b, from: start, to: end, dates: &dates)
    }

    /// What `parse` gives without its fast path (for the tests that hold the two to the same results).
    static func parseWithoutFastPath(_ bytes: [UInt8]) -> Parsed? {
        bytes.withUnsafeBufferPointer { b in
            var start = 0, end = b.count
            while start < end, isSpace(b[start]) { start += 1 }
            while end > start, isSpace(b[end - 1]) { end -= 1 }
            return parseAnyLayout(b, from: start, to: end)
        }
    }

    /// Every layout `parse` reads, field by field.
    private static func parseAnyLayout(_ b: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Parsed? {
        var cursor = Cursor(b: b, i: start, end: end)
        func digits(_ n: Int) -> Int? { cursor.digits(n) }
        func take(_ c: UInt8) -> Bool { cursor.take(c) }
        var i: Int {
            get { cursor.i }
            set { cursor.i = newValue }
        }

        guard let year = digits(4), take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")), let day = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month) else { return nil }
        var hour = 0, minute = 0
        var second = 0.0
        var fraction = 0.0
        var zoneless = true
        var offsetSeconds = 0
        if i < end {
            guard take(UInt8(ascii: "T")) || take(UInt8(ascii: "t")) || take(UInt8(ascii: " ")) else { return nil }
            guard let h = digits(2), take(UInt8(ascii: ":")), let m = digits(2) else { return nil }
            hour = h
            minute = m
            if take(UInt8(ascii: ":")) {
                guard let s = digits(2) else { return nil }
                second = Double(s)
                if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
                    // Kept to the microsecond, so that writing and reading back gives the same number.
                    var micros = 0.0
                    var scale = 100_000.0
                    var count = 0
                    while i < end, b[i] >= 0x30, b[i] <= 0x39 {
                        micros += Double(b[i] - 0x30) * scale
                        scale /= 10
                        count += 1
                        i += 1
                    }
                    guard count > 0 else { return nil }
                    fraction = micros.rounded() / 1_000_000
                }
            }
            guard hour <= 24, minute <= 59, second < 61 else { return nil }
            if hour == 24 && (minute != 0 || second != 0) { return nil }
            if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
                zoneless = false
            } else if i < end, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let negative = b[i] == UInt8(ascii: "-")
                i += 1
                guard let oh = digits(2) else { return nil }
                var om = 0
                if take(UInt8(ascii: ":")) {
                    guard let m = digits(2) else { return nil }
                    om = m
                } else if end - i == 2 {
                    guard let m = digits(2) else { return nil }
                    om = m
                }
                guard oh <= 18, om <= 59 else { return nil }
                offsetSeconds = (oh * 3600 + om * 60) * (negative ? -1 : 1)
                zoneless = false
            }
            guard i == end else { return nil }
        }
        let days = daysFromCivil(year, month, day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 - offsetSeconds) + second + fraction
        return Parsed(seconds: seconds, zoneless: zoneless)
    }

    /// The layout trace files write most, `YYYY-MM-DDThh:mm:ss[.fff…]Z`, read at
    /// fixed offsets; nil for anything else, which the general parser then reads.
    /// Checks and arithmetic are the general parser's, so the result is the same.
    private static func parseUTC(_ b: UnsafeBufferPointer<UInt8>, from s: Int, to end: Int) -> Parsed? {
        var dates = DayNumberCache()
        return parseUTC(b, from: s, to: end, dates: &dates)
    }

    private static func parseUTC(_ b: UnsafeBufferPointer<UInt8>, from s: Int, to end: Int, dates: inout DayNumberCache) -> Parsed? {
        guard end - s >= 20 else { return nil }
        @inline(__always) func digit(_ k: Int) -> Int? {
            let d = b[s + k] &- 0x30
            return d <= 9 ? Int(d) : nil
        }
        @inline(__always) func pair(_ k: Int) -> Int? {
            guard let high = digit(k), let low = digit(k + 1) else { return nil }
            return high * 10 + low
        }
        let separator = b[s + 10]
        guard b[s + 4] == UInt8(ascii: "-"), b[s + 7] == UInt8(ascii: "-"),
              separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " "),
              b[s + 13] == UInt8(ascii: ":"), b[s + 16] == UInt8(ascii: ":"),
              b[end - 1] == UInt8(ascii: "Z") || b[end - 1] == UInt8(ascii: "z"),
              let century = pair(0), let yy = pair(2), let month = pair(5), let day = pair(8),
              let hour = pair(11), let minute = pair(14), let second = pair(17) else { return nil }
        let year = century * 100 + yy
        let days: Int
        if let known = dates.days(year, month, day) {
            days = known
        } else {
            guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month) else { return nil }
            days = daysFromCivil(year, month, day)
            dates.keep(year, month, day, days)
        }
        guard hour <= 24, minute <= 59, second < 61 else { return nil }
        if hour == 24 && (minute != 0 || second != 0) { return nil }
        var fraction = 0.0
        var i = s + 19
        if i < end - 1 {
            guard b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") else { return nil }
            i += 1
            // As the general parser: kept to the microsecond.
            var micros = 0.0
            var scale = 100_000.0
            var count = 0
            while i < end - 1 {
                let d = b[i] &- 0x30
                guard d <= 9 else { return nil }
                micros += Double(d) * scale
                scale /= 10
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            fraction = micros.rounded() / 1_000_000
        }
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60) + Double(second) + fraction
        return Parsed(seconds: seconds, zoneless: false)
    }

    public static func parse(_ string: String) -> Parsed? { parse(Array(string.utf8)) }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `YYYY-MM-DDThh:mm:ss[.ffffff]Z`: microseconds, trailing zeros dropped,
    /// so that parsing the text gives back the same number for times read from files.
    /// (Each field is zero-padded to its width as `String(v)` would be: a year
    /// before 0 keeps its sign after the padding, as it always has.)
    public static func format(_ seconds: Double) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ASCIIWriter.timeCapacity) { out in
            var writer = ASCIIWriter(out)
            writer.time(seconds)
            return writer.string
        }
    }

    /// "time T is before the previous NOUN's LAST", the reason a point whose time
    /// goes backwards is rejected, written in one go.
    /// (`last` comes formatted: a caller that rejects many rows against one time keeps it.)
    static func backwards(_ time: Double, previous noun: StaticString, _ last: FormattedTime) -> String {
        var days = CivilDayCache()
        return backwards(time, previous: noun, last, days: &days)
    }

    static func backwards(_ time: Double, previous noun: StaticString, _ last: FormattedTime, days: inout CivilDayCache) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * ASCIIWriter.timeCapacity + 32 + noun.utf8CodeUnitCount) { out in
            var writer = ASCIIWriter(out)
            writer.put("time ")
            writer.time(time, days: &days)
            writer.put(" is before the previous ")
            writer.put(noun)
            writer.put("'s ")
            last.write(to: &writer)
            return writer.string
        }
    }

    /// What `format` writes of `seconds`: the date, the second of the day and the
    /// microseconds (rounded); nil when not finite or not within ±10^13 s.
    static func fields(_ seconds: Double) -> (year: Int, month: Int, day: Int, secondOfDay: Int, micros: Int)? {
        var days = CivilDayCache()
        return fields(seconds, days: &days)
    }

    static func fields(_ seconds: Double, days cache: inout CivilDayCache) -> (year: Int, month: Int, day: Int, secondOfDay: Int, micros: Int)? {
        guard seconds.isFinite, abs(seconds) < 1e13 else { return nil }
        let whole = seconds.rounded(.down)
        var micros = Int(((seconds - whole) * 1_000_000).rounded())
        var total = Int(whole)
        if micros == 1_000_000 {
            micros = 0
            total += 1
        }
        var days = total / 86_400
        var rest = total % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (y, m, d) = cache.date(ofDay: days)
        return (y, m, d, rest, micros)
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

/// The day number of the last valid date read (see ``ISO8601Time/parseFixedLayout(_:dates:)``).
struct DayNumberCache {
    private var year = Int.min, month = 0, day = 0, number = 0

    func days(_ year: Int, _ month: Int, _ day: Int) -> Int? {
        year == self.year && month == self.month && day == self.day ? number : nil
    }

    mutating func keep(_ year: Int, _ month: Int, _ day: Int, _ number: Int) {
        (self.year, self.month, self.day, self.number) = (year, month, day, number)
    }
}

/// The date of the day last converted, for a caller that formats many times of
/// one day (a file's rows mostly are).
struct CivilDayCache {
    private var day = Int.min
    private var date = (0, 0, 0)

    mutating func date(ofDay day: Int) -> (Int, Int, Int) {
        if day != self.day {
            self.day = day
            date = ISO8601Time.civilFromDays(day)
        }
        return date
    }
}

/// A time as ``ISO8601Time/format(_:)`` writes it, held inline (no string, so
/// keeping and copying it counts no references).
struct FormattedTime {
    private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var count = 0

    init(_ seconds: Double) {
        count = withUnsafeMutableBytes(of: &storage) { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes in
                var writer = ASCIIWriter(bytes)
                writer.time(seconds)
                return writer.written
            }
        }
    }

    func write(to writer: inout ASCIIWriter) {
        withUnsafeBytes(of: storage) { raw in
            for k in 0..<count { writer.put(raw[k]) }
        }
    }
}

/// Writes ASCII text into a buffer the caller sizes; a struct with no captured
/// state, so that writing a byte is a store and an increment.
struct ASCIIWriter {
    /// Room enough for any time `time(_:)` writes: a year of up to 7 characters
    /// (|seconds| < 10^13), 15 more for the rest of the date and the time of day,
    /// 7 of fraction and the Z.
    static let timeCapacity = 32

    private let out: UnsafeMutableBufferPointer<UInt8>
    private var count = 0

    init(_ out: UnsafeMutableBufferPointer<UInt8>) {
        self.out = out
    }

    var string: String { String(decoding: UnsafeBufferPointer(rebasing: out[0..<count]), as: UTF8.self) }

    /// How many bytes have been written.
    var written: Int { count }

    mutating func put(_ c: UInt8) {
        out[count] = c
        count += 1
    }

    mutating func put(_ text: StaticString) {
        text.withUTF8Buffer { for c in $0 { put(c) } }
    }

    /// `v` zero-padded to `width` characters as `String(v)` with zeros in front.
    mutating func pad(_ v: Int, _ width: Int) {
        // The common cases digit by digit: months, days, hours, minutes, seconds and years 0...9999.
        if width == 2 && v >= 0 && v < 100 {
            put(UInt8(truncatingIfNeeded: v / 10) + 0x30)
            put(UInt8(truncatingIfNeeded: v % 10) + 0x30)
            return
        }
        if width == 4 && v >= 0 && v < 10_000 {
            put(UInt8(truncatingIfNeeded: v / 1000) + 0x30)
            put(UInt8(truncatingIfNeeded: v / 100 % 10) + 0x30)
            put(UInt8(truncatingIfNeeded: v / 10 % 10) + 0x30)
            put(UInt8(truncatingIfNeeded: v % 10) + 0x30)
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var length = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            var magnitude = v.magnitude
            repeat {
                buffer[length] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
                length += 1
            } while magnitude > 0
        }
        for _ in 0..<max(0, width - length - (v < 0 ? 1 : 0)) { put(UInt8(ascii: "0")) }
        if v < 0 { put(UInt8(ascii: "-")) }
        withUnsafeBytes(of: digits) { buffer in
            for k in stride(from: length - 1, through: 0, by: -1) { put(buffer[k]) }
        }
    }

    /// What ``ISO8601Time/format(_:)`` gives for `seconds`.
    mutating func time(_ seconds: Double) {
        var days = CivilDayCache()
        time(seconds, days: &days)
    }

    mutating func time(_ seconds: Double, days: inout CivilDayCache) {
        guard let (y, m, d, rest, micros) = ISO8601Time.fields(seconds, days: &days) else {
            put("invalid")
            return
        }
        pad(y, 4)
        put(UInt8(ascii: "-"))
        pad(m, 2)
        put(UInt8(ascii: "-"))
        pad(d, 2)
        put(UInt8(ascii: "T"))
        pad(rest / 3600, 2)
        put(UInt8(ascii: ":"))
        pad((rest / 60) % 60, 2)
        put(UInt8(ascii: ":"))
        pad(rest % 60, 2)
        if micros > 0 {
            put(UInt8(ascii: "."))
            var fraction = micros
            var width = 6
            while fraction % 10 == 0 {
                fraction /= 10
                width -= 1
            }
            pad(fraction, width)
        }
        put(UInt8(ascii: "Z"))
    }
}
