import Traces

extension LocationSimulator {
    /// The fixes a replay of `trace` delivers with `settings` (by default
    /// CoreLocation's 10 m accuracy and Stroll's 25 m distance filter), as a
    /// trace of one segment: each fix with its time, accuracy, speed and course,
    /// and its altitude where the fix has one. What `stroll trace convert
    /// --delivered` writes.
    ///
    /// `progress` is told how far through the walk's time each delivered fix
    /// is (done, of). A fix the replay rejects as bad input ends it with that
    /// error.
    public static func delivered(_ trace: Trace, settings: LocationSettings = LocationSettings(),
                                 progress: (_ done: Double, _ of: Double) -> Void = { _, _ in }) throws(LocationError) -> Trace {
        guard var simulator = try? LocationSimulator(trace: trace, settings: settings) else {
            throw LocationError(code: .badInput, message: "the trace cannot be replayed")
        }
        var fixes: [Fix] = []
        let first = trace.replaySegments.first?.fixes.first?.time, last = trace.replaySegments.last?.fixes.last?.time
        while let event = simulator.next() {
            switch event {
            case .location(let l):
                if let first, let last { progress(l.timestamp - first, last - first) }
                var fix = Fix(coordinate: l.coordinate, line: l.sourceLine ?? 0)
                fix.time = l.timestamp
                fix.elevation = l.verticalAccuracy > 0 ? l.altitude : nil
                fix.horizontalAccuracy = l.horizontalAccuracy
                fix.speed = l.speed >= 0 ? l.speed : nil
                fix.course = l.course >= 0 ? l.course : nil
                fixes.append(fix)
            case .error(let e, _) where e.code == .badInput:
                throw e
            default:
                break
            }
        }
        return Trace(format: trace.format, name: trace.name, tracks: [Track(name: trace.name, segments: [Segment(fixes: fixes)])])
    }
}
