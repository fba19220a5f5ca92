import Foundation

/// Opens trace files: GPX or CSV, by extension or, failing that, by content.
public enum TraceReader {
    /// The format of `path`: `.gpx`/`.xml` are GPX, `.csv`/`.tsv`/`.txt` CSV,
    /// otherwise GPX when the first non-blank character is `<`.
    public static func format(of path: String) throws(TraceError) -> Trace.Format {
        switch (path as NSString).pathExtension.lowercased() {
        case "gpx", "xml": return .gpx
        case "csv", "tsv", "txt": return .csv
        default:
            let source = try ByteSource(path: path)
            let head = try source.nextChunk() ?? []
            let first = head.first { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF) }
            return first == UInt8(ascii: "<") ? .gpx : .csv
        }
    }

    /// A stream of the file's events, read on demand in bounded memory.
    public static func stream(_ path: String, csvMapping: CSVColumnMapping = CSVColumnMapping()) throws(TraceError) -> any TraceEventStream {
        switch try format(of: path) {
        case .gpx: return try GPXStream(path: path)
        case .csv: return try CSVStream(path: path, mapping: csvMapping)
        }
    }

    /// Reads the whole file. A CSV file whose times all run backwards (a
    /// newest-first location-history export) is turned around, with a note;
    /// otherwise each row whose time goes backwards is rejected.
    public static func read(_ path: String, csvMapping: CSVColumnMapping = CSVColumnMapping()) throws(TraceError) -> Trace {
        let format = try format(of: path)
        do {
            switch format {
            case .gpx:
                var stream = try GPXStream(path: path)
                return try Trace(format: .gpx, stream: &stream)
            case .csv:
                var stream = try CSVStream(source: ByteSource(path: path), mapping: csvMapping, checksOrder: false)
                var trace = try Trace(format: .csv, stream: &stream)
                trace.orderCSVTimes()
                return trace
            }
        } catch {
            var located = error
            located.file = path
            throw located
        }
    }

    /// Reads a trace from bytes in memory (tests, fuzzing); `name` stands for the file in errors.
    public static func read(bytes: Data, name: String, format: Trace.Format) throws(TraceError) -> Trace {
        switch format {
        case .gpx:
            var stream = try GPXStream(source: ByteSource(bytes: bytes, name: name))
            return try Trace(format: .gpx, stream: &stream)
        case .csv:
            var stream = try CSVStream(source: ByteSource(bytes: bytes, name: name), mapping: CSVColumnMapping(), checksOrder: false)
            var trace = try Trace(format: .csv, stream: &stream)
            trace.orderCSVTimes()
            return trace
        }
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
