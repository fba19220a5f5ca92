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
            return try start(GPXElement(key: scanner.nameKey))
        case .end:
            return end(GPXElement(key: scanner.nameKey))
        }
        return false
    }

    /// Opens an element; true when it is a point whose children and end tag
    /// were read along with it (see ``readPointChildren()``).
    private mutating func start(_ name: GPXElement) throws(TraceError) -> Bool {
        let depth = path.count
        path.append(name)
        if depth == 0 {
            guard name == .gpx else {
                throw TraceError(.malformed, file: scanner.fileName, line: scanner.line, column: scanner.column,
                                 reason: "not a GPX file: the root element is <\(scanner.name)>, not <gpx>")
            }
            sawGPX = true
            creator = scanner.attribute("creator").map { trimmedString($0) }
            return false
        }
        if point.isOpen { return false }
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
            let latitude = scanner.withAttribute("lat") { AttributeNumber($0) }
            let longitude = scanner.withAttribute("lon") { AttributeNumber($0) }
            point.open(kind: name, depth: depth + 1, line: scanner.line, latitude: latitude, longitude: longitude)
            return readPointChildren()
        default:
            break
        }
        return false
    }

    /// Reads the point just opened, while its children are plain leaves such as
    /// `<ele>12.5</ele>`, without a token for each (the scanner's
    /// ``XMLScanner/readLeafChildren(into:_:)``); true when its end tag was read too,
    /// and the point is then complete. Otherwise the rest of the point is read
    /// token by token, as any other element.
    private mutating func readPointChildren() -> Bool {
        let childDepth = path.count + 1
        let closed = scanner.readLeafChildren(into: &point) { point, key, text in
            point.child(GPXElement(key: key), depth: childDepth, text: text)
        }
        guard closed else { return false }
        _ = path.popLast()
        point.depth = 0
        return true
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
            text.withUnsafeBufferPointer { point.child(name, depth: depth, text: $0) }
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
        if let rejection = point.rejection { return .rejected(rejection) }
        point.complete()
        if point.fix.timeWasZoneless { sawZoneless = true }
        switch point.kind {
        case .trkpt:
            if let t = point.fix.time, let last = lastSegmentTime, t < last {
                return .rejected(Rejection(line: point.fix.line, reason: ISO8601Time.backwards(t, previous: "point", FormattedTime(last))))
            }
            if let t = point.fix.time { lastSegmentTime = t }
            return .trackPoint(point.fix)
        case .rtept:
            return .routePoint(point.fix)
        default:
            return .waypoint(point.fix)
        }
    }
}


/// A number attribute as read in place: absent, a number, or the (trimmed) text that is not one.
private enum AttributeNumber {
    case missing
    case number(Double)
    case invalid(String)

    init(_ bytes: UnsafeBufferPointer<UInt8>?) {
        guard let bytes else {
            self = .missing
            return
        }
        if let value = parseNumber(buffer: bytes) { self = .number(value) } else { self = .invalid(trimmedString(bytes)) }
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
    private(set) var fix = Fix(coordinate: Coordinate(computedLatitude: 0, longitude: 0), line: 0)
    private var problem: String?
    private var line = 0
    private var nestedSpeed: Double?
    private var nestedCourse: Double?
    /// The day number of the last date read: a trace's times mostly fall on one day.
    private var dates = DayNumberCache()

    var isOpen: Bool { depth > 0 }

    /// Starts a point in place, from its element's `lat` and `lon` attributes.
    mutating func open(kind: GPXElement, depth: Int, line: Int, latitude: AttributeNumber, longitude: AttributeNumber) {
        self.kind = kind
        self.depth = depth
        self.line = line
        problem = nil
        nestedSpeed = nil
        nestedCourse = nil
        if case .missing = latitude { problem = "\(kind.rawValue) has no lat attribute"; return }
        if case .missing = longitude { problem = "\(kind.rawValue) has no lon attribute"; return }
        if case .invalid(let text) = latitude { problem = "latitude \"\(text)\" is not a number"; return }
        if case .invalid(let text) = longitude { problem = "longitude \"\(text)\" is not a number"; return }
        guard case .number(let lat) = latitude, case .number(let lon) = longitude else { return }
        do {
            fix = Fix(coordinate: try Coordinate(latitude: lat, longitude: lon), line: line)
        } catch {
            // (`fix` keeps the last point's values; they are never read while `problem` is set.)
            problem = error.description
        }
    }

    mutating func child(_ name: GPXElement, depth childDepth: Int, text: UnsafeBufferPointer<UInt8>) {
        guard problem == nil, !isBlank(text) else { return }
        if childDepth == depth + 1 {
            switch name {
            case .time:
                guard let t = ISO8601Time.parseFixedLayout(text, dates: &dates) ?? ISO8601Time.parse(text) else {
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

    private mutating func number(_ name: GPXElement, _ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let v = parseNumber(buffer: text), v.isFinite else {
            problem = "\(name.rawValue) \"\(trimmedString(text))\" is not a number"
            return nil
        }
        return v
    }

    /// Why the point is rejected, if it is.
    var rejection: Rejection? { problem.map { Rejection(line: line, reason: $0) } }

    /// Completes `fix` once the point's element has closed (and it is not rejected).
    mutating func complete() {
        // A GPX 1.0 <speed> or <course> element wins over an extension's.
        fix.speed = fix.speed ?? nestedSpeed
        fix.course = fix.course ?? nestedCourse
    }
}

/// The GPX elements the reader acts on, told from an element's local name
/// without making a string of it; any other name is `.other`.
enum GPXElement: String, CaseIterable {
    case gpx, metadata, trk, trkseg, rte, trkpt, rtept, wpt
    case name, desc, time, fix, ele, hdop, vdop, pdop, sat, speed, course, bearing, hAcc, hacc, vAcc, vacc
    case other = ""

    init(_ name: UnsafeBufferPointer<UInt8>) {
        self.init(key: name.baseAddress.map { ByteSearch.packedName($0, count: name.count) } ?? 0)
    }

    /// From the name's bytes, at most eight, packed little-endian into one integer
    /// and matched at once (names hold no NUL byte, so the packing is unambiguous;
    /// the constants are the names so packed, which the tests check).
    init(key: UInt64) {
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
