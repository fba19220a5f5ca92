import Geodesy

/// Reads GPX 1.0 and 1.1 as a stream of ``TraceEvent``s, point by point.
///
/// Takes `trk/trkseg/trkpt`, `rte/rtept` and `wpt` with `ele`, `time`,
/// `hdop`/`vdop`/`pdop`, `sat`, `fix`, `name`, GPX 1.0's `speed` and
/// `course`, and the extensions real exporters write for speed, course and
/// accuracy (Apple Health's `speed`, `course`, `hAcc`, `vAcc`; Garmin's
/// TrackPointExtension `speed` and `course`), with or without namespace
/// prefixes. A point with a bad latitude, longitude, number or time is
/// rejected with its line and reason; a track point whose time goes
/// backwards within its segment likewise. The rest of the file still reads.
public struct GPXStream: TraceEventStream {
    private var scanner: XMLScanner
    private var queue = EventQueue()
    private var path: [String] = []
    private var point: PointBuilder?
    private var lastSegmentTime: Double?
    private var metadataName: String?
    private var metadataDescription: String?
    private var creator: String?
    private var sawGPX = false
    private var sawZoneless = false
    private var done = false

    /// Opens a GPX file for streaming.
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
            if !sawGPX {
                throw TraceError(.malformed, file: scanner.fileName, line: 1, column: 1, reason: "not a GPX file: the root element is not <gpx>")
            }
            if sawZoneless { queue.append(.note("times without a zone were read as UTC")) }
        case .start:
            try start(scanner.name)
        case .end:
            try end(scanner.name)
        }
    }

    private mutating func start(_ name: String) throws(TraceError) {
        let depth = path.count
        path.append(name)
        if depth == 0 {
            guard name == "gpx" else {
                throw TraceError(.malformed, file: scanner.fileName, line: scanner.line, column: scanner.column,
                                 reason: "not a GPX file: the root element is <\(name)>, not <gpx>")
            }
            sawGPX = true
            creator = scanner.attribute("creator").map { trimmedString($0) }
            return
        }
        if point != nil { return }
        switch (name, depth) {
        case ("trk", 1):
            queue.append(.beginTrack)
        case ("trkseg", 2) where path[1] == "trk":
            lastSegmentTime = nil
            queue.append(.beginSegment)
        case ("rte", 1):
            queue.append(.beginRoute)
        case ("trkpt", 3) where path[1] == "trk" && path[2] == "trkseg",
             ("rtept", 2) where path[1] == "rte",
             ("wpt", 1):
            point = PointBuilder(kind: name, depth: depth + 1, line: scanner.line, scanner: scanner)
        default:
            break
        }
    }

    private mutating func end(_ name: String) throws(TraceError) {
        let depth = path.count
        _ = path.popLast()
        let text = scanner.text
        if let pointDepth = point?.depth {
            if depth == pointDepth, let builder = point.take() {
                finish(builder)
            } else {
                point?.child(name, depth: depth, text: text)
            }
            return
        }
        switch (name, depth) {
        case ("name", 3) where path.last == "metadata", ("name", 2) where metadataName == nil:
            metadataName = string(text)
        case ("desc", 3) where path.last == "metadata", ("desc", 2) where metadataDescription == nil:
            metadataDescription = string(text)
        case ("name", 3) where path.last == "trk":
            queue.append(.trackName(string(text)))
        case ("name", 3) where path.last == "rte":
            queue.append(.routeName(string(text)))
        case ("gpx", 1):
            queue.append(.metadata(name: metadataName, description: metadataDescription ?? creator.map { "created by \($0)" }))
        default:
            break
        }
    }

    private func string(_ bytes: [UInt8]) -> String { trimmedString(bytes) }

    private mutating func finish(_ builder: PointBuilder) {
        switch builder.build() {
        case .failure(let rejection):
            queue.append(.rejected(rejection))
        case .success(let fix):
            if fix.timeWasZoneless { sawZoneless = true }
            switch builder.kind {
            case "trkpt":
                if let t = fix.time, let last = lastSegmentTime, t < last {
                    queue.append(.rejected(Rejection(line: fix.line, reason: "time \(ISO8601Time.format(t)) is before the previous point's \(ISO8601Time.format(last))")))
                    return
                }
                if let t = fix.time { lastSegmentTime = t }
                queue.append(.trackPoint(fix))
            case "rtept":
                queue.append(.routePoint(fix))
            default:
                queue.append(.waypoint(fix))
            }
        }
    }
}


/// Collects one point's attributes and children as they arrive, parsing
/// each value at once; the first bad value rejects the point.
private struct PointBuilder {
    let kind: String
    let depth: Int
    var fix: Fix?
    var problem: String?
    private var line: Int
    private var nestedSpeed: Double?
    private var nestedCourse: Double?

    init(kind: String, depth: Int, line: Int, scanner: XMLScanner) {
        self.kind = kind
        self.depth = depth
        self.line = line
        guard let latText = scanner.attribute("lat") else { problem = "\(kind) has no lat attribute"; return }
        guard let lonText = scanner.attribute("lon") else { problem = "\(kind) has no lon attribute"; return }
        guard let lat = parseNumber(latText) else { problem = "latitude \"\(trimmedString(latText))\" is not a number"; return }
        guard let lon = parseNumber(lonText) else { problem = "longitude \"\(trimmedString(lonText))\" is not a number"; return }
        do {
            fix = Fix(coordinate: try Coordinate(latitude: lat, longitude: lon), line: line)
        } catch {
            problem = error.description
        }
    }

    mutating func child(_ name: String, depth childDepth: Int, text: [UInt8]) {
        guard problem == nil, fix != nil, !isBlank(text) else { return }
        if childDepth == depth + 1 {
            switch name {
            case "time":
                guard let t = ISO8601Time.parse(text) else {
                    problem = "time \"\(trimmedString(text))\" is not an ISO 8601 date-time"
                    return
                }
                fix?.time = t.seconds
                fix?.timeWasZoneless = t.zoneless
            case "name": fix?.name = trimmedString(text)
            case "desc": fix?.description = trimmedString(text)
            case "fix": fix?.fixType = trimmedString(text)
            case "ele", "hdop", "vdop", "pdop", "sat", "speed", "course":
                guard let v = number(name, text) else { return }
                switch name {
                case "ele": fix?.elevation = v
                case "hdop": fix?.hdop = v
                case "vdop": fix?.vdop = v
                case "pdop": fix?.pdop = v
                case "sat": fix?.satellites = Int(exactly: v.rounded())
                case "speed": fix?.speed = v
                default: fix?.course = v
                }
            default: break
            }
        } else if childDepth > depth + 1 {
            // Extensions: Apple Health (speed, course, hAcc, vAcc), Garmin TrackPointExtension (speed, course).
            switch name {
            case "speed", "course", "bearing", "hAcc", "hacc", "vAcc", "vacc":
                guard let v = number(name, text) else { return }
                switch name {
                case "speed": nestedSpeed = nestedSpeed ?? v
                case "course", "bearing": nestedCourse = nestedCourse ?? v
                case "hAcc", "hacc": if fix?.horizontalAccuracy == nil { fix?.horizontalAccuracy = v }
                default: if fix?.verticalAccuracy == nil { fix?.verticalAccuracy = v }
                }
            default: break
            }
        }
    }

    private mutating func number(_ name: String, _ text: [UInt8]) -> Double? {
        guard let v = parseNumber(text), v.isFinite else {
            problem = "\(name) \"\(trimmedString(text))\" is not a number"
            return nil
        }
        return v
    }

    func build() -> Result<Fix, Rejection> {
        guard var fix, problem == nil else { return .failure(Rejection(line: line, reason: problem ?? "no position")) }
        // A GPX 1.0 <speed> or <course> element wins over an extension's.
        fix.speed = fix.speed ?? nestedSpeed
        fix.course = fix.course ?? nestedCourse
        return .success(fix)
    }
}
