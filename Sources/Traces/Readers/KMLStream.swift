import Foundation
import Geodesy

/// Reads KML 2.2 as a stream of ``TraceEvent``s.
///
/// Each `Placemark` with a `LineString` or a `gx:Track` is a track (as GPSBabel
/// does, a polygon's `LinearRing` too, an outline drawn as a walk) (a
/// `MultiGeometry` of line strings, or a `gx:MultiTrack`, one track with a
/// segment per part); its points are track points. A `Placemark` with a
/// `Point` is a waypoint, with the placemark's `name` and its `TimeStamp`
/// (or a `TimeSpan`'s `begin`). `gx:Track` pairs its `when` times with its
/// `gx:coord` positions in order, so only the times wait in memory, never the
/// points. Coordinates are `lon,lat[,alt]` (`gx:coord`: `lon lat alt`); a bad
/// tuple or time is rejected with the line it is on.
public struct KMLStream: TraceEventStream {
    private var scanner: XMLScanner
    private var queue = EventQueue()
    private var path: [String] = []
    private var sawKML = false
    private var done = false
    private var documentName: String?
    private var documentDescription: String?

    // The open placemark.
    private var inPlacemark = false
    private var placemarkName: String?
    private var placemarkDescription: String?
    private var placemarkTime: Double?
    private var placemarkTrackOpen = false
    private var pendingPoints: [Fix] = []
    // The open gx:Track: its times, and how many positions have been paired.
    private var trackTimes: [Double?] = []
    private var trackTimeLines: [Int] = []
    private var trackCoordIndex = 0
    private var lastTime: Double?

    public init(path: String) throws(TraceError) {
        scanner = try XMLScanner(source: ByteSource(path: path))
    }

    init(source: ByteSource) throws(TraceError) {
        scanner = try XMLScanner(source: source)
    }

    public mutating func next() throws(TraceError) -> TraceEvent? {
        while true {
            if let event = queue.take() { return event }
            if done { return nil }
            try step()
        }
    }

    private mutating func step() throws(TraceError) {
        switch try scanner.next() {
        case .endOfDocument:
            done = true
            if !sawKML { throw TraceError(.malformed, file: scanner.fileName, line: 1, column: 1, reason: "not a KML file: the root element is not <kml>") }
            queue.append(.metadata(name: documentName, description: documentDescription))
        case .start:
            try start(scanner.name)
        case .end:
            end(scanner.name)
        }
    }

    private mutating func start(_ name: String) throws(TraceError) {
        if path.isEmpty {
            guard name == "kml" else {
                throw TraceError(.malformed, file: scanner.fileName, line: scanner.line, column: scanner.column,
                                 reason: "not a KML file: the root element is <\(name)>, not <kml>")
            }
            sawKML = true
        }
        path.append(name)
        switch name {
        case "Placemark":
            inPlacemark = true
            placemarkName = nil
            placemarkDescription = nil
            placemarkTime = nil
            placemarkTrackOpen = false
            pendingPoints.removeAll()
        case "LineString" where inPlacemark, "LinearRing" where inPlacemark, "Track" where inPlacemark:
            if !placemarkTrackOpen {
                placemarkTrackOpen = true
                queue.append(.beginTrack)
                if let placemarkName { queue.append(.trackName(placemarkName)) }
            }
            queue.append(.beginSegment)
            lastTime = nil
            trackTimes.removeAll()
            trackTimeLines.removeAll()
            trackCoordIndex = 0
        default:
            break
        }
    }

    private mutating func end(_ name: String) {
        let parent = path.count >= 2 ? path[path.count - 2] : ""
        _ = path.popLast()
        let text = scanner.text
        switch name {
        case "name" where parent == "Placemark":
            placemarkName = trimmedString(text)
            if placemarkTrackOpen, let placemarkName { queue.append(.trackName(placemarkName)) }
        case "description" where parent == "Placemark":
            placemarkDescription = KMLText.plain(text)
        case "name" where (parent == "Document" || parent == "Folder") && documentName == nil:
            documentName = trimmedString(text)
        case "description" where parent == "Document" && documentDescription == nil:
            documentDescription = trimmedString(text)
        case "when" where parent == "TimeStamp", "begin" where parent == "TimeSpan":
            if placemarkTime == nil { placemarkTime = ISO8601Time.parse(text)?.seconds }
        case "when" where parent == "Track":
            trackTimes.append(ISO8601Time.parse(text)?.seconds)
            trackTimeLines.append(scanner.line)
            if trackTimes.last == .some(nil) {
                queue.append(.note("line \(scanner.line): time \"\(trimmedString(text))\" is not an ISO 8601 date-time"))
            }
        case "coord" where parent == "Track":
            trackCoordinate(text)
        case "coordinates":
            coordinates(text, in: parent)
        case "Track":
            if trackCoordIndex < trackTimes.count {
                for k in trackCoordIndex..<trackTimes.count {
                    queue.append(.rejected(Rejection(line: trackTimeLines[k], reason: "gx:Track has a <when> with no <gx:coord>")))
                }
            }
        case "Placemark":
            for fix in pendingPoints {
                var point = fix
                point.name = point.name ?? placemarkName
                point.description = point.description ?? placemarkDescription
                point.time = point.time ?? placemarkTime
                queue.append(.waypoint(point))
            }
            pendingPoints.removeAll()
            inPlacemark = false
        default:
            break
        }
    }

    /// One `gx:coord`: `lon lat [alt]`, paired with the track's next `when`.
    private mutating func trackCoordinate(_ text: [UInt8]) {
        let line = scanner.line
        let fields = text.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        let index = trackCoordIndex
        trackCoordIndex += 1
        guard fields.count >= 2, let lon = parseNumber(Array(fields[0])), let lat = parseNumber(Array(fields[1])) else {
            queue.append(.rejected(Rejection(line: line, reason: "gx:coord \"\(trimmedString(text))\" is not \"longitude latitude [altitude]\"")))
            return
        }
        var fix: Fix
        do {
            fix = Fix(coordinate: try Coordinate(latitude: lat, longitude: lon), line: line)
        } catch {
            queue.append(.rejected(Rejection(line: line, reason: error.description)))
            return
        }
        if fields.count >= 3 { fix.elevation = parseNumber(Array(fields[2])) }
        if index < trackTimes.count {
            guard let t = trackTimes[index] else {
                queue.append(.rejected(Rejection(line: trackTimeLines[index], reason: "the point's <when> is not an ISO 8601 date-time")))
                return
            }
            if let last = lastTime, t < last {
                queue.append(.rejected(Rejection(line: line, reason: "time \(ISO8601Time.format(t)) is before the previous point's \(ISO8601Time.format(last))")))
                return
            }
            fix.time = t
            lastTime = t
        }
        queue.append(.trackPoint(fix))
    }

    /// A `coordinates` list: `lon,lat[,alt]` tuples separated by white space,
    /// each rejected alone (with its own line) when it is not three numbers.
    private mutating func coordinates(_ text: [UInt8], in parent: String) {
        // The end tag's line, less the line breaks after a tuple, is the tuple's line.
        var breaksAfter = text.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        let endLine = scanner.line
        var tuples: [(bytes: ArraySlice<UInt8>, line: Int)] = []
        var i = 0
        while i < text.count {
            let c = text[i]
            if c == 0x0A { breaksAfter -= 1 }
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D {
                i += 1
                continue
            }
            let startIndex = i
            while i < text.count, !(text[i] == 0x20 || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D) { i += 1 }
            tuples.append((text[startIndex..<i], endLine - breaksAfter))
        }
        if tuples.isEmpty {
            queue.append(.rejected(Rejection(line: endLine, reason: "<coordinates> holds no coordinates")))
            return
        }
        for (bytes, line) in tuples {
            let parts = bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3, let lon = parseNumber(Array(parts[0])), let lat = parseNumber(Array(parts[1])) else {
                queue.append(.rejected(Rejection(line: line, reason: "coordinate \"\(trimmedString(Array(bytes)))\" is not \"longitude,latitude[,altitude]\"")))
                continue
            }
            var fix: Fix
            do {
                fix = Fix(coordinate: try Coordinate(latitude: lat, longitude: lon), line: line)
            } catch {
                queue.append(.rejected(Rejection(line: line, reason: error.description)))
                continue
            }
            if parts.count == 3 { fix.elevation = parseNumber(Array(parts[2])) }
            switch parent {
            case "Point":
                if inPlacemark { pendingPoints.append(fix) } else { queue.append(.waypoint(fix)) }
            case "LineString" where inPlacemark, "LinearRing" where inPlacemark:
                queue.append(.trackPoint(fix))
            default:
                break
            }
        }
    }
}

/// KML descriptions are often HTML (Google Earth and My Maps write `<br>`,
/// `<b>`, links): as a subtitle they become one line of plain text.
enum KMLText {
    /// Tags removed (`<br>`, `<p>` and `<div>` as a space), the common HTML
    /// entities decoded, runs of white space made one space; nil when nothing is left.
    static func plain<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8, C.Index == Int {
        let text = String(decoding: bytes, as: UTF8.self)
        var out = ""
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            let next = text.index(after: index)
            if c == "<", next < text.endIndex, text[next].isLetter || text[next] == "/" || text[next] == "!",
               let close = text[next...].firstIndex(of: ">") {
                out.append(" ")
                index = text.index(after: close)
                continue
            }
            out.append(c)
            index = next
        }
        for (entity, character) in [("&nbsp;", " "), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&amp;", "&")] {
            out = out.replacingOccurrences(of: entity, with: character)
        }
        let words = out.split(whereSeparator: { $0.isWhitespace })
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
