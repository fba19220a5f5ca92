import Foundation

/// Writes traces as GPX 1.1 or CSV that Stroll (and other tools) read back
/// to an equal trace: every field a ``Fix`` holds survives the round trip.
public enum TraceWriter {
    /// GPX 1.1. Speed, course and accuracies go in `<extensions>` as Apple
    /// Health writes them (`speed`, `course`, `hAcc`, `vAcc`).
    public static func gpx(_ trace: Trace, creator: String = "Stroll") -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<gpx version=\"1.1\" creator=\"\(escape(creator))\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        if trace.name != nil || trace.description != nil {
            out += "  <metadata>\n"
            if let name = trace.name { out += "    <name>\(escape(name))</name>\n" }
            if let desc = trace.description { out += "    <desc>\(escape(desc))</desc>\n" }
            out += "  </metadata>\n"
        }
        for fix in trace.waypoints { point("wpt", fix, indent: "  ", into: &out) }
        for route in trace.routes {
            out += "  <rte>\n"
            if let name = route.name { out += "    <name>\(escape(name))</name>\n" }
            for fix in route.points { point("rtept", fix, indent: "    ", into: &out) }
            out += "  </rte>\n"
        }
        for track in trace.tracks {
            out += "  <trk>\n"
            if let name = track.name { out += "    <name>\(escape(name))</name>\n" }
            for segment in track.segments {
                out += "    <trkseg>\n"
                for fix in segment.fixes { point("trkpt", fix, indent: "      ", into: &out) }
                out += "    </trkseg>\n"
            }
            out += "  </trk>\n"
        }
        out += "</gpx>\n"
        return out
    }

    private static func point(_ tag: String, _ fix: Fix, indent: String, into out: inout String) {
        out += "\(indent)<\(tag) lat=\"\(fix.coordinate.latitude)\" lon=\"\(fix.coordinate.longitude)\">"
        if let e = fix.elevation { out += "<ele>\(e)</ele>" }
        if let t = fix.time { out += "<time>\(zoned(t, fix.timeWasZoneless))</time>" }
        if let n = fix.name { out += "<name>\(escape(n))</name>" }
        if let d = fix.description { out += "<desc>\(escape(d))</desc>" }
        if let f = fix.fixType { out += "<fix>\(escape(f))</fix>" }
        if let s = fix.satellites { out += "<sat>\(s)</sat>" }
        if let h = fix.hdop { out += "<hdop>\(h)</hdop>" }
        if let v = fix.vdop { out += "<vdop>\(v)</vdop>" }
        if let p = fix.pdop { out += "<pdop>\(p)</pdop>" }
        var extensions = ""
        if let s = fix.speed { extensions += "<speed>\(s)</speed>" }
        if let c = fix.course { extensions += "<course>\(c)</course>" }
        if let h = fix.horizontalAccuracy { extensions += "<hAcc>\(h)</hAcc>" }
        if let v = fix.verticalAccuracy { extensions += "<vAcc>\(v)</vAcc>" }
        if !extensions.isEmpty { out += "<extensions>\(extensions)</extensions>" }
        out += "</\(tag)>\n"
    }

    /// A time as written: with `Z`, or without a zone when it was read without one.
    static func zoned(_ t: Double, _ zoneless: Bool) -> String {
        let text = ISO8601Time.format(t)
        return zoneless ? String(text.dropLast()) : text
    }

    /// Text escaped for XML content and attribute values (control characters,
    /// which XML 1.0 does not allow, become spaces).
    public static func escape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case let c where c.value < 0x20 && c != "\n" && c != "\t" && c != "\r": out += " "
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The CSV header ``csv(_:)`` writes; the reader recognises every column.
    public static let csvHeader = "time,latitude,longitude,elevation,accuracy,vertical_accuracy,speed,course,name"

    /// CSV of the replayed fixes (tracks, else routes, else waypoints), one row each.
    /// Segment breaks are not representable in CSV: the rows are one segment.
    public static func csv(_ trace: Trace) -> String {
        var out = csvHeader + "\n"
        for segment in trace.replaySegments {
            for fix in segment.fixes {
                let fields: [String] = [
                    fix.time.map { zoned($0, fix.timeWasZoneless) } ?? "",
                    "\(fix.coordinate.latitude)", "\(fix.coordinate.longitude)",
                    fix.elevation.map { "\($0)" } ?? "", fix.horizontalAccuracy.map { "\($0)" } ?? "",
                    fix.verticalAccuracy.map { "\($0)" } ?? "", fix.speed.map { "\($0)" } ?? "",
                    fix.course.map { "\($0)" } ?? "", fix.name.map(CSVField.quoted) ?? "",
                ]
                out += fields.joined(separator: ",") + "\n"
            }
        }
        return out
    }

    /// Writes `text` to `path` atomically, through ``OutputFile``: a
    /// temporary file beside it, flushed to the disk, then a rename.
    public static func writeAtomically(_ text: String, to path: String) throws(OutputFileError) {
        try OutputFile.write(text, to: path)
    }
}
