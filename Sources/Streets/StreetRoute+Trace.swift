import Geodesy
import Traces

extension StreetRoute {
    /// The route as a timed walk: a one-track trace through the route's line,
    /// each point timed at `speed` metres per second from `start` (seconds
    /// since 1970), for the trace writers and the replay. With
    /// `pauseAtCrossings` seconds, the walker stands that long at each of the
    /// route's ``crossings``: the point twice, on arrival and on leaving.
    public func trace(speed: Double, start: Double, name: String? = nil, pauseAtCrossings: Double = 0) -> Trace {
        var fixes: [Fix] = []
        var time = start
        var previous: Coordinate?
        var waits = crossings[...]
        for (k, c) in coordinates.enumerated() {
            if let previous { time += Geodesic.wgs84.distance(previous, c) / speed }
            fixes.append(Fix(coordinate: c, time: time))
            if waits.first == k {
                waits.removeFirst()
                if pauseAtCrossings > 0 {
                    time += pauseAtCrossings
                    fixes.append(Fix(coordinate: c, time: time))
                }
            }
            previous = c
        }
        return Trace(format: .gpx, name: name, tracks: [Track(name: name, segments: [Segment(fixes: fixes)])])
    }
}
