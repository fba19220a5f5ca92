import Foundation
import Geodesy

/// Reads NMEA 0183 logs as one track of fixes, one per epoch.
///
/// The sentences of one epoch (the same UTC time of day) make one fix:
/// position from `RMC`, `GGA` or `GLL`; date, speed (knots to m/s) and course
/// from `RMC`; altitude, satellites and HDOP from `GGA`; PDOP/VDOP from
/// `GSA`; the horizontal accuracy from `GST`'s latitude and longitude error
/// (the root of their squares' sum), else HDOP × ``hdopMetres``. Any talker
/// (`GP`, `GN`, `GL`, `GA`, `GB`, `BD`, …) is read. A sentence with a wrong
/// checksum, an `RMC`/`GLL` with status `V` or a `GGA` with fix quality 0 is
/// rejected with its line; a day is added when the time of day wraps past
/// midnight with no new date.
public struct NMEAStream: TraceEventStream {
    /// Metres of horizontal error per unit of HDOP where no `GST` says: a
    /// user-equivalent range error of 5 m, the usual figure for consumer GPS.
    public static let hdopMetres = 5.0

    private var lines: LineReader
    private var queue = EventQueue()
    private var started = false
    private var done = false
    private var sawSentence = false

    private struct Epoch {
        var timeOfDay: Double
        var line: Int
        var latitude: Double?
        var longitude: Double?
        var date: Double?
        var speed: Double?
        var course: Double?
        var altitude: Double?
        var satellites: Int?
        var hdop: Double?
        var vdop: Double?
        var pdop: Double?
        var accuracy: Double?
    }

    private var epoch: Epoch?
    private var date: Double?
    private var lastTimeOfDay: Double?
    private var pendingDOP: (pdop: Double?, hdop: Double?, vdop: Double?)?

    public init(path: String) throws(TraceError) {
        lines = LineReader(source: try ByteSource(path: path))
    }

    init(source: ByteSource) {
        lines = LineReader(source: source)
    }

    public mutating func next() throws(TraceError) -> TraceEvent? {
        while true {
            if let event = queue.take() { return event }
            if done { return nil }
            try step()
        }
    }

    private mutating func step() throws(TraceError) {
        if !started {
            started = true
            queue.append(.beginTrack)
            queue.append(.beginSegment)
        }
        guard let raw = try lines.next() else {
            flush()
            done = true
            if !sawSentence {
                throw TraceError(.malformed, file: lines.fileName, line: 1, column: 1, reason: "not an NMEA file: no $ sentence")
            }
            return
        }
        let line = lines.lineNumber
        guard let dollar = raw.firstIndex(of: UInt8(ascii: "$")) else { return }
        let sentence = raw[dollar...]
        sawSentence = true
        // Checksum: XOR of the bytes between $ and *.
        var body = sentence.dropFirst()
        if let star = body.firstIndex(of: UInt8(ascii: "*")) {
            let given = String(decoding: body[(star + 1)...].prefix(2), as: UTF8.self)
            body = body[..<star]
            let sum = body.reduce(UInt8(0)) { $0 ^ $1 }
            guard let expected = UInt8(given, radix: 16) else {
                queue.append(.rejected(Rejection(line: line, reason: "checksum \"\(given)\" is not two hex digits")))
                return
            }
            guard expected == sum else {
                queue.append(.rejected(Rejection(line: line, reason: String(format: "checksum %02X does not match the sentence's %02X", expected, sum))))
                return
            }
        }
        let fields = body.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard let tag = fields.first, tag.count >= 5 else { return }
        let type = String(tag.suffix(3))
        switch type {
        case "RMC": rmc(fields, line: line)
        case "GGA": gga(fields, line: line)
        case "GLL": gll(fields, line: line)
        case "GSA": gsa(fields)
        case "GST": gst(fields, line: line)
        default: break
        }
    }

    private static func number(_ s: String) -> Double? { s.isEmpty ? nil : Double(s) }

    /// `ddmm.mmmm` with its hemisphere, in degrees.
    private static func angle(_ value: String, _ hemisphere: String, degreeDigits: Int) -> Double? {
        guard value.count > degreeDigits, let degrees = Double(value.prefix(degreeDigits)), let minutes = Double(value.dropFirst(degreeDigits)),
              minutes < 60 else { return nil }
        let v = degrees + minutes / 60
        switch hemisphere {
        case "N", "E": return v
        case "S", "W": return -v
        default: return nil
        }
    }

    private static func timeOfDay(_ s: String) -> Double? {
        guard s.count >= 6, let h = Double(s.prefix(2)), let m = Double(s.dropFirst(2).prefix(2)), let sec = Double(s.dropFirst(4)),
              h < 24, m < 60, sec < 61 else { return nil }
        return h * 3600 + m * 60 + sec
    }

    private static func dayStart(_ s: String) -> Double? {
        guard s.count == 6, let d = Int(s.prefix(2)), let m = Int(s.dropFirst(2).prefix(2)), let y = Int(s.suffix(2)) else { return nil }
        let year = y < 80 ? 2000 + y : 1900 + y
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, m, d)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard (1...12).contains(m), (1...31).contains(d), let date = calendar.date(from: components) else { return nil }
        return date.timeIntervalSince1970
    }

    /// The epoch for `time`: the open one if it is the same instant, else a new one (the old is emitted).
    private mutating func epoch(at time: Double, line: Int) {
        if let e = epoch, e.timeOfDay == time { return }
        flush()
        epoch = Epoch(timeOfDay: time, line: line)
        if let dop = pendingDOP {
            epoch?.pdop = dop.pdop
            epoch?.hdop = dop.hdop
            epoch?.vdop = dop.vdop
            pendingDOP = nil
        }
    }

    private mutating func position(_ lat: String, _ ns: String, _ lon: String, _ ew: String, line: Int) -> Bool {
        guard let latitude = Self.angle(lat, ns, degreeDigits: 2), let longitude = Self.angle(lon, ew, degreeDigits: 3) else {
            queue.append(.rejected(Rejection(line: line, reason: "position \(lat),\(ns),\(lon),\(ew) is not ddmm.mm,N|S,dddmm.mm,E|W")))
            return false
        }
        if epoch?.latitude == nil {
            epoch?.latitude = latitude
            epoch?.longitude = longitude
        }
        return true
    }

    private mutating func rmc(_ f: [String], line: Int) {
        guard f.count >= 10 else { return queue.append(.rejected(Rejection(line: line, reason: "RMC has \(f.count) fields, not 12"))) }
        guard f[2] == "A" else { return queue.append(.rejected(Rejection(line: line, reason: "RMC without a fix (status \(f[2].isEmpty ? "empty" : f[2]))"))) }
        guard let t = Self.timeOfDay(f[1]) else { return queue.append(.rejected(Rejection(line: line, reason: "RMC time \"\(f[1])\" is not hhmmss"))) }
        epoch(at: t, line: line)
        guard position(f[3], f[4], f[5], f[6], line: line) else { return }
        if let knots = Self.number(f[7]) { epoch?.speed = knots * 1852 / 3600 }
        if let course = Self.number(f[8]) { epoch?.course = course }
        if let day = Self.dayStart(f[9]) {
            epoch?.date = day
            date = day
        }
    }

    private mutating func gga(_ f: [String], line: Int) {
        guard f.count >= 10 else { return queue.append(.rejected(Rejection(line: line, reason: "GGA has \(f.count) fields, not 15"))) }
        guard let quality = Int(f[6]), quality > 0 else { return queue.append(.rejected(Rejection(line: line, reason: "GGA without a fix (quality \(f[6].isEmpty ? "empty" : f[6]))"))) }
        guard let t = Self.timeOfDay(f[1]) else { return queue.append(.rejected(Rejection(line: line, reason: "GGA time \"\(f[1])\" is not hhmmss"))) }
        epoch(at: t, line: line)
        guard position(f[2], f[3], f[4], f[5], line: line) else { return }
        epoch?.satellites = Int(f[7])
        if let hdop = Self.number(f[8]) { epoch?.hdop = hdop }
        if let altitude = Self.number(f[9]) { epoch?.altitude = altitude }
    }

    private mutating func gll(_ f: [String], line: Int) {
        guard f.count >= 6 else { return queue.append(.rejected(Rejection(line: line, reason: "GLL has \(f.count) fields, not 7"))) }
        if f.count > 6, f[6] == "V" { return queue.append(.rejected(Rejection(line: line, reason: "GLL without a fix (status V)"))) }
        guard let t = Self.timeOfDay(f[5]) else { return queue.append(.rejected(Rejection(line: line, reason: "GLL time \"\(f[5])\" is not hhmmss"))) }
        epoch(at: t, line: line)
        _ = position(f[1], f[2], f[3], f[4], line: line)
    }

    /// GSA has no time: its DOPs go to the open epoch, or the next one.
    private mutating func gsa(_ f: [String]) {
        guard f.count >= 18 else { return }
        let dop = (Self.number(f[15]), Self.number(f[16]), Self.number(f[17]))
        if epoch != nil {
            epoch?.pdop = dop.0
            if epoch?.hdop == nil { epoch?.hdop = dop.1 }
            epoch?.vdop = dop.2
        } else {
            pendingDOP = dop
        }
    }

    private mutating func gst(_ f: [String], line: Int) {
        guard f.count >= 9, let t = Self.timeOfDay(f[1]) else { return }
        epoch(at: t, line: line)
        if let sLat = Self.number(f[6]), let sLon = Self.number(f[7]) { epoch?.accuracy = (sLat * sLat + sLon * sLon).squareRoot() }
    }

    /// Emits the open epoch as a fix, if it has a position.
    private mutating func flush() {
        guard let e = epoch else { return }
        epoch = nil
        guard let lat = e.latitude, let lon = e.longitude, let coordinate = try? Coordinate(latitude: lat, longitude: lon) else { return }
        var fix = Fix(coordinate: coordinate, line: e.line)
        if let day = e.date ?? date {
            var t = day + e.timeOfDay
            // Past midnight with no new date: the next day.
            if e.date == nil, let last = lastTimeOfDay, e.timeOfDay < last - 43_200 {
                date = day + 86_400
                t += 86_400
            }
            fix.time = t
        }
        lastTimeOfDay = e.timeOfDay
        fix.elevation = e.altitude
        fix.speed = e.speed
        fix.course = e.course
        fix.satellites = e.satellites
        fix.hdop = e.hdop
        fix.vdop = e.vdop
        fix.pdop = e.pdop
        fix.horizontalAccuracy = e.accuracy ?? e.hdop.map { $0 * Self.hdopMetres }
        queue.append(.trackPoint(fix))
    }
}
