import CoreLocation
import Observation
import StrollSimulation
import Testing
import TestSupport

/// A model as Swift 6 apps write one for SwiftUI today: `@Observable`
/// (Observation, which ships with the toolchain), main-actor isolated, its
/// manager's fixes kept in tracked properties.
@Observable @MainActor
final class ObservedWalk: NSObject, CLLocationManagerDelegate {
    var location: CLLocation?
    var delivered = 0
    @ObservationIgnored let manager = CLLocationManager()

    override init() {
        super.init()
        manager.delegate = self
        manager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        manager.distanceFilter = 25
        manager.pausesLocationUpdatesAutomatically = false
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        MainActor.assumeIsolated {
            location = locations.last
            delivered += locations.count
        }
    }
}

/// How many times an observation fired.
@MainActor
final class ObservationLog {
    var changes = 0
}

/// Counts each change of `model.location`, observing again after each (an
/// observation fires once). The model is held weakly by what observes it:
/// the registration it keeps must not keep it alive.
@MainActor
func track(_ model: ObservedWalk, _ log: ObservationLog) {
    withObservationTracking {
        _ = model.location
    } onChange: { [weak model] in
        Task { @MainActor in
            log.changes += 1
            if let model { track(model, log) }
        }
    }
}

extension CoreLocationTests {
    @Test("an @Observable model: withObservationTracking sees its location change as the walk plays, and the model ends on the walk's last delivered fix")
    func observableModel() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
        defer { SimulatedDevice.current = nil }
        let model = ObservedWalk()
        let log = ObservationLog()
        track(model, log)
        model.manager.requestWhenInUseAuthorization()
        model.manager.startUpdatingLocation()
        await SimulatedDevice.current?.advance(by: 120)
        await Task.yield()
        let early = log.changes
        await SimulatedDevice.current?.run()
        await Task.yield()
        let expected = try delivered(walk, distanceFilter: 25)
        #expect(early >= 1)
        #expect(log.changes > early)
        #expect(model.delivered == expected.count)
        let last = try #require(expected.last)
        #expect(model.location.map { same($0, last) } == true)
    }
}
