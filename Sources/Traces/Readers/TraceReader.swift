import Foundation

/// Opens trace files: GPX, CSV (GPSLogger's too), KML, TCX, GeoJSON, NMEA and
/// GeoLife `.plt`, each plain or gzip-compressed; KML zipped as KMZ (or any of
/// them in a `.zip`, see `ZipMember`).
public enum TraceReader {
    /// The format of `path`. `.gpx`, `.csv`/`.tsv`, `.kml`, `.tcx`, `.geojson`,
    /// `.nmea` and `.plt` say it (`.kmz` says KML); anything else (`.xml`, `.txt`, `.json`, `.log`,
    /// `.gz`, no extension) is told by content: the XML root element (`gpx`,
    /// `kml`, `TrainingCenterDatabase`), `{` for GeoJSON, `$` for NMEA, the GeoLife
    /// header, else CSV. A gzip file is looked at inflated, a ZIP archive at its member.
    public static func format(of path: String) throws(TraceError) -> Trace.Format {
        switch (path as NSString).pathExtension.lowercased() {
        case "gpx": return .gpx
        case "csv", "tsv": return .csv
        case "kml", "kmz": return .kml
        case "tcx": return .tcx
        case "geojson": return .geojson
        case "nmea", "nma": return .nmea
        case "plt": return .plt
        default: return try sniff(ByteSource(path: path))
        }
    }

    /// The format told by the first bytes of the (inflated) content.
    static func sniff(_ source: ByteSource) throws(TraceError) -> Trace.Format {
        let head = try source.nextChunk() ?? []
        let start = head.firstIndex { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) } ?? head.endIndex
        let text = String(decoding: head[start...].prefix(8192), as: UTF8.self)
        if text.hasPrefix("<") {
            let roots: [(String, Trace.Format)] = [("gpx", .gpx), ("kml", .kml), ("TrainingCenterDatabase", .tcx)]
            let found = roots.compactMap { root, format -> (String.Index, Trace.Format)? in
                let pattern = "<(?:[A-Za-z0-9_]+:)?\(root)[\\s>/]"
                return text.range(of: pattern, options: .regularExpression).map { ($0.lowerBound, format) }
            }
            return found.min { $0.0 < $1.0 }?.1 ?? .gpx
        }
        if text.hasPrefix("{") { return .geojson }
        if text.hasPrefix("$") || text.hasPrefix("!") { return .nmea }
        if text.hasPrefix("Geolife trajectory") { return .plt }
        return .csv
    }

    /// A stream of the file's events, read on demand in bounded memory (GeoJSON: see ``read(_:csvMapping:progress:)``).
    public static func stream(_ path: String, csvMapping: CSVColumnMapping = CSVColumnMapping()) throws(TraceError) -> any TraceEventStream {
        try stream(format: format(of: path), source: ByteSource(path: path), csvMapping: csvMapping, checksOrder: true)
    }

    static func stream(format: Trace.Format, source: ByteSource, csvMapping: CSVColumnMapping, checksOrder: Bool) throws(TraceError) -> any TraceEventStream {
        switch format {
        case .gpx: return try GPXStream(source: source)
        case .csv: return try CSVStream(source: source, mapping: csvMapping, checksOrder: checksOrder)
        case .kml: return try KMLStream(source: source)
        case .tcx: return try TCXStream(source: source)
        case .nmea: return NMEAStream(source: source)
        case .plt: return PLTStream(source: source)
        case .geojson: return TraceEventReplay(try GeoJSONTrace.read(source))
        }
    }

    /// Reads the whole file. A CSV file whose times all run backwards (a
    /// newest-first location-history export) is turned around, with a note;
    /// otherwise each row whose time goes backwards is rejected. `progress`
    /// hears how much of the file has been read (``ReadProgress``).
    public static func read(_ path: String, csvMapping: CSVColumnMapping = CSVColumnMapping(), progress: ReadProgress.Observer? = nil) throws(TraceError) -> Trace {
        do {
            let format = try format(of: path)
            return try read(format: format, source: ByteSource(path: path, progress: progress), csvMapping: csvMapping)
        } catch {
            var located = error
            if !located.file.hasPrefix(path + "(") { located.file = path }
            throw located
        }
    }

    /// Reads a trace from bytes in memory (tests, fuzzing); `name` stands for the file in errors.
    public static func read(bytes: Data, name: String, format: Trace.Format) throws(TraceError) -> Trace {
        try read(format: format, source: ByteSource(bytes: bytes, name: name), csvMapping: CSVColumnMapping())
    }

    static func read(format: Trace.Format, source: ByteSource, csvMapping: CSVColumnMapping) throws(TraceError) -> Trace {
        if format == .geojson { return try GeoJSONTrace.read(source) }
        var stream = try stream(format: format, source: source, csvMapping: csvMapping, checksOrder: false)
        var trace = try Trace(format: format, stream: &stream)
        if format == .csv { trace.orderCSVTimes() }
        return trace
    }
}

/// A trace already in memory, given back as events (for readers that parse whole files).
struct TraceEventReplay: TraceEventStream {
    private var events: [TraceEvent] = []
    private var index = 0

    init(_ trace: Trace) {
        events.append(.metadata(name: trace.name, description: trace.description))
        for track in trace.tracks {
            events.append(.beginTrack)
            if let name = track.name { events.append(.trackName(name)) }
            for segment in track.segments {
                events.append(.beginSegment)
                events += segment.fixes.map(TraceEvent.trackPoint)
            }
        }
        events += trace.waypoints.map(TraceEvent.waypoint)
        events += trace.rejected.map(TraceEvent.rejected)
        events += trace.notes.map(TraceEvent.note)
    }

    mutating func next() throws(TraceError) -> TraceEvent? {
        guard index < events.count else { return nil }
        defer { index += 1 }
        return events[index]
    }
}

extension Trace {
    /// Reverses a CSV track whose timed rows never go forward (and do go back
    /// at least once); otherwise rejects each row whose time goes backwards.
    mutating func orderCSVTimes() {
        guard !tracks.isEmpty, !tracks[0].segments.isEmpty else { return }
        var fixes = tracks[0].segments[0].fixes
        var order = TimeOrder()
        for fix in fixes { if let t = fix.time { order.add(t) } }
        if order.newestFirst {
            fixes.reverse()
            notes.append("the rows run newest first; the trace was reversed into time order")
        } else {
            var kept: [Fix] = []
            var last: Double?
            for fix in fixes {
                if let t = fix.time, let l = last, t < l {
                    rejected.append(Rejection(line: fix.line, reason: "time \(ISO8601Time.format(t)) is before the previous row's \(ISO8601Time.format(l))"))
                    continue
                }
                if let t = fix.time { last = t }
                kept.append(fix)
            }
            fixes = kept
            rejected.sort { $0.line < $1.line }
        }
        tracks[0].segments[0].fixes = fixes
    }
}

/// Watches a sequence of times to tell whether it runs newest first: it
/// never goes forward, and does go back at least once.
struct TimeOrder {
    private var first: Double?
    private var last: Double?
    private var forward = false

    mutating func add(_ t: Double) {
        if let l = last, t > l { forward = true }
        if first == nil { first = t }
        last = t
    }

    var newestFirst: Bool {
        guard let first, let last else { return false }
        return !forward && last < first
    }
}
