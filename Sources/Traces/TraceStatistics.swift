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

    /// Speed at or above which a step counts as moving: 1 km/h.
    public static let movingSpeed = 1000.0 / 3600.0

    public init(_ trace: Trace, geodesic: Geodesic = .wgs84) {
        format = trace.format
        tracks = trace.tracks.count
        let allSegments = trace.tracks.flatMap(\.segments)
        segments = allSegments.count
        pointsPerSegment = allSegments.map(\.fixes.count)
        points = pointsPerSegment.reduce(0, +)
        routes = trace.routes.count
        routePoints = trace.routes.map(\.points.count).reduce(0, +)
        waypoints = trace.waypoints.count
        rejected = trace.rejected
        var length = 0.0, moving = 0.0
        var anyTimedPair = false
        var first: Double?, last: Double?
        for segment in allSegments {
            for fix in segment.fixes {
                if let t = fix.time {
                    first = min(first ?? t, t)
                    last = max(last ?? t, t)
                }
            }
            for (a, b) in zip(segment.fixes, segment.fixes.dropFirst()) {
                let d = geodesic.distance(a.coordinate, b.coordinate)
                length += d
                if let ta = a.time, let tb = b.time, tb > ta {
                    anyTimedPair = true
                    if d / (tb - ta) >= Self.movingSpeed { moving += tb - ta }
                }
            }
        }
        self.length = length
        firstTime = first
        lastTime = last
        duration = first.flatMap { f in last.map { $0 - f } }
        movingTime = anyTimedPair ? moving : (duration == nil ? nil : 0)
        let everything = allSegments.flatMap(\.fixes) + trace.routes.flatMap(\.points) + trace.waypoints
        if let p = everything.first {
            var b = (minLatitude: p.coordinate.latitude, minLongitude: p.coordinate.longitude,
                     maxLatitude: p.coordinate.latitude, maxLongitude: p.coordinate.longitude)
            for f in everything {
                b.minLatitude = min(b.minLatitude, f.coordinate.latitude)
                b.maxLatitude = max(b.maxLatitude, f.coordinate.latitude)
                b.minLongitude = min(b.minLongitude, f.coordinate.longitude)
                b.maxLongitude = max(b.maxLongitude, f.coordinate.longitude)
            }
            bounds = b
        }
    }

    public static func == (l: TraceStatistics, r: TraceStatistics) -> Bool {
        l.format == r.format && l.tracks == r.tracks && l.pointsPerSegment == r.pointsPerSegment && l.routes == r.routes
            && l.routePoints == r.routePoints && l.waypoints == r.waypoints && l.length == r.length && l.duration == r.duration
            && l.movingTime == r.movingTime && l.firstTime == r.firstTime && l.lastTime == r.lastTime && l.rejected == r.rejected
            && l.bounds.map { [$0.minLatitude, $0.minLongitude, $0.maxLatitude, $0.maxLongitude] } == r.bounds.map { [$0.minLatitude, $0.minLongitude, $0.maxLatitude, $0.maxLongitude] }
    }
}
