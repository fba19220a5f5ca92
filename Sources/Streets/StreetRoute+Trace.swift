import Geodesy
import Traces

extension StreetRoute {
    /// The route as a timed walk: a one-track trace through the route's line,
    /// each point timed at `speed` metres per second from `start` (seconds
    /// since 1970), for the trace writers and the replay.
    public func trace(speed: Double, start: Double, name: String? = nil) -> Trace {
        var fixes: [Fix] = []
        var time = start
        var previous: Coordinate?
        for c in coordinates {
            if let previous { time += Geodesic.wgs84.distance(previous, c) / speed }
            fixes.append(Fix(coordinate: c, time: time))
            previous = c
        }
        return Trace(format: .gpx, name: name, tracks: [Track(name: name, segments: [Segment(fixes: fixes)])])
    }
}
