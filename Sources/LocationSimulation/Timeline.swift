import Geodesy
import Traces

/// How a trace's fixes are laid out in time.
public struct ReplayOptions: Equatable, Sendable {
    /// Walking speed for fixes without times, metres per second.
    public var walkingSpeed = 1.4
    /// Start of a trace without any times: 2001-01-01T00:00:00Z (CoreLocation's reference date).
    public var startTime = 978_307_200.0
    /// Interpolation rate between recorded fixes, per second; 0 turns interpolation off.
    public var rate = 1.0
    /// Seconds from the trace's start to begin at.
    public var seek = 0.0
    /// How many times to play the trace; each loop starts one interpolation step after the last ended.
    public var loops = 1
    /// Legs longer than this many seconds are not filled in (a trace that
    /// jumps days or years is not turned into millions of fixes).
    public var maximumInterpolatedGap = 3600.0

    public init() {}
}

/// A trace point with its replay time settled.
struct TimelinePoint {
    var coordinate: Coordinate
    var time: Double
    var elevation: Double?
    var horizontalAccuracy: Double?
    var verticalAccuracy: Double?
    var speed: Double?
    var course: Double?
    var line: Int
    var segment: Int
}

/// Where the walker truly is at one instant, before the sensor model.
struct TrueFix {
    var coordinate: Coordinate
    var time: Double
    var elevation: Double?
    var horizontalAccuracy: Double?
    var verticalAccuracy: Double?
    var course: Double
    var speed: Double
    var line: Int?
    /// The trace leg `course` and `speed` were measured over: metres and seconds.
    var leg: (distance: Double, duration: Double)? = nil
}

/// The fixes of a trace in time order: recorded fixes at their own times,
/// interpolated ones along the geodesic between them at the replay rate,
/// never across a segment break.
///
/// Each leg's geodesic (point to next point of the same segment) is measured
/// once, when the timeline is settled, and kept in `legs`: a replay's fixes,
/// every loop of it, and every cursor over the timeline read it from there.
struct Timeline {
    let points: [TimelinePoint]
    /// `legs[i]`: the geodesic from `points[i]` to `points[i + 1]`, nil where a
    /// segment ends (and for the last point).
    let legs: [Geodesic.Inverse?]
    let options: ReplayOptions
    /// Notes on how times were settled (spread, walked, shifted segments).
    let notes: [String]

    var startTime: Double { points.first?.time ?? options.startTime }
    var endTime: Double { points.last?.time ?? options.startTime }

    init(trace: Trace, options: ReplayOptions, geodesic: Geodesic = .wgs84) {
        self.options = options
        var points: [TimelinePoint] = []
        var notes: [String] = []
        var knownTimes = 0
        for (s, segment) in trace.replaySegments.enumerated() {
            for fix in segment.fixes {
                if fix.time != nil { knownTimes += 1 }
                points.append(TimelinePoint(coordinate: fix.coordinate, time: fix.time ?? .nan, elevation: fix.elevation,
                                            horizontalAccuracy: fix.horizontalAccuracy, verticalAccuracy: fix.verticalAccuracy,
                                            speed: fix.speed, course: fix.course, line: fix.line, segment: s))
            }
        }
        let speed = options.walkingSpeed > 0 ? options.walkingSpeed : 1.4
        func walk(_ a: Int, _ b: Int) -> Double { geodesic.distance(points[a].coordinate, points[b].coordinate) / speed }
        if knownTimes == 0, !points.isEmpty {
            points[0].time = options.startTime
            for i in points.indices.dropFirst() { points[i].time = points[i - 1].time + walk(i - 1, i) }
            notes.append("the trace has no times: walked at \(speed) m/s from \(ISO8601Time.format(options.startTime))")
        } else if knownTimes < points.count {
            let known = points.indices.filter { !points[$0].time.isNaN }
            if let first = known.first {
                for i in stride(from: first - 1, through: 0, by: -1) { points[i].time = points[i + 1].time - walk(i, i + 1) }
            }
            if let last = known.last {
                for i in (last + 1)..<points.count { points[i].time = points[i - 1].time + walk(i - 1, i) }
            }
            for (a, b) in zip(known, known.dropFirst()) where b > a + 1 {
                // Spread the missing times in proportion to the distance walked.
                var cumulative = [0.0]
                for i in a..<b { cumulative.append(cumulative[cumulative.count - 1] + walk(i, i + 1)) }
                let total = cumulative[cumulative.count - 1]
                for i in (a + 1)..<b {
                    let fraction = total > 0 ? cumulative[i - a] / total : Double(i - a) / Double(b - a)
                    points[i].time = points[a].time + fraction * (points[b].time - points[a].time)
                }
            }
            notes.append("\(points.count - knownTimes) of \(points.count) fixes had no time: spread between the known times")
        }
        // Segments play in file order; one that starts before the last ended is moved to follow it.
        var i = 1
        while i < points.count {
            if points[i].segment != points[i - 1].segment, points[i].time < points[i - 1].time {
                let shift = points[i - 1].time - points[i].time
                let segment = points[i].segment
                var j = i
                while j < points.count, points[j].segment == segment {
                    points[j].time += shift
                    j += 1
                }
                notes.append("segment \(segment + 1) started before the previous one ended: moved \(shift) s later")
            }
            i += 1
        }
        self.points = points
        self.notes = notes
        legs = points.indices.map { i in
            guard i + 1 < points.count, points[i].segment == points[i + 1].segment else { return nil }
            return geodesic.inverse(points[i].coordinate, points[i + 1].coordinate)
        }
    }

    var isEmpty: Bool { points.isEmpty }

    /// Length of one loop, seconds, plus the step that separates loops.
    var loopPeriod: Double {
        (endTime - startTime) + (options.rate > 0 ? 1 / options.rate : 1)
    }

    func makeCursor(geodesic: Geodesic = .wgs84) -> Cursor {
        Cursor(timeline: self, geodesic: geodesic)
    }

    /// Walks the timeline fix by fix without allocating.
    struct Cursor {
        private let timeline: Timeline
        private let geodesic: Geodesic
        private var loop = 0
        private var index = 0
        /// The leg from `index` to `index + 1`, when `interpolating` along it
        /// (not an optional: the line is read in place, being too large to copy per fix,
        /// with ``GeodesicLine/positionInPlace(at:)``).
        private var leg: GeodesicLine
        private var interpolating = false
        private var legDistance = 0.0
        private var legDuration = 0.0
        /// What every fix along the leg shares, settled once per leg: its start
        /// time, speed, whether it moves, and each value interpolated along it
        /// as its start and its change over the leg.
        private var legStart = 0.0
        private var legSpeed = 0.0
        private var legMoving = false
        private var elevationChange: (start: Double, change: Double)?
        private var horizontalAccuracyChange: (start: Double, change: Double)?
        private var verticalAccuracyChange: (start: Double, change: Double)?
        /// Course and speed on arrival at the next recorded fix (-1: unknown, a segment's first fix).
        private var arrivalCourse = -1.0
        private var arrivalSpeed = -1.0
        private var arrivalLeg: (distance: Double, duration: Double)?
        private var step = 0
        private var emittedRecorded = false
        private let seekTime: Double
        private let loops: Int
        private let loopPeriod: Double
        private let rate: Double

        init(timeline: Timeline, geodesic: Geodesic) {
            self.timeline = timeline
            self.geodesic = geodesic
            seekTime = timeline.startTime + max(0, timeline.options.seek)
            loops = max(1, timeline.options.loops)
            loopPeriod = timeline.loopPeriod
            rate = timeline.options.rate
            leg = GeodesicLine(geodesic, start: Coordinate(computedLatitude: 0, longitude: 0), azimuth: 0)
        }

        @inline(__always)
        mutating func next() -> TrueFix? {
            while let fix = advance() {
                if fix.time >= seekTime { return fix }
            }
            return nil
        }

        @inline(__always)
        private mutating func advance() -> TrueFix? {
            while loop < loops {
                let offset = Double(loop) * loopPeriod
                if interpolating {
                    step += 1
                    let dt = Double(step) / rate
                    if dt < legDuration - 1e-9 {
                        return interpolated(dt: dt, offset: offset)
                    }
                    index += 1
                    emittedRecorded = false
                    interpolating = false
                    continue
                }
                let points = timeline.points
                if index >= points.count {
                    loop += 1
                    index = 0
                    emittedRecorded = false
                    interpolating = false
                    arrivalCourse = -1
                    arrivalSpeed = -1
                    arrivalLeg = nil
                    continue
                }
                let p = points[index]
                if !emittedRecorded {
                    emittedRecorded = true
                    var fix = TrueFix(coordinate: p.coordinate, time: p.time + offset, elevation: p.elevation,
                                      horizontalAccuracy: p.horizontalAccuracy, verticalAccuracy: p.verticalAccuracy,
                                      course: arrivalCourse, speed: arrivalSpeed, line: p.line, leg: arrivalLeg)
                    prepareLeg()
                    if let s = p.speed, s >= 0 { fix.speed = s }
                    if let c = p.course, c >= 0 { fix.course = c }
                    return fix
                }
                index += 1
                emittedRecorded = false
                interpolating = false
            }
            return nil
        }

        /// Measures the leg from `index` to the next point of the same segment:
        /// the course and speed on arriving there, and the line to interpolate along.
        private mutating func prepareLeg() {
            interpolating = false
            step = 0
            arrivalCourse = -1
            arrivalSpeed = -1
            arrivalLeg = nil
            let points = timeline.points
            guard index + 1 < points.count else { return }
            guard let inverse = timeline.legs[index] else { return }
            let p = points[index], q = points[index + 1]
            let duration = q.time - p.time
            let moving = inverse.distance > 0.01
            arrivalCourse = moving ? Self.course(inverse.azimuth2) : -1
            arrivalSpeed = duration > 0 ? (moving ? inverse.distance / duration : 0) : -1
            arrivalLeg = duration > 0 ? (inverse.distance, duration) : nil
            guard timeline.options.rate > 0, duration > 1 / timeline.options.rate, duration <= timeline.options.maximumInterpolatedGap else { return }
            legDistance = inverse.distance
            legDuration = duration
            legStart = p.time
            legMoving = legDistance > 0.01
            legSpeed = legMoving ? legDistance / legDuration : 0
            func change(_ a: Double?, _ b: Double?) -> (start: Double, change: Double)? {
                guard let a, let b else { return nil }
                return (a, b - a)
            }
            elevationChange = change(p.elevation, q.elevation)
            horizontalAccuracyChange = change(p.horizontalAccuracy, q.horizontalAccuracy)
            verticalAccuracyChange = change(p.verticalAccuracy, q.verticalAccuracy)
            leg = GeodesicLine(geodesic, start: p.coordinate, azimuth: inverse.azimuth1)
            interpolating = true
        }

        /// The fix `dt` seconds along the current leg, in the loop `offset` seconds on.
        @inline(__always)
        private mutating func interpolated(dt: Double, offset: Double) -> TrueFix {
            let fraction = dt / legDuration
            let position = leg.positionInPlace(at: legDistance * fraction)
            func mix(_ v: (start: Double, change: Double)?) -> Double? {
                guard let v else { return nil }
                return v.start + v.change * fraction
            }
            return TrueFix(coordinate: position.coordinate, time: legStart + dt + offset, elevation: mix(elevationChange),
                           horizontalAccuracy: mix(horizontalAccuracyChange), verticalAccuracy: mix(verticalAccuracyChange),
                           course: legMoving ? Self.course(position.azimuth2) : -1, speed: legSpeed, line: nil,
                           leg: (legDistance, legDuration))
        }

        /// Azimuth in [0, 360), as CoreLocation reports course.
        private static func course(_ azimuth: Double) -> Double {
            azimuth < 0 ? azimuth + 360 : azimuth
        }
    }
}
