import Foundation
import Geodesy
import Testing
import TestSupport
import Traces
@testable import LocationSimulation

@Suite("Sensor model, course and speed, timeline options")
struct SensorAndMotionTests {
    let liverpool = try! Coordinate(latitude: 53.4055, longitude: -2.966)

    @Test("course and speed of a straight synthetic walk: due east at 1.4 m/s")
    func courseAndSpeed() throws {
        // On the equator an eastward geodesic keeps azimuth 90 everywhere.
        let start = try Coordinate(latitude: 0, longitude: 10)
        let trace = straightWalk(from: start, azimuth: 90, step: 14, count: 10, interval: 10)
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        var simulator = try LocationSimulator(trace: trace, settings: settings)
        let locations = simulator.run().compactMap { if case .location(let l) = $0 { return l } else { return nil } }
        #expect(locations.count == 91)
        #expect(locations[0].course == -1 && locations[0].speed == -1, "the first fix has no motion")
        for l in locations.dropFirst() {
            #expect(abs(l.course - 90) < 1e-9)
            #expect(abs(l.speed - 1.4) < 1e-9)
        }
        // Due north from Liverpool: course 0 along a meridian.
        let north = straightWalk(from: liverpool, azimuth: 0, step: 30, count: 5, interval: 20)
        var s2 = try LocationSimulator(trace: north, settings: settings)
        let l2 = s2.run().compactMap { if case .location(let l) = $0 { return l } else { return nil } }
        #expect(l2.dropFirst().allSatisfy { abs($0.course) < 1e-9 || abs($0.course - 360) < 1e-9 })
        #expect(l2.dropFirst().allSatisfy { abs($0.speed - 1.5) < 1e-9 })
    }

    @Test("standing still: speed 0, course undefined")
    func standingStill() throws {
        let trace = straightWalk(from: liverpool, azimuth: 0, step: 0, count: 3, interval: 5)
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        var simulator = try LocationSimulator(trace: trace, settings: settings)
        let l = simulator.run().compactMap { if case .location(let l) = $0 { return l } else { return nil } }
        #expect(l.dropFirst().allSatisfy { $0.speed == 0 && $0.course == -1 })
    }

    @Test("recorded accuracy is reported; otherwise one consistent with the desired accuracy")
    func accuracy() throws {
        let recorded = try replay("Fixtures/real-traces/togeojson/apple_watch_route.gpx")
        if case .location(let l) = recorded.first { #expect(l.horizontalAccuracy == 1.801682 && l.verticalAccuracy == 1.189247 && l.altitude == 14.601502) }
        var settings = LocationSettings()
        settings.desiredAccuracy = LocationAccuracy.hundredMeters
        let osm = try replay("Fixtures/real-traces/togeojson/osm.gpx", settings: settings)
        if case .location(let l) = osm.first {
            #expect(l.horizontalAccuracy == 100)
            #expect(l.verticalAccuracy == -1 && l.altitude == 0, "no elevation: no altitude")
        }
    }

    @Test("the same seed gives identical events, another seed does not; noise matches the 68 % radius")
    func seededNoise() throws {
        let noisy = SensorOptions(noise: .gaussian, seed: 42)
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        let a = try replay("traces/campus-loop.gpx", settings: settings, sensor: noisy)
        let b = try replay("traces/campus-loop.gpx", settings: settings, sensor: noisy)
        let c = try replay("traces/campus-loop.gpx", settings: settings, sensor: SensorOptions(noise: .gaussian, seed: 43))
        #expect(a == b)
        #expect(a != c)
        let clean = try replay("traces/campus-loop.gpx", settings: settings)
        var within = 0, total = 0
        for (x, y) in zip(a, clean) {
            guard case .location(let n) = x, case .location(let t) = y else { continue }
            total += 1
            if Geodesic.wgs84.distance(n.coordinate, t.coordinate) <= n.horizontalAccuracy { within += 1 }
        }
        let fraction = Double(within) / Double(total)
        #expect(total > 1000)
        #expect(abs(fraction - 0.68) < 0.04, "\(fraction) of fixes within their accuracy radius")
    }

    @Test("dropouts become locationUnknown errors, outliers land far off")
    func dropoutsAndOutliers() throws {
        var sensor = SensorOptions(noise: .none, seed: 7)
        sensor.dropoutProbability = 0.1
        sensor.outlierProbability = 0.05
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        let events = try replay("traces/pier-head-to-guild.gpx", settings: settings, sensor: sensor)
        let dropouts = events.filter { if case .error(let e, _) = $0 { return e.code == .locationUnknown } else { return false } }.count
        let total = events.count
        #expect(Double(dropouts) / Double(total) > 0.07 && Double(dropouts) / Double(total) < 0.13)
    }

    @Test("a trace without times walks at the given speed from the given start")
    func untimed() throws {
        var options = ReplayOptions()
        options.walkingSpeed = 2
        options.startTime = 1_000_000_000
        let trace = try TraceReader.read(path("Fixtures/real-traces/togeojson/trek.gpx"))
        var simulator = try LocationSimulator(trace: trace, replay: options)
        let events = simulator.run()
        #expect(events.first?.timestamp == 1_000_000_000)
        let points = trace.routes[0].points
        let length = zip(points, points.dropFirst()).map { Geodesic.wgs84.distance($0.coordinate, $1.coordinate) }.reduce(0, +)
        let last = try #require(events.last?.timestamp)
        #expect(abs((last - 1_000_000_000) - length / 2) < 1.0)
    }

    @Test("missing times are spread between the known ones")
    func someTimes() throws {
        let a = liverpool
        let fixes = [
            Fix(coordinate: a, time: 100, line: 1),
            Fix(coordinate: Geodesic.wgs84.direct(from: a, azimuth: 0, distance: 30).coordinate, line: 2),
            Fix(coordinate: Geodesic.wgs84.direct(from: a, azimuth: 0, distance: 90).coordinate, time: 190, line: 3),
        ]
        let timeline = Timeline(trace: Trace(format: .gpx, tracks: [Track(segments: [Segment(fixes: fixes)])]), options: ReplayOptions())
        #expect(abs(timeline.points[1].time - 130) < 1e-6)
    }

    @Test("seek skips the start; loops replay the walk again, later")
    func seekAndLoops() throws {
        var options = ReplayOptions()
        options.seek = 300
        let trace = try TraceReader.read(path("traces/lime-street-to-campus.gpx"))
        var settings = LocationSettings()
        settings.distanceFilter = distanceFilterNone
        var seeking = try LocationSimulator(trace: trace, settings: settings, replay: options)
        let first = try #require(seeking.run().first)
        let start = try #require(trace.tracks[0].segments[0].fixes[0].time)
        #expect(first.timestamp == start + 300)
        options.seek = 0
        options.loops = 2
        var looping = try LocationSimulator(trace: trace, settings: settings, replay: options)
        let events = looping.run()
        let single = try replay("traces/lime-street-to-campus.gpx", settings: settings)
        #expect(events.count == 2 * single.count)
        #expect(events[single.count].timestamp == (single.last?.timestamp ?? 0) + 1)
    }

    @Test("a stationary walker pauses updates and resumes when moving again")
    func autoPause() throws {
        var settings = LocationSettings()
        settings.pausesLocationUpdatesAutomatically = true
        let events = try replay("traces/bold-street-long-stop.gpx", settings: settings)
        let pauses = events.compactMap { if case .paused(let t) = $0 { return t } else { return nil } }
        let resumes = events.compactMap { if case .resumed(let t) = $0 { return t } else { return nil } }
        #expect(pauses.count == 1 && resumes.count == 1)
        // The walk stops for 600 s: pause after 120 s of it, resume when walking on.
        if let p = pauses.first, let r = resumes.first {
            #expect(r - p > 400 && r - p < 500)
            #expect(!events.contains { if case .location(let l) = $0 { return l.timestamp > p && l.timestamp < r } else { return false } })
        }
    }
}
