import Foundation
import Testing
import TestSupport
import Traces
@testable import LocationSimulation

final class Recorder: LocationManagerDelegate {
    var locations: [Location] = []
    var errors: [LocationError] = []
    var stopAfter: Int?

    func locationManager(_ manager: SimulatedLocationManager, didUpdateLocations locations: [Location]) {
        self.locations += locations
        if let stopAfter, self.locations.count >= stopAfter { manager.stopUpdatingLocation() }
    }

    func locationManager(_ manager: SimulatedLocationManager, didFailWithError error: LocationError) {
        errors.append(error)
    }
}

@Suite("The same events three ways: pull, delegate, AsyncSequence")
struct DeliveryTests {
    @Test("delegate and async sequence deliver what the pull engine gives")
    func threeWays() async throws {
        let trace = try TraceReader.read(path("traces/pier-head-to-guild.gpx"))
        var simulator = try LocationSimulator(trace: trace)
        let pulled = simulator.run()
        let pulledLocations = pulled.compactMap { if case .location(let l) = $0 { return l } else { return nil } }

        let manager = SimulatedLocationManager(trace: trace)
        let recorder = Recorder()
        manager.delegate = recorder
        manager.startUpdatingLocation()
        #expect(recorder.locations == pulledLocations)
        #expect(manager.location == pulledLocations.last)
        #expect(manager.counts.delivered == pulledLocations.count)

        var streamed: [LocationEvent] = []
        for try await event in LocationEvents(trace: trace, clock: VirtualClock()) { streamed.append(event) }
        #expect(streamed == pulled)
    }

    @Test("stopUpdatingLocation inside a callback stops delivery there")
    func stop() throws {
        let manager = SimulatedLocationManager(trace: try TraceReader.read(path("traces/campus-loop.gpx")))
        let recorder = Recorder()
        recorder.stopAfter = 3
        manager.delegate = recorder
        manager.startUpdatingLocation()
        #expect(recorder.locations.count == 3)
    }

    @Test("requestLocation delivers exactly one fix")
    func oneShot() throws {
        let manager = SimulatedLocationManager(trace: try TraceReader.read(path("traces/campus-loop.gpx")))
        let recorder = Recorder()
        manager.delegate = recorder
        manager.requestLocation()
        #expect(recorder.locations.count == 1)
        #expect(recorder.locations.first?.horizontalAccuracy == 5)
    }

    /// 21 fixes one second apart (3 recorded 10 s apart, interpolated at 1 Hz).
    func twentySecondWalk() throws -> Trace {
        straightWalk(from: try .init(latitude: 53.4, longitude: -2.97), azimuth: 45, step: 30, count: 3, interval: 10)
    }

    @Test("at 100x every event is due exactly a hundredth of its walk time after the start")
    func realTimePacing() async throws {
        var options = ReplayOptions()
        options.seek = 0
        let clock = ImmediateClock()
        var dueAt: [Duration] = []
        var walkTimes: [Double] = []
        var first: Double?
        for try await event in LocationEvents(trace: try twentySecondWalk(), replay: options, clock: RealTimeClock(speed: 100, clock: clock)) {
            first = first ?? event.timestamp
            walkTimes.append(event.timestamp - (first ?? 0))
            dueAt.append(clock.now.offset)
        }
        #expect(walkTimes.count == 21)
        #expect(dueAt == walkTimes.map { .seconds($0 / 100) })
        #expect(clock.now.offset == .milliseconds(200))
    }

    @Test("a pause holds the replay however long it lasts; on resume the held event is due at once and the rest keep the speed")
    func pauseAndResume() async throws {
        var options = ReplayOptions()
        options.seek = 0
        let clock = ImmediateClock()
        let control = ReplayControl()
        let events = LocationEvents(trace: try twentySecondWalk(), replay: options, clock: RealTimeClock(speed: 100, control: control, clock: clock))
        let replay = Task {
            var dueAt: [Duration] = []
            for try await _ in events {
                dueAt.append(clock.now.offset)
                if dueAt.count == 6 { await control.pause() }
            }
            return dueAt
        }
        while await control.heldReplays == 0 { await Task.yield() }
        #expect(microseconds(clock.now.offset) == 50_000)
        clock.advance(by: .seconds(7))
        await control.resume()
        let dueAt = try await replay.value
        // In whole microseconds: the walk's seconds divided by the speed are not exact binary fractions.
        let expected = (0..<6).map { 10_000 * $0 } + (0..<15).map { 7_050_000 + 10_000 * $0 }
        #expect(dueAt.map(microseconds) == expected)
    }

    @Test("end to end on the wall clock: 20 s of walk at 100x waits at least 0.2 s")
    func wallClock() async throws {
        var options = ReplayOptions()
        options.seek = 0
        let began = ContinuousClock.now
        var count = 0
        for try await _ in LocationEvents(trace: try twentySecondWalk(), replay: options, clock: RealTimeClock(speed: 100)) { count += 1 }
        #expect(count == 21)
        // A lower bound only: a busy machine makes it slower, never faster.
        #expect(ContinuousClock.now - began >= .milliseconds(200))
    }
}

private func microseconds(_ d: Duration) -> Int {
    Int((Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12).rounded())
}

@Suite("The delivered fixes as a trace")
struct DeliveredTraceTests {
    @Test("a trace of the fixes a replay delivers: their positions, times, accuracy, speed and course, in one segment")
    func deliveredTrace() throws {
        let trace = try TraceReader.read(path("traces/pier-head-to-guild.gpx"))
        var simulator = try LocationSimulator(trace: trace)
        let delivered = simulator.run().compactMap { if case .location(let l) = $0 { return l } else { return nil } }
        var told: [Double] = []
        let written = try LocationSimulator.delivered(trace) { done, of in told.append(done / of) }
        let fixes = written.replaySegments.flatMap(\.fixes)
        #expect(written.replaySegments.count == 1 && fixes.count == delivered.count && fixes.count > 10)
        #expect(fixes.map(\.coordinate) == delivered.map(\.coordinate))
        #expect(fixes.map(\.time) == delivered.map(\.timestamp))
        #expect(fixes.map(\.horizontalAccuracy) == delivered.map(\.horizontalAccuracy))
        #expect(fixes.map(\.speed) == delivered.map { $0.speed >= 0 ? $0.speed : nil })
        #expect(told.count == delivered.count && told == told.sorted() && (told.last ?? 2) <= 1)
        // A distance filter of none delivers every generated fix: more than 25 m gives.
        var every = LocationSettings()
        every.distanceFilter = distanceFilterNone
        #expect(try LocationSimulator.delivered(trace, settings: every).replaySegments.flatMap(\.fixes).count > fixes.count)
    }
}
