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

    @Test("a real clock paces events: 20 s of walk at 100x waits at least 0.2 s; pause and resume hold it")
    func realClock() async throws {
        var options = ReplayOptions()
        options.seek = 0
        let trace = straightWalk(from: try .init(latitude: 53.4, longitude: -2.97), azimuth: 45, step: 30, count: 3, interval: 10)
        let control = ReplayControl()
        let clock = RealTimeClock(speed: 100, control: control)
        let began = ContinuousClock.now
        var count = 0
        for try await _ in LocationEvents(trace: trace, replay: options, clock: clock) { count += 1 }
        let took = ContinuousClock.now - began
        #expect(count > 0)
        // Pacing is asserted as a lower bound (the events waited); the upper bound only catches a hang.
        #expect(took >= .milliseconds(190) && took < .seconds(30))
        await control.pause()
        let paused = Task {
            var n = 0
            for try await _ in LocationEvents(trace: trace, replay: options, clock: clock) { n += 1 }
            return n
        }
        try await Task.sleep(for: .milliseconds(300))
        await control.resume()
        #expect(try await paused.value == count)
    }
}
