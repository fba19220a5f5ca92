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
    private var path: [GPXElement] = []
    /// The point being read (open while its `depth` is above zero).
    private var point = PointBuilder()
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
            if !queue.isEmpty { return queue.take() }
            if done { return nil }
            if try step() { return finish() }
        }
    }

    /// Reads one token; true when it closes a point, whose event `finish()` then
    /// returns at once (the queue is empty then), any other event is queued.
    private mutating func step() throws(TraceError) -> Bool {
        switch try scanner.next() {
        case .endOfDocument:
            done = true
            if !sawGPX {
                throw TraceError(.malformed, file: scanner.fileName, line: 1, column: 1, reason: "not a GPX file: the root element is not <gpx>")
            }
            if sawZoneless { queue.append(.note("times without a zone were read as UTC")) }
        case .start:
            try start(scanner.withName { GPXElement($0) })
        case .end:
            return end(scanner.withName { GPXElement($0) })
        }
        return false
    }

    private mutating func start(_ name: GPXElement) throws(TraceError) {
        let depth = path.count
        path.append(name)
        if depth == 0 {
            guard name == .gpx else {
                throw TraceError(.malformed, file: scanner.fileName, line: scanner.line, column: scanner.column,
                                 reason: "not a GPX file: the root element is <\(scanner.name)>, not <gpx>")
            }
            sawGPX = true
            creator = scanner.attribute("creator").map { trimmedString($0) }
            return
        }
        if point.isOpen { return }
        switch (name, depth) {
        case (.trk, 1):
            queue.append(.beginTrack)
        case (.trkseg, 2) where path[1] == .trk:
            lastSegmentTime = nil
            queue.append(.beginSegment)
        case (.rte, 1):
            queue.append(.beginRoute)
        case (.trkpt, 3) where path[1] == .trk && path[2] == .trkseg,
             (.rtept, 2) where path[1] == .rte,
             (.wpt, 1):
            point.open(kind: name, depth: depth + 1, line: scanner.line,
                       latitude: scanner.attribute("lat"), longitude: scanner.attribute("lon"))
        default:
            break
        }
    }

    private mutating func end(_ name: GPXElement) -> Bool {
        let depth = path.count
        _ = path.popLast()
        let text = scanner.text
        if point.isOpen {
            if depth == point.depth {
                point.depth = 0
                return true
            }
            point.child(name, depth: depth, text: text)
            return false
        }
        switch (name, depth) {
        case (.name, 3) where path.last == .metadata, (.name, 2) where metadataName == nil:
            metadataName = string(text)
        case (.desc, 3) where path.last == .metadata, (.desc, 2) where metadataDescription == nil:
            metadataDescription = string(text)
        case (.name, 3) where path.last == .trk:
            queue.append(.trackName(string(text)))
        case (.name, 3) where path.last == .rte:
            queue.append(.routeName(string(text)))
        case (.gpx, 1):
            queue.append(.metadata(name: metadataName, description: metadataDescription ?? creator.map { "created by \($0)" }))
        default:
            break
        }
        return false
    }

    private func string(_ bytes: [UInt8]) -> String { trimmedString(bytes) }

    /// The event of the point just closed.
    private mutating func finish() -> TraceEvent {
        switch point.build() {
        case .failure(let rejection):
            return .rejected(rejection)
        case .success(let fix):
            if fix.timeWasZoneless { sawZoneless = true }
            switch point.kind {
            case .trkpt:
                if let t = fix.time, let last = lastSegmentTime, t < last {
                    return .rejected(Rejection(line: fix.line, reason: "time \(ISO8601Time.format(t)) is before the previous point's \(ISO8601Time.format(last))"))
                }
                if let t = fix.time { lastSegmentTime = t }
                return .trackPoint(fix)
            case .rtept:
                return .routePoint(fix)
            default:
                return .waypoint(fix)
            }
        }
    }
}


/// Collects one point's attributes and children as they arrive, parsing
/// each value at once; the first bad value rejects the point. Kept in place in
/// the stream (not as an optional) so that filling it in copies nothing.
private struct PointBuilder {
    private(set) var kind = GPXElement.other
    /// The depth of the point's element; 0 when no point is open.
    var depth = 0
    /// The point so far; its coordinate is real only when `problem` is nil.
    private var fix = Fix(coordinate: Coordinate(computedLatitude: 0, longitude: 0), line: 0)
    private var problem: String?
    private var line = 0
    private var nestedSpeed: Double?
    private var nestedCourse: Double?

    var isOpen: Bool { depth > 0 }

    /// Starts a point in place, from its element's `lat` and `lon` attributes.
    mutating func open(kind: GPXElement, depth: Int, line: Int, latitude: ArraySlice<UInt8>?, longitude: ArraySlice<UInt8>?) {
        self.kind = kind
        self.depth = depth
        self.line = line
        problem = nil
        nestedSpeed = nil
        nestedCourse = nil
        guard let latText = latitude else { problem = "\(kind.rawValue) has no lat attribute"; return }
        guard let lonText = longitude else { problem = "\(kind.rawValue) has no lon attribute"; return }
        guard let lat = parseNumber(latText) else { problem = "latitude \"\(trimmedString(latText))\" is not a number"; return }
        guard let lon = parseNumber(lonText) else { problem = "longitude \"\(trimmedString(lonText))\" is not a number"; return }
        do {
            fix = Fix(coordinate: try Coordinate(latitude: lat, longitude: lon), line: line)
        } catch {
            // (`fix` keeps the last point's values; they are never read while `problem` is set.)
            problem = error.description
        }
    }

    mutating func child(_ name: GPXElement, depth childDepth: Int, text: [UInt8]) {
        guard problem == nil, !isBlank(text) else { return }
        if childDepth == depth + 1 {
            switch name {
            case .time:
                guard let t = ISO8601Time.parse(text) else {
                    problem = "time \"\(trimmedString(text))\" is not an ISO 8601 date-time"
                    return
                }
                fix.time = t.seconds
                fix.timeWasZoneless = t.zoneless
            case .name: fix.name = trimmedString(text)
            case .desc: fix.description = trimmedString(text)
            case .fix: fix.fixType = trimmedString(text)
            case .ele, .hdop, .vdop, .pdop, .sat, .speed, .course:
                guard let v = number(name, text) else { return }
                switch name {
                case .ele: fix.elevation = v
                case .hdop: fix.hdop = v
                case .vdop: fix.vdop = v
                case .pdop: fix.pdop = v
                case .sat: fix.satellites = Int(exactly: v.rounded())
                case .speed: fix.speed = v
                default: fix.course = v
                }
            default: break
            }
        } else if childDepth > depth + 1 {
            // Extensions: Apple Health (speed, course, hAcc, vAcc), Garmin TrackPointExtension (speed, course).
            switch name {
            case .speed, .course, .bearing, .hAcc, .hacc, .vAcc, .vacc:
                guard let v = number(name, text) else { return }
                switch name {
                case .speed: nestedSpeed = nestedSpeed ?? v
                case .course, .bearing: nestedCourse = nestedCourse ?? v
                case .hAcc, .hacc: if fix.horizontalAccuracy == nil { fix.horizontalAccuracy = v }
                default: if fix.verticalAccuracy == nil { fix.verticalAccuracy = v }
                }
            default: break
            }
        }
    }

    private mutating func number(_ name: GPXElement, _ text: [UInt8]) -> Double? {
        guard let v = parseNumber(text), v.isFinite else {
            problem = "\(name.rawValue) \"\(trimmedString(text))\" is not a number"
            return nil
        }
        return v
    }

    func build() -> Result<Fix, Rejection> {
        if let problem { return .failure(Rejection(line: line, reason: problem)) }
        var fix = self.fix
        // A GPX 1.0 <speed> or <course> element wins over an extension's.
        fix.speed = fix.speed ?? nestedSpeed
        fix.course = fix.course ?? nestedCourse
        return .success(fix)
    }
}

/// The GPX elements the reader acts on, told from an element's local name
/// without making a string of it; any other name is `.other`.
enum GPXElement: String, CaseIterable {
    case gpx, metadata, trk, trkseg, rte, trkpt, rtept, wpt
    case name, desc, time, fix, ele, hdop, vdop, pdop, sat, speed, course, bearing, hAcc, hacc, vAcc, vacc
    case other = ""

    /// The name's bytes, at most eight, packed little-endian into one integer and
    /// matched at once (names hold no NUL byte, so the packing is unambiguous; the
    /// constants are the names so packed, which the tests check).
    init(_ name: UnsafeBufferPointer<UInt8>) {
        guard name.count <= 8 else {
            self = .other
            return
        }
        var key: UInt64 = 0
        var shift: UInt64 = 0
        for byte in name {
            key |= UInt64(byte) << shift
            shift += 8
        }
        switch key {
        case 0x787067: self = .gpx
        case 0x6174_6164_6174_656D: self = .metadata
        case 0x6B7274: self = .trk
        case 0x6765_736B_7274: self = .trkseg
        case 0x657472: self = .rte
        case 0x74_706B_7274: self = .trkpt
        case 0x74_7065_7472: self = .rtept
        case 0x747077: self = .wpt
        case 0x656D_616E: self = .name
        case 0x6373_6564: self = .desc
        case 0x656D_6974: self = .time
        case 0x786966: self = .fix
        case 0x656C65: self = .ele
        case 0x706F_6468: self = .hdop
        case 0x706F_6476: self = .vdop
        case 0x706F_6470: self = .pdop
        case 0x746173: self = .sat
        case 0x64_6565_7073: self = .speed
        case 0x6573_7275_6F63: self = .course
        case 0x67_6E69_7261_6562: self = .bearing
        case 0x6363_4168: self = .hAcc
        case 0x6363_6168: self = .hacc
        case 0x6363_4176: self = .vAcc
        case 0x6363_6176: self = .vacc
        default: self = .other
        }
    }
}
