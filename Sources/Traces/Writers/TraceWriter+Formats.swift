import Foundation

extension TraceWriter {
    /// The formats ``write(_:as:)`` writes.
    public enum OutputFormat: String, Sendable, CaseIterable {
        case gpx, kml, tcx, csv, geojson, nmea
        /// KML zipped as `doc.kml`, as Google Earth writes KMZ.
        case kmz
        /// Xcode's location GPX: the fixes as timed `wpt`s, the form Xcode's scheme location and `simctl` replay.
        case xcodeGPX = "xcode-gpx"

        /// The format a file name says (`.gpx`, `.kml`, `.kmz`, `.tcx`, `.csv`, `.geojson`/`.json`, `.nmea`), else nil.
        public init?(fileName: String) {
            switch (fileName as NSString).pathExtension.lowercased() {
            case "gpx": self = .gpx
            case "kml": self = .kml
            case "kmz": self = .kmz
            case "tcx": self = .tcx
            case "csv": self = .csv
            case "geojson", "json": self = .geojson
            case "nmea", "nma": self = .nmea
            default: return nil
            }
        }
    }

    /// The file's bytes: the text of ``write(_:as:)``, or for KMZ that KML zipped.
    public static func data(_ trace: Trace, as format: OutputFormat) -> Data {
        switch format {
        // The member's date is the trace's first time, so the same trace always gives the same bytes.
        case .kmz: return ZipWriter.archive(member: "doc.kml", contents: Data(kml(trace).utf8), time: Date(timeIntervalSince1970: trace.replaySegments.lazy.compactMap { $0.fixes.first?.time }.first ?? 0))
        default: return Data(write(trace, as: format).utf8)
        }
    }

    /// The file's text (KMZ: the KML it zips).
    public static func write(_ trace: Trace, as format: OutputFormat) -> String {
        switch format {
        case .gpx: return gpx(trace)
        case .kml, .kmz: return kml(trace)
        case .tcx: return tcx(trace)
        case .csv: return csv(trace)
        case .geojson: return geoJSON(trace)
        case .nmea: return nmea(trace)
        case .xcodeGPX: return xcodeGPX(trace)
        }
    }

    /// KML 2.2: a placemark per track with a `gx:MultiTrack` of one `gx:Track`
    /// per segment (`when` and `gx:coord` pairs), or, when some segment has no
    /// times, a `MultiGeometry` with those as `LineString`s; a `Point` placemark per waypoint.
    public static func kml(_ trace: Trace) -> String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
        <Document>

        """
        if let name = trace.name { out += "<name>\(escape(name))</name>\n" }
        for fix in trace.waypoints {
            out += "<Placemark>"
            if let name = fix.name { out += "<name>\(escape(name))</name>" }
            if let d = fix.description { out += "<description>\(escape(d))</description>" }
            if let t = fix.time { out += "<TimeStamp><when>\(zoned(t, false))</when></TimeStamp>" }
            out += "<Point><coordinates>\(fix.coordinate.longitude),\(fix.coordinate.latitude)\(fix.elevation.map { ",\($0)" } ?? "")</coordinates></Point></Placemark>\n"
        }
        for track in trace.replayTracks {
            out += "<Placemark>\n"
            if let name = track.name { out += "<name>\(escape(name))</name>\n" }
            let segments = track.segments.filter { !$0.fixes.isEmpty }
            // All timed: a gx:MultiTrack; otherwise a MultiGeometry (untimed segments as LineStrings).
            let timed = segments.allSatisfy { $0.fixes.allSatisfy { $0.time != nil } }
            out += timed ? "<gx:MultiTrack>\n" : "<MultiGeometry>\n"
            for segment in segments {
                if segment.fixes.allSatisfy({ $0.time != nil }) {
                    out += "<gx:Track>\n"
                    for fix in segment.fixes { out += "<when>\(zoned(fix.time ?? 0, false))</when>\n" }
                    for fix in segment.fixes { out += "<gx:coord>\(fix.coordinate.longitude) \(fix.coordinate.latitude) \(fix.elevation ?? 0)</gx:coord>\n" }
                    out += "</gx:Track>\n"
                } else {
                    out += "<LineString><coordinates>\n"
                    for fix in segment.fixes { out += "\(fix.coordinate.longitude),\(fix.coordinate.latitude)\(fix.elevation.map { ",\($0)" } ?? "")\n" }
                    out += "</coordinates></LineString>\n"
                }
            }
            out += timed ? "</gx:MultiTrack>\n</Placemark>\n" : "</MultiGeometry>\n</Placemark>\n"
        }
        out += "</Document>\n</kml>\n"
        return out
    }

    /// Garmin TCX: an activity per track, a lap with a `Track` per segment.
    public static func tcx(_ trace: Trace) -> String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
        <Activities>

        """
        for track in trace.replayTracks {
            let first = track.segments.lazy.flatMap(\.fixes).first { $0.time != nil }?.time ?? 978_307_200
            out += "<Activity Sport=\"Other\">\n<Id>\(zoned(first, false))</Id>\n<Lap StartTime=\"\(zoned(first, false))\">\n"
            out += "<TotalTimeSeconds>0</TotalTimeSeconds><DistanceMeters>0</DistanceMeters><Intensity>Active</Intensity><TriggerMethod>Manual</TriggerMethod>\n"
            for segment in track.segments where !segment.fixes.isEmpty {
                out += "<Track>\n"
                for fix in segment.fixes {
                    out += "<Trackpoint>"
                    if let t = fix.time { out += "<Time>\(zoned(t, false))</Time>" }
                    out += "<Position><LatitudeDegrees>\(fix.coordinate.latitude)</LatitudeDegrees><LongitudeDegrees>\(fix.coordinate.longitude)</LongitudeDegrees></Position>"
                    if let e = fix.elevation { out += "<AltitudeMeters>\(e)</AltitudeMeters>" }
                    out += "</Trackpoint>\n"
                }
                out += "</Track>\n"
            }
            out += "</Lap>\n</Activity>\n"
        }
        out += "</Activities>\n</TrainingCenterDatabase>\n"
        return out
    }

    /// GeoJSON: a MultiLineString feature per track with nested `coordTimes`,
    /// and a Point feature per waypoint with `name` and `time`.
    public static func geoJSON(_ trace: Trace) -> String {
        func position(_ fix: Fix) -> String {
            "[\(fix.coordinate.longitude),\(fix.coordinate.latitude)\(fix.elevation.map { ",\($0)" } ?? "")]"
        }
        func string(_ s: String) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: [s], options: [.fragmentsAllowed])) ?? Data("[\"\"]".utf8)
            return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
        }
        var features: [String] = []
        for fix in trace.waypoints {
            var properties: [String] = []
            if let name = fix.name { properties.append("\"name\":\(string(name))") }
            if let d = fix.description { properties.append("\"description\":\(string(d))") }
            if let t = fix.time { properties.append("\"time\":\"\(zoned(t, false))\"") }
            features.append("{\"type\":\"Feature\",\"properties\":{\(properties.joined(separator: ","))},\"geometry\":{\"type\":\"Point\",\"coordinates\":\(position(fix))}}")
        }
        for track in trace.replayTracks {
            let segments = track.segments.filter { !$0.fixes.isEmpty }
            var properties: [String] = []
            if let name = track.name { properties.append("\"name\":\(string(name))") }
            if segments.allSatisfy({ $0.fixes.allSatisfy { $0.time != nil } }) {
                let times = segments.map { "[" + $0.fixes.map { "\"\(zoned($0.time ?? 0, false))\"" }.joined(separator: ",") + "]" }
                properties.append("\"coordTimes\":[\(times.joined(separator: ","))]")
            }
            let lines = segments.map { "[" + $0.fixes.map(position).joined(separator: ",") + "]" }
            features.append("{\"type\":\"Feature\",\"properties\":{\(properties.joined(separator: ","))},\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[\(lines.joined(separator: ","))]}}")
        }
        return "{\"type\":\"FeatureCollection\",\"features\":[\n" + features.joined(separator: ",\n") + "\n]}\n"
    }

    /// NMEA 0183: a `GGA` then an `RMC` sentence per timed fix (the order GPSBabel
    /// needs to join them into one point), checksummed,
    /// minutes to six decimals (under a millimetre). NMEA has no place for a
    /// fix without a time: those are left out (``nmeaUntimed(_:)`` counts them).
    public static func nmea(_ trace: Trace) -> String {
        var out = ""
        for segment in trace.replaySegments {
            for fix in segment.fixes where fix.time != nil {
                out += NMEASentence.gga(fix) + NMEASentence.rmc(fix)
            }
        }
        return out
    }

    /// Writes `trace` to `path` atomically as `format`; returns the points
    /// written and those left out (NMEA needs a time for every fix).
    @discardableResult
    public static func write(_ trace: Trace, as format: OutputFormat, to path: String) throws -> (written: Int, leftOut: Int) {
        try OutputFile.write(data(trace, as: format), to: path)
        let leftOut = format == .nmea ? nmeaUntimed(trace) : 0
        return (trace.replaySegments.map(\.fixes.count).reduce(0, +) - leftOut, leftOut)
    }

    /// How many fixes ``nmea(_:)`` leaves out for want of a time.
    public static func nmeaUntimed(_ trace: Trace) -> Int {
        trace.replaySegments.reduce(0) { $0 + $1.fixes.filter { $0.time == nil }.count }
    }

    /// Xcode's location GPX: every replayed fix as a `wpt` with its time, in order.
    public static func xcodeGPX(_ trace: Trace) -> String {
        var out = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"Stroll\">\n"
        for segment in trace.replaySegments {
            for fix in segment.fixes {
                out += "  <wpt lat=\"\(fix.coordinate.latitude)\" lon=\"\(fix.coordinate.longitude)\">"
                if let t = fix.time { out += "<time>\(zoned(t, false))</time>" }
                out += "</wpt>\n"
            }
        }
        out += "</gpx>\n"
        return out
    }
}

extension Trace {
    /// The tracks, else the routes as tracks (waypoints are written as waypoints).
    var replayTracks: [Track] {
        if !tracks.isEmpty { return tracks }
        return routes.map { Track(name: $0.name, segments: [Segment(fixes: $0.points)]) }
    }
}
