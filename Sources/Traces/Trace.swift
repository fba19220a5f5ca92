import Foundation
import Geodesy

/// One recorded position: what a GPX `trkpt`/`rtept`/`wpt` or a CSV row says.
/// Absent values are nil, never a default in disguise.
///
/// The texts a point may carry (name, description, GPX `fix`) are kept together
/// behind one reference, nil when there are none: a fix is then plain bytes, which
/// a stream of a million points copies and drops without touching a reference count
/// more than once per point.
public struct Fix: Equatable, Sendable {
    public var coordinate: Coordinate
    /// Seconds since 1970-01-01T00:00:00Z, with milliseconds kept.
    public var time: Double?
    /// The time had no zone and was read as UTC.
    public var timeWasZoneless: Bool
    /// Metres above the ellipsoid or mean sea level, as the file says.
    public var elevation: Double?
    /// 68 % radius in metres (recorded accuracy, or derived from HDOP when only that is given).
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    public var satellites: Int?
    /// Metres per second.
    public var speed: Double?
    /// Degrees clockwise from true north.
    public var course: Double?
    /// The line of the point's start tag or CSV row (1-based).
    public var line: Int
    /// The texts, nil when the point has none.
    private var texts: Texts?

    /// GPX `fix`: none, 2d, 3d, dgps, pps.
    public var fixType: String? {
        get { texts?.fixType }
        set { texts = Texts.of(fixType: newValue, name: name, description: description) }
    }

    public var name: String? {
        get { texts?.name }
        set { texts = Texts.of(fixType: fixType, name: newValue, description: description) }
    }

    /// A waypoint's description (GPX `desc`, KML `description`), as plain text.
    public var description: String? {
        get { texts?.description }
        set { texts = Texts.of(fixType: fixType, name: name, description: newValue) }
    }

    public init(
        coordinate: Coordinate, time: Double? = nil, timeWasZoneless: Bool = false, elevation: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, hdop: Double? = nil, vdop: Double? = nil,
        pdop: Double? = nil, satellites: Int? = nil, fixType: String? = nil, speed: Double? = nil, course: Double? = nil,
        name: String? = nil, description: String? = nil, line: Int = 0
    ) {
        self.coordinate = coordinate
        self.time = time
        self.timeWasZoneless = timeWasZoneless
        self.elevation = elevation
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.satellites = satellites
        self.speed = speed
        self.course = course
        self.line = line
        self.texts = Texts.of(fixType: fixType, name: name, description: description)
    }

    /// A fix's texts, immutable (a change makes new ones).
    private final class Texts: Equatable, Sendable {
        let fixType: String?
        let name: String?
        let description: String?

        private init(_ fixType: String?, _ name: String?, _ description: String?) {
            self.fixType = fixType
            self.name = name
            self.description = description
        }

        /// The texts, or nil when all three are nil (so that a fix without texts
        /// is always stored alike, and equal fixes compare equal).
        static func of(fixType: String?, name: String?, description: String?) -> Texts? {
            guard fixType != nil || name != nil || description != nil else { return nil }
            return Texts(fixType, name, description)
        }

        static func == (a: Texts, b: Texts) -> Bool {
            a === b || (a.fixType == b.fixType && a.name == b.name && a.description == b.description)
        }
    }
}

/// A point a reader refused, and why.
public struct Rejection: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "line \(line): \(reason)" }
}

/// A continuous run of fixes; interpolation never crosses from one to the next.
public struct Segment: Equatable, Sendable {
    public var fixes: [Fix]
    public init(fixes: [Fix] = []) { self.fixes = fixes }
}

/// A recorded track: its name and its segments of fixes.
public struct Track: Equatable, Sendable {
    public var name: String?
    public var segments: [Segment]
    public init(name: String? = nil, segments: [Segment] = []) {
        self.name = name
        self.segments = segments
    }
}

/// A planned route: its name and its points.
public struct Route: Equatable, Sendable {
    public var name: String?
    public var points: [Fix]
    public init(name: String? = nil, points: [Fix] = []) {
        self.name = name
        self.points = points
    }
}

/// Everything a trace file holds: tracks of segments of fixes, routes and
/// waypoints, plus the points that were rejected and notes about the reading.
public struct Trace: Equatable, Sendable {
    /// The format a trace was read from.
    public enum Format: String, Sendable, CaseIterable {
        case gpx, csv, kml, tcx, geojson, nmea
        /// A GeoLife trajectory.
        case plt
    }

    public var format: Format
    public var name: String?
    /// How the file says it was made (GPX `metadata/desc`, `creator`).
    public var description: String?
    public var tracks: [Track]
    public var routes: [Route]
    public var waypoints: [Fix]
    public var rejected: [Rejection]
    /// Things the reader did that a user should know (a reversed file, zone-less times).
    public var notes: [String]

    public init(format: Format, name: String? = nil, description: String? = nil, tracks: [Track] = [], routes: [Route] = [],
                waypoints: [Fix] = [], rejected: [Rejection] = [], notes: [String] = []) {
        self.format = format
        self.name = name
        self.description = description
        self.tracks = tracks
        self.routes = routes
        self.waypoints = waypoints
        self.rejected = rejected
        self.notes = notes
    }

    /// The fixes a replay walks, as segments: the tracks' segments, else each
    /// route as a segment, else the waypoints as one segment.
    public var replaySegments: [Segment] {
        let trackSegments = tracks.flatMap(\.segments).filter { !$0.fixes.isEmpty }
        if !trackSegments.isEmpty { return trackSegments }
        let routeSegments = routes.map { Segment(fixes: $0.points) }.filter { !$0.fixes.isEmpty }
        if !routeSegments.isEmpty { return routeSegments }
        return waypoints.isEmpty ? [] : [Segment(fixes: waypoints)]
    }
}

extension Rejection {
    /// A short, stable name for the kind of problem, for counting rejections
    /// (`summary.rejected` in the command line's JSON Lines).
    public var category: String {
        let r = reason
        if r.contains("is before the previous") { return "time-backwards" }
        if r.hasPrefix("time") { return "bad-time" }
        if r.contains("outside [") { return "out-of-range" }
        if r.contains("not a finite number") { return "not-finite" }
        if r.hasPrefix("latitude") || r.hasPrefix("longitude") || r.contains("no lat") || r.contains("no lon") || r.contains("fields; no") {
            return r.contains("is empty") || r.contains("no lat") || r.contains("no lon") || r.contains("fields; no") ? "missing-coordinate" : "bad-coordinate"
        }
        return "bad-value"
    }
}
