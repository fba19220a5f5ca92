/// One step of reading a trace file in order, for streaming consumers that
/// must not hold the whole file.
public enum TraceEvent: Equatable, Sendable {
    /// File-level name and description (GPX `metadata`, or the `gpx` creator).
    case metadata(name: String?, description: String?)
    case beginTrack
    case beginSegment
    case beginRoute
    /// The name of the track that is open.
    case trackName(String)
    /// The name of the route that is open.
    case routeName(String)
    case trackPoint(Fix)
    case routePoint(Fix)
    case waypoint(Fix)
    case rejected(Rejection)
    case note(String)
}

/// A source of trace events, read on demand.
public protocol TraceEventStream {
    /// The next event, nil at the end; a file that cannot be read throws.
    mutating func next() throws(TraceError) -> TraceEvent?
}

extension Trace {
    /// Collects a whole stream into a trace.
    public init(format: Format, stream: inout some TraceEventStream) throws(TraceError) {
        self.init(format: format)
        while let event = try stream.next() {
            apply(event)
        }
    }

    /// Adds one event to the trace.
    public mutating func apply(_ event: TraceEvent) {
        switch event {
        case .metadata(let name, let description):
            self.name = self.name ?? name
            self.description = self.description ?? description
        case .beginTrack:
            tracks.append(Track())
        case .beginSegment:
            if tracks.isEmpty { tracks.append(Track()) }
            tracks[tracks.count - 1].segments.append(Segment())
        case .beginRoute:
            routes.append(Route())
        case .trackName(let name):
            if tracks.isEmpty { tracks.append(Track()) }
            tracks[tracks.count - 1].name = name
        case .routeName(let name):
            if routes.isEmpty { routes.append(Route()) }
            routes[routes.count - 1].name = name
        case .trackPoint(let fix):
            if tracks.isEmpty { tracks.append(Track()) }
            if tracks[tracks.count - 1].segments.isEmpty { tracks[tracks.count - 1].segments.append(Segment()) }
            let t = tracks.count - 1
            tracks[t].segments[tracks[t].segments.count - 1].fixes.append(fix)
        case .routePoint(let fix):
            if routes.isEmpty { routes.append(Route()) }
            routes[routes.count - 1].points.append(fix)
        case .waypoint(let fix):
            waypoints.append(fix)
        case .rejected(let rejection):
            rejected.append(rejection)
        case .note(let note):
            notes.append(note)
        }
    }
}
