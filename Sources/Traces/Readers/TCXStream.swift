import Geodesy

/// Reads Garmin's Training Center XML (TCX) as a stream of ``TraceEvent``s:
/// every `Activity` (and every `Course`) is a track and each of its `Track`
/// elements a segment; a `Trackpoint` gives `Time`, `Position`
/// (`LatitudeDegrees`, `LongitudeDegrees`) and `AltitudeMeters`. A
/// trackpoint with no position (a pause, heart rate only) is rejected with its
/// line; so is a bad number or time.
public struct TCXStream: TraceEventStream {
    private var scanner: XMLScanner
    private var queue = EventQueue()
    private var path: [String] = []
    private var sawRoot = false
    private var done = false
    private var point: (line: Int, lat: Double?, lon: Double?, time: Double?, elevation: Double?, problem: String?)?
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
            if !sawRoot {
                throw TraceError(.malformed, file: scanner.fileName, line: 1, column: 1, reason: "not a TCX file: the root element is not <TrainingCenterDatabase>")
            }
        case .start:
            let name = scanner.name
            if path.isEmpty {
                guard name == "TrainingCenterDatabase" else {
                    throw TraceError(.malformed, file: scanner.fileName, line: scanner.line, column: scanner.column,
                                     reason: "not a TCX file: the root element is <\(name)>, not <TrainingCenterDatabase>")
                }
                sawRoot = true
            }
            path.append(name)
            switch name {
            case "Activity", "Course": queue.append(.beginTrack)
            case "Track":
                queue.append(.beginSegment)
                lastTime = nil
            case "Trackpoint": point = (scanner.line, nil, nil, nil, nil, nil)
            default: break
            }
        case .end:
            let name = scanner.name
            let parent = path.count >= 2 ? path[path.count - 2] : ""
            _ = path.popLast()
            let text = scanner.text
            if name == "Trackpoint" {
                finishPoint()
                return
            }
            if name == "Name" && parent == "Course" {
                queue.append(.trackName(trimmedString(text)))
            } else if name == "Id" && parent == "Activity" {
                queue.append(.trackName(trimmedString(text)))
            }
            guard point != nil, point?.problem == nil else { return }
            switch name {
            case "Time":
                guard let t = ISO8601Time.parse(text) else {
                    point?.problem = "time \"\(trimmedString(text))\" is not an ISO 8601 date-time"
                    return
                }
                point?.time = t.seconds
            case "LatitudeDegrees", "LongitudeDegrees", "AltitudeMeters":
                guard let v = parseNumber(text), v.isFinite else {
                    point?.problem = "\(name) \"\(trimmedString(text))\" is not a number"
                    return
                }
                if name == "LatitudeDegrees" { point?.lat = v } else if name == "LongitudeDegrees" { point?.lon = v } else { point?.elevation = v }
            default:
                break
            }
        }
    }

    private mutating func finishPoint() {
        guard let p = point else { return }
        point = nil
        if let problem = p.problem {
            queue.append(.rejected(Rejection(line: p.line, reason: problem)))
            return
        }
        guard let lat = p.lat, let lon = p.lon else {
            queue.append(.rejected(Rejection(line: p.line, reason: "trackpoint has no position")))
            return
        }
        var fix: Fix
        do {
            fix = Fix(coordinate: try Coordinate(latitude: lat, longitude: lon), line: p.line)
        } catch {
            queue.append(.rejected(Rejection(line: p.line, reason: error.description)))
            return
        }
        fix.elevation = p.elevation
        if let t = p.time {
            if let last = lastTime, t < last {
                queue.append(.rejected(Rejection(line: p.line, reason: "time \(ISO8601Time.format(t)) is before the previous point's \(ISO8601Time.format(last))")))
                return
            }
            fix.time = t
            lastTime = t
        }
        queue.append(.trackPoint(fix))
    }
}
