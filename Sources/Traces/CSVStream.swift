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
    private let records: CSVRecordReader
    private let columns: CSVColumns
    private var lastTime: Double?
    private var started = false
    private var sawZoneless = false
    private var finished = false
    /// Whether rows with backward times are rejected here (false when the caller orders them).
    let checksOrder: Bool

    public init(path: String, mapping: CSVColumnMapping = CSVColumnMapping()) throws(TraceError) {
        try self.init(source: ByteSource(path: path), mapping: mapping, checksOrder: true)
    }

    init(source: ByteSource, mapping: CSVColumnMapping, checksOrder: Bool) throws(TraceError) {
        records = try CSVRecordReader(source: source)
        guard let header = try records.next() else {
            throw TraceError(.malformed, file: source.path, line: 1, column: 1, reason: "empty file: no CSV header")
        }
        columns = try CSVColumns(header: header.fields, mapping: mapping, file: source.path)
        self.checksOrder = checksOrder
    }

    public mutating func next() throws(TraceError) -> TraceEvent? {
        if !started {
            started = true
            return .beginTrack
        }
        if finished { return nil }
        while let record = try records.next() {
            if record.fields.count == 1 && record.fields[0].trimmingCharacters(in: .whitespaces).isEmpty { continue }
            switch fix(from: record) {
            case .failure(let rejection):
                return .rejected(rejection)
            case .success(let fix):
                if fix.timeWasZoneless { sawZoneless = true }
                if checksOrder, let t = fix.time {
                    if let last = lastTime, t < last {
                        return .rejected(Rejection(line: fix.line, reason: "time \(ISO8601Time.format(t)) is before the previous row's \(ISO8601Time.format(last))"))
                    }
                    lastTime = t
                }
                return .trackPoint(fix)
            }
        }
        finished = true
        return sawZoneless ? .note("times without a zone were read as UTC") : nil
    }

    private func fix(from record: CSVRecord) -> Result<Fix, Rejection> {
        func reject(_ reason: String) -> Result<Fix, Rejection> { .failure(Rejection(line: record.line, reason: reason)) }
        let f = record.fields
        func field(_ i: Int) -> String? {
            guard i >= 0, i < f.count else { return nil }
            let v = f[i].trimmingCharacters(in: .whitespaces)
            return v.isEmpty ? nil : v
        }
        guard let latText = field(columns.latitude) else { return reject(f.count <= columns.latitude ? "row has \(f.count) fields; no latitude" : "latitude is empty") }
        guard let lonText = field(columns.longitude) else { return reject(f.count <= columns.longitude ? "row has \(f.count) fields; no longitude" : "longitude is empty") }
        guard let lat = parseNumber(Array(latText.utf8)) else { return reject("latitude \"\(latText)\" is not a number") }
        guard let lon = parseNumber(Array(lonText.utf8)) else { return reject("longitude \"\(lonText)\" is not a number") }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: lat, longitude: lon)
        } catch {
            return reject(error.description)
        }
        var fix = Fix(coordinate: coordinate, line: record.line)
        if let text = field(columns.time) {
            if let epoch = epochSeconds(text) {
                fix.time = epoch
            } else if let parsed = ISO8601Time.parse(text) {
                fix.time = parsed.seconds
                fix.timeWasZoneless = parsed.zoneless
            } else {
                return reject("time \"\(text)\" is neither ISO 8601 nor an epoch number")
            }
        }
        fix.name = field(columns.name)
        for (index, name) in [(columns.elevation, "elevation"), (columns.accuracy, "accuracy"), (columns.verticalAccuracy, "vertical accuracy"),
                              (columns.speed, "speed"), (columns.course, "course")] {
            guard let text = field(index) else { continue }
            guard let v = parseNumber(Array(text.utf8)), v.isFinite else { return reject("\(name) \"\(text)\" is not a number") }
            switch name {
            case "elevation": fix.elevation = v
            // An accuracy of zero or less is no measurement (exports write 0 for unknown).
            case "accuracy": fix.horizontalAccuracy = v > 0 ? v : nil
            case "vertical accuracy": fix.verticalAccuracy = v
            case "speed": fix.speed = v
            default: fix.course = v
            }
        }
        return .success(fix)
    }
}

/// Epoch seconds from a number of seconds, milliseconds, microseconds or
/// nanoseconds (told apart by magnitude), kept to the microsecond. Whole
/// numbers are split exactly, without a trip through a large double.
func epochSeconds(_ text: String) -> Double? {
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) {
        let magnitude = value.magnitude
        let perSecond: Int64 = magnitude >= 100_000_000_000_000_000 ? 1_000_000_000 : magnitude >= 100_000_000_000_000 ? 1_000_000
            : magnitude >= 100_000_000_000 ? 1000 : 1
        let (whole, rest) = value.quotientAndRemainder(dividingBy: perSecond)
        let micros = (Double(rest) * 1_000_000 / Double(perSecond)).rounded()
        return Double(whole) + micros / 1_000_000
    }
    guard let number = parseNumber(Array(text.utf8)), number.isFinite else { return nil }
    let magnitude = abs(number)
    let seconds = magnitude >= 1e17 ? number / 1e9 : magnitude >= 1e14 ? number / 1e6 : magnitude >= 1e11 ? number / 1e3 : number
    let whole = seconds.rounded(.down)
    return whole + ((seconds - whole) * 1_000_000).rounded() / 1_000_000
}

struct CSVRecord {
    var fields: [String]
    /// Line of the record's first character.
    var line: Int
}

/// Splits a byte stream into RFC 4180 records, fields possibly quoted over several lines.
final class CSVRecordReader {
    private let source: ByteSource
    private var chunk: [UInt8] = []
    private var index = 0
    private var line = 1
    private var delimiter: UInt8 = 0
    private var atEnd = false

    init(source: ByteSource) throws(TraceError) {
        self.source = source
    }

    private func byte() throws(TraceError) -> UInt8? {
        if index >= chunk.count {
            guard !atEnd, let next = try source.nextChunk() else {
                atEnd = true
                return nil
            }
            chunk = next
            index = 0
        }
        defer { index += 1 }
        return chunk[index]
    }

    private func peek() throws(TraceError) -> UInt8? {
        guard let b = try byte() else { return nil }
        index -= 1
        return b
    }

    func next() throws(TraceError) -> CSVRecord? {
        guard try peek() != nil else { return nil }
        let startLine = line
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var fieldStarted = false
        if delimiter == 0 { delimiter = try sniff() }
        while let b = try byte() {
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if try peek() == UInt8(ascii: "\"") {
                        _ = try byte()
                        field.append(b)
                    } else {
                        quoted = false
                    }
                } else {
                    if b == 0x0A { line += 1 }
                    field.append(b)
                }
                continue
            }
            if b == UInt8(ascii: "\"") && !fieldStarted {
                quoted = true
                fieldStarted = true
            } else if b == delimiter {
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                fieldStarted = false
            } else if b == 0x0A {
                line += 1
                if field.last == 0x0D { field.removeLast() }
                fields.append(String(decoding: field, as: UTF8.self))
                return CSVRecord(fields: fields, line: startLine)
            } else {
                field.append(b)
                fieldStarted = true
            }
        }
        if quoted {
            throw TraceError(.malformed, file: source.path, line: startLine, column: 1, reason: "a quoted field is not closed before the end of the file")
        }
        if field.last == 0x0D { field.removeLast() }
        fields.append(String(decoding: field, as: UTF8.self))
        return CSVRecord(fields: fields, line: startLine)
    }

    /// The delimiter that splits the header line most: comma, semicolon or tab.
    private func sniff() throws(TraceError) -> UInt8 {
        var counts: [UInt8: Int] = [UInt8(ascii: ","): 0, UInt8(ascii: ";"): 0, 0x09: 0]
        var i = index
        var quoted = false
        while i < chunk.count, chunk[i] != 0x0A {
            let b = chunk[i]
            if b == UInt8(ascii: "\"") { quoted.toggle() }
            if !quoted, counts[b] != nil { counts[b, default: 0] += 1 }
            i += 1
        }
        let best = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }
        return best.map { $0.value > 0 ? $0.key : UInt8(ascii: ",") } ?? UInt8(ascii: ",")
    }
}
