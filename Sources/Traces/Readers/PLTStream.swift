import Foundation
import Geodesy

/// Reads a GeoLife trajectory (`.plt`): six header lines, then
/// `latitude,longitude,0,altitude in feet,days since 1899-12-30,date,time`
/// per point (times in UTC; an altitude of -777 means none). One track of one
/// segment; a bad line is rejected with its number.
public struct PLTStream: TraceEventStream {
    private var lines: LineReader
    private var started = false
    private var lastTime: Double?

    public init(path: String) throws(TraceError) {
        lines = LineReader(source: try ByteSource(path: path))
    }

    init(source: ByteSource) {
        lines = LineReader(source: source)
    }

    public mutating func next() throws(TraceError) -> TraceEvent? {
        if !started {
            started = true
            guard let first = try lines.next(), String(decoding: first, as: UTF8.self).hasPrefix("Geolife trajectory") else {
                throw TraceError(.malformed, file: lines.fileName, line: 1, column: 1, reason: "not a GeoLife .plt file: the first line is not \"Geolife trajectory\"")
            }
            for _ in 0..<5 { _ = try lines.next() }
            return .beginTrack
        }
        while let raw = try lines.next() {
            if isBlank(raw) { continue }
            let line = lines.lineNumber
            let f = raw.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard f.count >= 7, let lat = parseNumber(Array(f[0])), let lon = parseNumber(Array(f[1])) else {
                return .rejected(Rejection(line: line, reason: "not \"latitude,longitude,0,altitude,days,date,time\""))
            }
            let coordinate: Coordinate
            do {
                coordinate = try Coordinate(latitude: lat, longitude: lon)
            } catch {
                return .rejected(Rejection(line: line, reason: error.description))
            }
            let stamp = trimmedString(Array(f[5])) + "T" + trimmedString(Array(f[6])) + "Z"
            guard let time = ISO8601Time.parse(stamp)?.seconds else {
                return .rejected(Rejection(line: line, reason: "date and time \"\(stamp)\" are not yyyy-mm-dd and hh:mm:ss"))
            }
            if let last = lastTime, time < last {
                return .rejected(Rejection(line: line, reason: "time \(ISO8601Time.format(time)) is before the previous point's \(ISO8601Time.format(last))"))
            }
            lastTime = time
            var fix = Fix(coordinate: coordinate, line: line)
            fix.time = time
            if let feet = parseNumber(Array(f[3])), feet != -777 { fix.elevation = feet * 0.3048 }
            return .trackPoint(fix)
        }
        return nil
    }
}
