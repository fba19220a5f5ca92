import Foundation
import Geodesy

/// Which CSV column holds what. Found from the header with the usual
/// aliases, or given explicitly by name (an explicit name overrides the guess).
public struct CSVColumnMapping: Equatable, Sendable {
    public var latitude: String?
    public var longitude: String?
    public var time: String?
    public var elevation: String?
    public var accuracy: String?
    public var speed: String?
    public var course: String?
    public var verticalAccuracy: String?
    public var name: String?

    public init(latitude: String? = nil, longitude: String? = nil, time: String? = nil, elevation: String? = nil,
                accuracy: String? = nil, speed: String? = nil, course: String? = nil, verticalAccuracy: String? = nil,
                name: String? = nil) {
        self.verticalAccuracy = verticalAccuracy
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.elevation = elevation
        self.accuracy = accuracy
        self.speed = speed
        self.course = course
    }

    /// Header names recognised for each column, in order of preference.
    static let aliases: [[String]] = [
        ["lat", "latitude"],
        ["lon", "lng", "long", "longitude"],
        ["time", "timestamp", "tracked_at", "datetime", "date_time"],
        ["ele", "elevation", "altitude", "alt"],
        ["accuracy", "hacc", "horizontal_accuracy", "horizontalaccuracy"],
        ["speed"],
        ["course", "bearing"],
        ["vacc", "vertical_accuracy", "verticalaccuracy"],
        ["name"],
    ]
}

/// Column indices resolved against one header.
struct CSVColumns {
    var latitude = -1, longitude = -1, time = -1, elevation = -1, accuracy = -1, speed = -1, course = -1
    var verticalAccuracy = -1, name = -1

    /// The optional numeric columns a row may hold.
    enum Measure {
        case elevation, accuracy, verticalAccuracy, speed, course

        /// How a bad value is named in a rejection.
        var label: String {
            switch self {
            case .elevation: "elevation"
            case .accuracy: "accuracy"
            case .verticalAccuracy: "vertical accuracy"
            case .speed: "speed"
            case .course: "course"
            }
        }
    }

    /// The numeric columns the header has, in the order a row's values are checked.
    private(set) var measures: [(index: Int, measure: Measure)] = []

    init(header: [String], mapping: CSVColumnMapping, file: String) throws(TraceError) {
        let names = header.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func index(_ explicit: String?, _ aliases: [String], _ what: String) throws(TraceError) -> Int {
            if let explicit {
                guard let i = names.firstIndex(of: explicit.lowercased()) else {
                    throw TraceError(.malformed, file: file, line: 1, column: 1, reason: "no column \"\(explicit)\" for \(what) in the header")
                }
                return i
            }
            for alias in aliases { if let i = names.firstIndex(of: alias) { return i } }
            return -1
        }
        let a = CSVColumnMapping.aliases
        latitude = try index(mapping.latitude, a[0], "latitude")
        longitude = try index(mapping.longitude, a[1], "longitude")
        time = try index(mapping.time, a[2], "time")
        elevation = try index(mapping.elevation, a[3], "elevation")
        accuracy = try index(mapping.accuracy, a[4], "accuracy")
        speed = try index(mapping.speed, a[5], "speed")
        course = try index(mapping.course, a[6], "course")
        verticalAccuracy = try index(mapping.verticalAccuracy, a[7], "vertical accuracy")
        name = try index(mapping.name, a[8], "name")
        measures = [(elevation, .elevation), (accuracy, .accuracy), (verticalAccuracy, .verticalAccuracy), (speed, .speed), (course, .course)]
            .filter { $0.index >= 0 }
        guard latitude >= 0, longitude >= 0 else {
            throw TraceError(.malformed, file: file, line: 1, column: 1,
                             reason: "the header names no \(latitude < 0 ? "latitude" : "longitude") column (looked for \(latitude < 0 ? "lat, latitude" : "lon, lng, long, longitude")): \(header.joined(separator: ","))")
        }
    }
}

/// Reads a CSV trace as a stream of ``TraceEvent``s, row by row: the
/// delimiter (comma, semicolon or tab) is sniffed from the header, quoting
/// follows RFC 4180, CRLF and a byte-order mark are fine. Times are ISO 8601
/// or epoch seconds, milliseconds, microseconds or nanoseconds (told apart by
/// magnitude). A row whose time goes backwards is rejected; to turn a
/// newest-first export around, load the file whole with ``TraceReader``.
public struct CSVStream: TraceEventStream {
    private var records: CSVRecordReader
    private var record = CSVRecord()
    private let columns: CSVColumns
    private var lastTime: Double?
    private var memo = RowMemo()
    private var started = false
    private var sawZoneless = false
    private var finished = false
    /// Whether rows with backward times are rejected here (false when the caller orders them).
    let checksOrder: Bool

    public init(path: String, mapping: CSVColumnMapping = CSVColumnMapping()) throws(TraceError) {
        try self.init(source: ByteSource(path: path), mapping: mapping, checksOrder: true)
    }

    init(source: ByteSource, mapping: CSVColumnMapping, checksOrder: Bool) throws(TraceError) {
        records = CSVRecordReader(source: source)
        var header = CSVRecord()
        guard try records.next(into: &header) else {
            throw TraceError(.malformed, file: source.path, line: 1, column: 1, reason: "empty file: no CSV header")
        }
        // GPSLogger's exports may begin with the number of rows on a line of its own.
        if header.count == 1, let count = header.string(0).flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), count >= 0 {
            guard try records.next(into: &header) else {
                throw TraceError(.malformed, file: source.path, line: 2, column: 1, reason: "no CSV header after the row count")
            }
        }
        columns = try CSVColumns(header: (0..<header.count).map { header.string($0) ?? "" }, mapping: mapping, file: source.path)
        self.checksOrder = checksOrder
    }

    public mutating func next() throws(TraceError) -> TraceEvent? {
        if !started {
            started = true
            return .beginTrack
        }
        if finished { return nil }
        while try records.next(into: &record, inPlace: true) {
            let event = Self.event(from: record, of: records, columns: columns, checksOrder: checksOrder, lastTime: &lastTime, memo: &memo,
                                   sawZoneless: &sawZoneless)
            if case .some = event { return event }
        }
        finished = true
        return sawZoneless ? .note("times without a zone were read as UTC") : nil
    }

    /// The event of a record just read by `reader` (whose buffer holds it when it was
    /// read in place), nil for a blank one.
    private static func event(from record: CSVRecord, of reader: CSVRecordReader, columns: CSVColumns,
                              checksOrder: Bool, lastTime: inout Double?, memo: inout RowMemo, sawZoneless: inout Bool) -> TraceEvent? {
        reader.withBytes(of: record) { all -> TraceEvent? in
            if record.isBlank(in: all) { return nil }
            return event(from: record, all: all, columns: columns, checksOrder: checksOrder, lastTime: &lastTime, memo: &memo, sawZoneless: &sawZoneless)
        }
    }

    /// The row's point, or why it is rejected: when `checksOrder`, a row whose time
    /// is before `lastTime` (which a point's time then advances). Static, and reading
    /// the fields in place (`all` holds the record's bytes, where its ranges point): the
    /// stream is not copied, no field is retained, and the point is built where it is returned.
    @inline(__always)
    private static func event(from record: CSVRecord, all: UnsafeBufferPointer<UInt8>, columns: CSVColumns,
                              checksOrder: Bool, lastTime: inout Double?, memo: inout RowMemo, sawZoneless: inout Bool) -> TraceEvent {
        func reject(_ reason: String) -> TraceEvent { .rejected(Rejection(line: record.line, reason: reason)) }
        func field(_ i: Int) -> Range<Int>? { record.fieldRange(i, in: all) }
        /// `body` of the bytes of a field where they are.
        func read<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            body(UnsafeBufferPointer(rebasing: all[range]))
        }
        func text(_ range: Range<Int>) -> String { read(range) { String(decoding: $0, as: UTF8.self) } }
        func number(_ range: Range<Int>) -> Double? { parseNumber(in: all, from: range.lowerBound, to: range.upperBound) }
        guard let latText = field(columns.latitude) else {
            return reject(record.count <= columns.latitude ? "row has \(record.count) fields; no latitude" : "latitude is empty")
        }
        guard let lonText = field(columns.longitude) else {
            return reject(record.count <= columns.longitude ? "row has \(record.count) fields; no longitude" : "longitude is empty")
        }
        guard let lat = number(latText) else { return reject("latitude \"\(text(latText))\" is not a number") }
        guard let lon = number(lonText) else { return reject("longitude \"\(text(lonText))\" is not a number") }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: lat, longitude: lon)
        } catch {
            return reject(error.description)
        }
        // The values are gathered first and the point made in its event at once: a point
        // filled in field by field was copied into the event (a third of a row's time).
        var time: ISO8601Time.Parsed?
        if let bytes = field(columns.time) {
            // A time in the fixed layout is no epoch number (it has a dash after four digits), so
            // it can be tried first.
            time = read(bytes) { b -> ISO8601Time.Parsed? in
                if let parsed = ISO8601Time.parseFixedLayout(b, dates: &memo.dates) { return parsed }
                if let epoch = epochSeconds(b) { return ISO8601Time.Parsed(seconds: epoch, zoneless: false) }
                return ISO8601Time.parse(b)
            }
            if time == nil { return reject("time \"\(text(bytes))\" is neither ISO 8601 nor an epoch number") }
        }
        var elevation: Double?, horizontalAccuracy: Double?, verticalAccuracy: Double?, speed: Double?, course: Double?
        for (index, measure) in columns.measures {
            guard let bytes = field(index) else { continue }
            guard let v = number(bytes), v.isFinite else { return reject("\(measure.label) \"\(text(bytes))\" is not a number") }
            switch measure {
            case .elevation: elevation = v
            // An accuracy of zero or less is no measurement (exports write 0 for unknown).
            case .accuracy: horizontalAccuracy = v > 0 ? v : nil
            case .verticalAccuracy: verticalAccuracy = v
            case .speed: speed = v
            case .course: course = v
            }
        }
        if time?.zoneless == true { sawZoneless = true }
        if checksOrder, let t = time?.seconds {
            if let last = lastTime, t < last {
                if memo.lastTimeText?.time.bitPattern != last.bitPattern { memo.lastTimeText = (last, FormattedTime(last)) }
                let lastText = memo.lastTimeText?.text ?? FormattedTime(last)
                return .rejected(Rejection(line: record.line, reason: ISO8601Time.backwards(t, previous: "row", lastText, days: &memo.days)))
            }
            lastTime = t
        }
        return .trackPoint(Fix(coordinate: coordinate, time: time?.seconds, timeWasZoneless: time?.zoneless ?? false, elevation: elevation,
                               horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy, speed: speed, course: course,
                               name: field(columns.name).map(text).flatMap { $0.isEmpty ? nil : $0 }, line: record.line))
    }
}

/// What a CSV stream keeps from row to row to read the next faster: rows mostly
/// share a date, and rows rejected for going back in time share the time they go back from.
struct RowMemo {
    /// The last time a point had, as text.
    var lastTimeText: (time: Double, text: FormattedTime)?
    var days = CivilDayCache()
    var dates = DayNumberCache()
}

/// Epoch seconds from a number of seconds, milliseconds, microseconds or
/// nanoseconds (told apart by magnitude), kept to the microsecond. Whole
/// numbers are split exactly, without a trip through a large double.
func epochSeconds<C: Collection>(_ bytes: C) -> Double? where C.Element == UInt8 {
    let digits = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
    if !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let parsed = Int64(String(decoding: digits, as: UTF8.self)) {
        var value = parsed
        if bytes.first == UInt8(ascii: "-") { value = -value }
        let magnitude = value.magnitude
        let perSecond: Int64 = magnitude >= 100_000_000_000_000_000 ? 1_000_000_000 : magnitude >= 100_000_000_000_000 ? 1_000_000
            : magnitude >= 100_000_000_000 ? 1000 : 1
        let (whole, rest) = value.quotientAndRemainder(dividingBy: perSecond)
        let micros = (Double(rest) * 1_000_000 / Double(perSecond)).rounded()
        return Double(whole) + micros / 1_000_000
    }
    // ISO dates start with four digits and a dash: not a number.
    guard let number = parseNumber(bytes), number.isFinite else { return nil }
    let magnitude = abs(number)
    let seconds = magnitude >= 1e17 ? number / 1e9 : magnitude >= 1e14 ? number / 1e6 : magnitude >= 1e11 ? number / 1e3 : number
    let whole = seconds.rounded(.down)
    return whole + ((seconds - whole) * 1_000_000).rounded() / 1_000_000
}

/// One CSV record: its fields' decoded bytes, and the line it starts on.
struct CSVRecord {
    /// All fields' bytes, one after the other (quotes removed, `""` made `"`);
    /// empty when the record was read in place.
    var bytes: [UInt8] = []
    /// The fields: the first `count` ranges, in `bytes`, or in the reader's buffer
    /// when `inPlace` (the slots past `count` are kept for the next record).
    private(set) var ranges: [Range<Int>] = []
    /// How many fields the record has.
    private(set) var count = 0
    var line = 0
    /// The record was a line with no quote, left where it is in the reader's buffer
    /// (``CSVRecordReader/withBytes(of:_:)`` gives the bytes its ranges point into).
    var inPlace = false

    /// No fields, no bytes.
    mutating func clear() {
        if !bytes.isEmpty { bytes.removeAll(keepingCapacity: true) }
        count = 0
        inPlace = false
    }

    /// Appends a field.
    mutating func add(_ range: Range<Int>) {
        if count < ranges.count { ranges[count] = range } else { ranges.append(range) }
        count += 1
    }

    /// Moves every field `by` bytes towards the start.
    mutating func shift(by offset: Int) {
        for k in 0..<count { ranges[k] = (ranges[k].lowerBound - offset)..<(ranges[k].upperBound - offset) }
    }

    /// Fills the fields with `split`, which writes them into the slots it is given
    /// and returns how many, or nil when they are too few (more are made and it is
    /// called again). `split`'s result is the record's, or nil for no record.
    mutating func split<R>(_ split: (UnsafeMutableBufferPointer<Range<Int>>) -> (fields: Int, result: R?)?) -> R? {
        if ranges.count < 16 { ranges.append(contentsOf: repeatElement(0..<0, count: 16 - ranges.count)) }
        while true {
            if let (fields, result) = ranges.withUnsafeMutableBufferPointer({ split($0) }) {
                count = result == nil ? 0 : fields
                return result
            }
            ranges.append(contentsOf: repeatElement(0..<0, count: ranges.count))
        }
    }

    /// Field `i` without surrounding spaces, or nil when absent or empty.
    func field(_ i: Int) -> ArraySlice<UInt8>? {
        bytes.withUnsafeBufferPointer { all in fieldRange(i, in: all) }.map { bytes[$0] }
    }

    /// Where field `i` is in `all` (the bytes the ranges point into) without
    /// surrounding spaces, or nil when absent or empty.
    @inline(__always)
    func fieldRange(_ i: Int, in all: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard i >= 0, i < count else { return nil }
        var lower = ranges[i].lowerBound, upper = ranges[i].upperBound
        guard lower >= 0, upper <= all.count else { return nil }
        while lower < upper, all[lower] == 0x20 || all[lower] == 0x09 { lower += 1 }
        while upper > lower, all[upper - 1] == 0x20 || all[upper - 1] == 0x09 { upper -= 1 }
        return lower < upper ? lower..<upper : nil
    }

    func string(_ i: Int) -> String? { field(i).map { String(decoding: $0, as: UTF8.self) } }

    var isBlank: Bool { count <= 1 && field(0) == nil }

    /// Whether the record is blank, its fields read in `all`.
    func isBlank(in all: UnsafeBufferPointer<UInt8>) -> Bool { count <= 1 && fieldRange(0, in: all) == nil }
}

/// Splits a byte stream into RFC 4180 records, fields possibly quoted over
/// several lines, in chunks, reusing one record's storage.
struct CSVRecordReader {
    private let source: ByteSource
    private var buffer: [UInt8] = []
    private var pos = 0
    private var line = 1
    private var delimiter: UInt8 = 0
    private var exhausted = false
    /// Bounds memory: one record may not be longer than this.
    static let maxRecordBytes = 64 << 20

    init(source: ByteSource) {
        self.source = source
    }

    var path: String { source.path }

    /// Reads more bytes, dropping those before `pos`. False at the end of the file.
    private mutating func fill() throws(TraceError) -> Bool {
        guard !exhausted else { return false }
        guard buffer.count - pos < Self.maxRecordBytes else {
            throw TraceError(.malformed, file: source.path, line: line, column: 1, reason: "a CSV record longer than \(Self.maxRecordBytes >> 20) MiB")
        }
        // The bytes read are dropped first, so that only what is left of the last line moves.
        if pos > 0 {
            let rest = buffer.count - pos
            buffer.withUnsafeMutableBytes { b in
                if rest > 0, let base = b.baseAddress { memmove(base, base + pos, rest) }
            }
            buffer.removeLast(pos)
            pos = 0
        }
        guard try source.appendChunk(to: &buffer) else {
            exhausted = true
            return false
        }
        return true
    }

    /// The next record into `record`; false at the end of the file. `inPlace`: a
    /// line with no quote is left in the buffer (its ranges point there, and
    /// ``withBytes(of:_:)`` reads it until the next call) instead of being copied.
    mutating func next(into record: inout CSVRecord, inPlace: Bool = false) throws(TraceError) -> Bool {
        while true {
            if pos >= buffer.count, !(try fill()) { return false }
            if delimiter == 0 { delimiter = sniff() }
            record.clear()
            record.line = line
            if inPlace, case .complete(let next, let newlines) = fieldsInPlace(into: &record) {
                pos = next
                line += newlines
                return true
            }
            switch parse(into: &record) {
            case .complete(let next, let newlines):
                pos = next
                line += newlines
                return true
            case .needMore:
                if !(try fill()) {
                    // The last record has no line end.
                    if case .complete(let next, let newlines) = parse(into: &record, atEnd: true) {
                        pos = next
                        line += newlines
                        return true
                    }
                    throw TraceError(.malformed, file: source.path, line: line, column: 1, reason: "a quoted field is not closed before the end of the file")
                }
            }
        }
    }

    /// The bytes `record`'s ranges point into: the buffer for a record read in
    /// place (valid until the next read), its own bytes otherwise.
    func withBytes<R>(of record: CSVRecord, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        record.inPlace ? buffer.withUnsafeBufferPointer(body) : record.bytes.withUnsafeBufferPointer(body)
    }

    private enum Outcome {
        case complete(next: Int, newlines: Int)
        case needMore
    }

    /// Parses one record starting at `pos` from the buffer.
    private func parse(into record: inout CSVRecord, atEnd: Bool = false) -> Outcome {
        record.clear()
        let delimiter = self.delimiter
        if let outcome = parseUnquotedLine(into: &record) { return outcome }
        return buffer.withUnsafeBufferPointer { b in
            var i = pos
            var newlines = 0
            var fieldStart = 0
            var quoted = false
            var fieldStarted = false
            while i < b.count {
                let c = b[i]
                if quoted {
                    if c == UInt8(ascii: "\"") {
                        if i + 1 >= b.count && !atEnd { return .needMore }
                        if i + 1 < b.count && b[i + 1] == UInt8(ascii: "\"") {
                            record.bytes.append(c)
                            i += 2
                            continue
                        }
                        quoted = false
                    } else {
                        if c == 0x0A { newlines += 1 }
                        record.bytes.append(c)
                    }
                    i += 1
                    continue
                }
                if c == delimiter {
                    record.add(fieldStart..<record.bytes.count)
                    fieldStart = record.bytes.count
                    fieldStarted = false
                } else if c == 0x0A {
                    var end = record.bytes.count
                    if end > fieldStart, record.bytes[end - 1] == 0x0D { end -= 1 }
                    record.add(fieldStart..<end)
                    return .complete(next: i + 1, newlines: newlines + 1)
                } else if c == UInt8(ascii: "\"") && !fieldStarted {
                    quoted = true
                    fieldStarted = true
                } else {
                    // Unquoted run: copy up to the next delimiter, quote or line end at once. A quote
                    // inside an unquoted field is kept as a character (the run always takes at least one byte).
                    var j = i + 1
                    while j < b.count, b[j] != delimiter, b[j] != 0x0A, b[j] != UInt8(ascii: "\"") { j += 1 }
                    record.bytes.append(contentsOf: b[i..<j])
                    fieldStarted = true
                    i = j
                    continue
                }
                i += 1
            }
            guard atEnd, !quoted else { return .needMore }
            var end = record.bytes.count
            if end > fieldStart, record.bytes[end - 1] == 0x0D { end -= 1 }
            record.add(fieldStart..<end)
            return .complete(next: b.count, newlines: 0)
        }
    }

    /// The common case at once: a whole line in the buffer with no quote in it. The
    /// line is copied as it stands and its fields are the runs between delimiters
    /// (what the general parser makes of such a line: it leaves the delimiters out
    /// of `bytes`, which the ranges skip here). Nil for anything else.
    private func parseUnquotedLine(into record: inout CSVRecord) -> Outcome? {
        guard let outcome = fieldsInPlace(into: &record), case .complete = outcome else { return nil }
        let start = pos, end = record.ranges[record.count - 1].upperBound
        buffer.withUnsafeBufferPointer { b in record.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<end])) }
        record.inPlace = false
        record.shift(by: start)
        return outcome
    }

    /// A whole line in the buffer with no quote in it, its fields the runs between
    /// delimiters as ranges in the buffer (`record.inPlace`). Nil for anything else:
    /// a quote in the line, or no line end in the buffer yet.
    private func fieldsInPlace(into record: inout CSVRecord) -> Outcome? {
        let delimiter = self.delimiter
        let start = pos
        let outcome = buffer.withUnsafeBufferPointer { b -> Outcome? in
            guard let base = b.baseAddress, start < b.count else { return nil }
            return record.split { slots -> (fields: Int, result: Outcome?)? in
                var fields = 0
                var fieldStart = start
                /// False when the slots are full.
                func put(_ end: Int) -> Bool {
                    guard fields < slots.count else { return false }
                    slots[fields] = fieldStart..<end
                    fields += 1
                    fieldStart = end + 1
                    return true
                }
                // One pass, a word at a time: the delimiters, the line end, and a quote (which
                // sends the line to the general parser) found together.
                let ones = 0x0101_0101_0101_0101 as UInt64
                let delimiters = UInt64(delimiter) &* ones, feeds = 0x0A &* ones, quotes = UInt64(UInt8(ascii: "\"")) &* ones
                let raw = UnsafeRawPointer(base)
                var i = start
                var newline = -1
                while i + 8 <= b.count {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    var splits = ByteSearch.zeroBytes(word ^ delimiters)
                    let ends = ByteSearch.zeroBytes(word ^ feeds), quoted = ByteSearch.zeroBytes(word ^ quotes)
                    if ends != 0 {
                        // Only what comes before the line end counts.
                        let below = (ends & (0 &- ends)) &- 1
                        splits &= below
                        guard quoted & below == 0 else { return (0, nil) }
                        newline = i + ends.trailingZeroBitCount / 8
                    } else if quoted != 0 {
                        return (0, nil)
                    }
                    while splits != 0 {
                        guard put(i + splits.trailingZeroBitCount / 8) else { return nil }
                        splits &= splits &- 1
                    }
                    if newline >= 0 { break }
                    i += 8
                }
                if newline < 0 {
                    while i < b.count {
                        let c = base[i]
                        if c == 0x0A {
                            newline = i
                            break
                        }
                        if c == UInt8(ascii: "\"") { return (0, nil) }
                        if c == delimiter { guard put(i) else { return nil } }
                        i += 1
                    }
                    // No line end in the buffer yet.
                    guard newline >= 0 else { return (0, nil) }
                }
                var end = newline
                if end > fieldStart, base[end - 1] == 0x0D { end -= 1 }
                guard put(end) else { return nil }
                return (fields, .complete(next: newline + 1, newlines: 1))
            }
        }
        record.inPlace = outcome != nil
        return outcome
    }

    /// The delimiter that splits the header line most: comma, semicolon or tab.
    private func sniff() -> UInt8 {
        var counts: [(UInt8, Int)] = [(UInt8(ascii: ","), 0), (UInt8(ascii: ";"), 0), (0x09, 0)]
        var quoted = false
        for b in buffer[pos...] {
            if b == 0x0A { break }
            if b == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted, let k = counts.firstIndex(where: { $0.0 == b }) { counts[k].1 += 1 }
        }
        let best = counts.max { $0.1 < $1.1 }
        return best.map { $0.1 > 0 ? $0.0 : UInt8(ascii: ",") } ?? UInt8(ascii: ",")
    }
}
