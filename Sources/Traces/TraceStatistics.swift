import Geodesy

/// What a trace holds, as `stroll trace info` reports it.
public struct TraceStatistics: Equatable, Sendable {
    public var format: Trace.Format
    public var tracks: Int
    public var segments: Int
    public var pointsPerSegment: [Int]
    /// Accepted track points.
    public var points: Int
    public var routes: Int
    public var routePoints: Int
    public var waypoints: Int
    /// Geodesic 2D length along the track segments, metres.
    public var length: Double
    /// Latest minus earliest time among accepted timed track points; nil without times.
    public var duration: Double?
    /// Time spent between consecutive timed points of a segment moving at 1 km/h or more (gpxpy's threshold).
    public var movingTime: Double?
    public var bounds: (minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double)?
    public var firstTime: Double?
    public var lastTime: Double?
    public var rejected: [Rejection]
    /// Geodesic length along the routes, and along the waypoints in file
    /// order, metres: what a replay walks when a file has no track points.
    public var routeLength: Double = 0
    /// Geodesic length along the waypoints in file order, metres.
    public var waypointLength: Double = 0

    /// What `stroll replay` plays of the file: its track points, else its
    /// routes' points, else its waypoints (the contract's order).
    public var replayed: (part: String, points: Int, length: Double)? {
        if points > 0 { return ("track points", points, length) }
        if routePoints > 0 { return ("route points", routePoints, routeLength) }
        if waypoints > 0 { return ("waypoints", waypoints, waypointLength) }
        return nil
    }

    /// Speed at or above which a step counts as moving: 1 km/h.
    public static let movingSpeed = 1000.0 / 3600.0

    /// Statistics of a trace in memory.
    public init(_ trace: Trace, geodesic: Geodesic = .wgs84) {
        var accumulator = Accumulator(format: trace.format, geodesic: geodesic)
        for track in trace.tracks {
            accumulator.add(.beginTrack)
            for segment in track.segments {
                accumulator.add(.beginSegment)
                for fix in segment.fixes { accumulator.add(.trackPoint(fix)) }
            }
        }
        for route in trace.routes {
            accumulator.add(.beginRoute)
            for fix in route.points { accumulator.add(.routePoint(fix)) }
        }
        for fix in trace.waypoints { accumulator.add(.waypoint(fix)) }
        for rejection in trace.rejected { accumulator.add(.rejected(rejection)) }
        self = accumulator.statistics
    }

    /// Statistics of a file read as a stream, in memory bounded by the number
    /// of segments and rejections, not of points. A CSV file is read twice: once
    /// to see whether it runs newest first (then nothing is rejected for order,
    /// as ``TraceReader/read(_:csvMapping:progress:)`` would reverse it; `progress`
    /// hears each read as half the work).
    public static func read(_ path: String, csvMapping: CSVColumnMapping = CSVColumnMapping(), geodesic: Geodesic = .wgs84,
                            progress: ReadProgress.Observer? = nil) throws(TraceError) -> TraceStatistics {
        do {
            let format = try TraceReader.format(of: path)
            var accumulator = Accumulator(format: format, geodesic: geodesic)
            switch format {
            case .gpx, .kml, .tcx, .geojson, .nmea, .plt:
                var stream = try TraceReader.stream(format: format, source: ByteSource(path: path, progress: progress), csvMapping: csvMapping, checksOrder: true)
                while let event = try stream.next() { accumulator.add(event) }
            case .csv:
                var first: ReadProgress.Observer?, second: ReadProgress.Observer?
                if let progress {
                    first = { read, total in progress(read / 2, total) }
                    second = { read, total in progress(total - (total - read) / 2, total) }
                }
                var probe = try CSVStream(source: ByteSource(path: path, progress: first), mapping: csvMapping, checksOrder: false)
                var order = TimeOrder()
                while let event = try probe.next() {
                    if case .trackPoint(let fix) = event, let t = fix.time { order.add(t) }
                }
                var stream = try CSVStream(source: ByteSource(path: path, progress: second), mapping: csvMapping, checksOrder: !order.newestFirst)
                while let event = try stream.next() { accumulator.add(event) }
            }
            return accumulator.statistics
        } catch {
            var located = error
            if !located.file.hasPrefix(path + "(") { located.file = path }
            throw located
        }
    }

    /// Consumes trace events one at a time.
    public struct Accumulator {
        private var s: TraceStatistics
        private let geodesic: Geodesic
        private var previous: Fix?
        private var previousRoutePoint: Fix?
        private var previousWaypoint: Fix?
        private var anyTimedPair = false

        public init(format: Trace.Format, geodesic: Geodesic = .wgs84) {
            s = TraceStatistics(format: format)
            self.geodesic = geodesic
        }

        public mutating func add(_ event: TraceEvent) {
            switch event {
            case .beginTrack:
                s.tracks += 1
                previous = nil
            case .beginSegment:
                if s.tracks == 0 { s.tracks = 1 }
                s.segments += 1
                s.pointsPerSegment.append(0)
                previous = nil
            case .trackPoint(let fix):
                if s.tracks == 0 { s.tracks = 1 }
                if s.pointsPerSegment.isEmpty {
                    s.segments = 1
                    s.pointsPerSegment.append(0)
                }
                s.pointsPerSegment[s.pointsPerSegment.count - 1] += 1
                s.points += 1
                if let t = fix.time {
                    s.firstTime = min(s.firstTime ?? t, t)
                    s.lastTime = max(s.lastTime ?? t, t)
                }
                if let a = previous {
                    let d = geodesic.distance(a.coordinate, fix.coordinate)
                    s.length += d
                    // The magnitude of the step's time: a newest-first CSV file streams backwards.
                    if let ta = a.time, let tb = fix.time, tb != ta {
                        let dt = abs(tb - ta)
                        anyTimedPair = true
                        if d / dt >= TraceStatistics.movingSpeed { s.movingTime = (s.movingTime ?? 0) + dt }
                    }
                }
                previous = fix
                include(fix)
            case .beginRoute:
                s.routes += 1
                previousRoutePoint = nil
            case .routePoint(let fix):
                if s.routes == 0 { s.routes = 1 }
                s.routePoints += 1
                if let a = previousRoutePoint { s.routeLength += geodesic.distance(a.coordinate, fix.coordinate) }
                previousRoutePoint = fix
                include(fix)
            case .waypoint(let fix):
                s.waypoints += 1
                if let a = previousWaypoint { s.waypointLength += geodesic.distance(a.coordinate, fix.coordinate) }
                previousWaypoint = fix
                include(fix)
            case .rejected(let rejection):
                s.rejected.append(rejection)
            case .metadata, .trackName, .routeName, .note:
                break
            }
        }

        private mutating func include(_ fix: Fix) {
            let lat = fix.coordinate.latitude, lon = fix.coordinate.longitude
            if var b = s.bounds {
                b.minLatitude = min(b.minLatitude, lat)
                b.maxLatitude = max(b.maxLatitude, lat)
                b.minLongitude = min(b.minLongitude, lon)
                b.maxLongitude = max(b.maxLongitude, lon)
                s.bounds = b
            } else {
                s.bounds = (lat, lon, lat, lon)
            }
        }

        public var statistics: TraceStatistics {
            var result = s
            result.duration = s.firstTime.flatMap { f in s.lastTime.map { $0 - f } }
            result.movingTime = anyTimedPair ? (s.movingTime ?? 0) : (result.duration == nil ? nil : 0)
            result.rejected.sort { $0.line < $1.line }
            return result
        }
    }

    private init(format: Trace.Format) {
        self.format = format
        tracks = 0
        segments = 0
        pointsPerSegment = []
        points = 0
        routes = 0
        routePoints = 0
        waypoints = 0
        length = 0
        rejected = []
    }

    public static func == (l: TraceStatistics, r: TraceStatistics) -> Bool {
        l.format == r.format && l.tracks == r.tracks && l.pointsPerSegment == r.pointsPerSegment && l.routes == r.routes
            && l.routePoints == r.routePoints && l.waypoints == r.waypoints && l.length == r.length
            && l.routeLength == r.routeLength && l.waypointLength == r.waypointLength && l.duration == r.duration
            && l.movingTime == r.movingTime && l.firstTime == r.firstTime && l.lastTime == r.lastTime && l.rejected == r.rejected
            && l.bounds.map { [$0.minLatitude, $0.minLongitude, $0.maxLatitude, $0.maxLongitude] } == r.bounds.map { [$0.minLatitude, $0.minLongitude, $0.maxLatitude, $0.maxLongitude] }
    }
}
