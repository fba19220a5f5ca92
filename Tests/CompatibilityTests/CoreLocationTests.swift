import CoreLocation
import Foundation
import Geodesy
import LocationSimulation
import StrollSimulation
import Testing
import TestSupport
import Traces

/// An app's location class as Swift 6 code writes it: main-actor isolated, the
/// delegate callbacks `nonisolated` (CoreLocation's protocol is not isolated)
/// and hopping back with `MainActor.assumeIsolated`, as they arrive on the main actor.
@MainActor
final class WalkTracker: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    var locations: [CLLocation] = []
    var errors: [CLError] = []
    var authorizationChanges: [CLAuthorizationStatus] = []
    var regionEvents: [String] = []

    init(distanceFilter: CLLocationDistance = 25) {
        super.init()
        manager.delegate = self
        manager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        manager.distanceFilter = distanceFilter
        manager.pausesLocationUpdatesAutomatically = false
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        MainActor.assumeIsolated { self.locations += locations }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        guard let error = error as? CLError else { return }
        MainActor.assumeIsolated { errors.append(error) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didChangeAuthorization status: CLAuthorizationStatus) {
        MainActor.assumeIsolated { authorizationChanges.append(status) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        let id = region.identifier
        MainActor.assumeIsolated { regionEvents.append("enter \(id)") }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        let id = region.identifier
        MainActor.assumeIsolated { regionEvents.append("exit \(id)") }
    }
}

/// What Stroll's own simulator delivers for the walk with these settings.
func delivered(_ walk: String, distanceFilter: Double, desiredAccuracy: Double = 10) throws -> [Location] {
    var settings = LocationSettings()
    settings.distanceFilter = distanceFilter
    settings.desiredAccuracy = desiredAccuracy
    var simulator = try LocationSimulator(trace: try TraceReader.read(path(walk)), settings: settings)
    return simulator.run().compactMap { if case .location(let l) = $0 { return l } else { return nil } }
}

func same(_ a: CLLocation, _ b: Location) -> Bool {
    a.coordinate.latitude == b.coordinate.latitude && a.coordinate.longitude == b.coordinate.longitude
        && a.timestamp.timeIntervalSince1970 == b.timestamp && a.horizontalAccuracy == b.horizontalAccuracy
        && a.course == b.course && a.speed == b.speed && a.altitude == b.altitude
}

@Suite("CoreLocation on Linux, driven by StrollSimulation", .serialized)
@MainActor
struct CoreLocationTests {
    let walk = "traces/lime-street-to-campus.gpx"

    @Test("a delegate gets the walk's delivered fixes in order; the last is the walk's last delivered fix")
    func deliveries() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
        defer { SimulatedDevice.current = nil }
        let tracker = WalkTracker()
        tracker.manager.requestWhenInUseAuthorization()
        tracker.manager.startUpdatingLocation()
        await SimulatedDevice.current?.run()
        let expected = try delivered(walk, distanceFilter: 25)
        #expect(tracker.locations.count == expected.count)
        #expect(zip(tracker.locations, expected).allSatisfy { same($0, $1) })
        let last = try #require(expected.last)
        #expect(tracker.manager.location.map { same($0, last) } == true)
        #expect(tracker.errors.isEmpty)
    }

    @Test("a receiver in an urban canyon: the delegate gets the warm-up's 1414 m fix first, kCLErrorLocationUnknown for each outage, and exactly the fixes Stroll's simulator delivers with that sensor")
    func urbanCanyon() async throws {
        let sensor = SensorOptions(noise: .gaussMarkov, seed: 7, environment: .urbanCanyon, warmUp: .ios)
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk), sensor: sensor)
        defer { SimulatedDevice.current = nil }
        let tracker = WalkTracker()
        tracker.manager.startUpdatingLocation()
        await SimulatedDevice.current?.run()
        var simulator = try LocationSimulator(trace: try TraceReader.read(path(walk)), settings: LocationSettings(), sensor: sensor)
        let expected = simulator.run().compactMap { if case .location(let l) = $0 { return l } else { return nil } }
        #expect(tracker.locations.count == expected.count)
        #expect(zip(tracker.locations, expected).allSatisfy { same($0, $1) })
        #expect(tracker.locations.first?.horizontalAccuracy == 1414)
        #expect(simulator.counts.outages > 0)
        #expect(tracker.errors.count == simulator.counts.outages && tracker.errors.allSatisfy { $0.code == .locationUnknown })
    }

    @Test("two managers with 25 m and 100 m filters receive different deliveries, each its own filter's")
    func twoFilters() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
        defer { SimulatedDevice.current = nil }
        let near = WalkTracker(distanceFilter: 25), far = WalkTracker(distanceFilter: 100)
        near.manager.startUpdatingLocation()
        far.manager.startUpdatingLocation()
        await SimulatedDevice.current?.run()
        let expectedNear = try delivered(walk, distanceFilter: 25), expectedFar = try delivered(walk, distanceFilter: 100)
        #expect(near.locations.count == expectedNear.count && far.locations.count == expectedFar.count)
        #expect(far.locations.count < near.locations.count)
        #expect(zip(far.locations, expectedFar).allSatisfy { same($0, $1) })
        for (a, b) in zip(far.locations, far.locations.dropFirst()) { #expect(a.distance(from: b) >= 100) }
    }

    @Test("advance(by:) steps the walk: only the fixes due so far arrive, then the rest")
    func stepping() async throws {
        let simulation = try SimulatedDevice(trace: path(walk))
        SimulatedDevice.current = simulation
        defer { SimulatedDevice.current = nil }
        let tracker = WalkTracker()
        tracker.manager.startUpdatingLocation()
        await simulation.advance(by: 120)
        let expected = try delivered(walk, distanceFilter: 25)
        let due = expected.filter { $0.timestamp <= simulation.startTime + 120 }
        #expect(tracker.locations.count == due.count && !due.isEmpty && due.count < expected.count)
        #expect(simulation.elapsed == 120)
        await simulation.run()
        #expect(tracker.locations.count == expected.count)
    }

    @Test("with no simulation installed the delegate gets CLError.locationUnknown, not a crash")
    func noDevice() {
        SimulatedDevice.current = nil
        let tracker = WalkTracker()
        tracker.manager.startUpdatingLocation()
        #expect(tracker.errors.map(\.code) == [.locationUnknown])
        #expect(tracker.locations.isEmpty)
        #expect(CLLocationManager.authorizationStatus() == .notDetermined)
    }

    @Test("authorization denied: .denied to the delegate and no fixes")
    func denied() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk), authorization: .denied)
        defer { SimulatedDevice.current = nil }
        let tracker = WalkTracker()
        tracker.manager.startUpdatingLocation()
        await SimulatedDevice.current?.run()
        #expect(tracker.errors.map(\.code) == [.denied])
        #expect(tracker.locations.isEmpty)
        #expect((tracker.errors.first as (any Error)?).map { ($0 as NSError).domain } == kCLErrorDomain)
    }

    @Test("a prompt is answered as configured: the change is reported, then fixes flow; a refusal stops them")
    func prompt() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk), authorization: .notDetermined, answer: .authorizedWhenInUse)
        let tracker = WalkTracker()
        tracker.manager.startUpdatingLocation()
        tracker.manager.requestWhenInUseAuthorization()
        await SimulatedDevice.current?.run()
        #expect(tracker.authorizationChanges == [.notDetermined, .authorizedWhenInUse])
        let expected = try delivered(walk, distanceFilter: 25)
        #expect(tracker.locations.count == expected.count)

        SimulatedDevice.current = try SimulatedDevice(trace: path(walk), authorization: .notDetermined, answer: .denied)
        defer { SimulatedDevice.current = nil }
        let refused = WalkTracker()
        refused.manager.requestWhenInUseAuthorization()
        refused.manager.startUpdatingLocation()
        await SimulatedDevice.current?.run()
        #expect(refused.authorizationChanges == [.notDetermined, .denied])
        #expect(refused.errors.map(\.code) == [.denied] && refused.locations.isEmpty)

        // Started before asking: the refusal stops it with `.denied` too.
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk), authorization: .notDetermined, answer: .denied)
        let early = WalkTracker()
        early.manager.startUpdatingLocation()
        early.manager.requestWhenInUseAuthorization()
        await SimulatedDevice.current?.run()
        #expect(early.errors.map(\.code) == [.denied] && early.locations.isEmpty)
    }

    @Test("a missing trace throws from SimulatedDevice(trace:), naming the file")
    func missingTrace() {
        #expect {
            _ = try SimulatedDevice(trace: "/nonexistent/walk.gpx")
        } throws: { error in
            "\(error)".contains("/nonexistent/walk.gpx")
        }
    }

    @Test("circular regions: the walk leaves the one at its start and enters the one at its end, once each")
    func regions() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
        defer { SimulatedDevice.current = nil }
        let fixes = try delivered(walk, distanceFilter: 25)
        let end = try #require(fixes.last), start = try #require(fixes.first)
        let tracker = WalkTracker()
        let region = CLCircularRegion(center: CLLocationCoordinate2D(latitude: end.coordinate.latitude, longitude: end.coordinate.longitude),
                                      radius: 60, identifier: "arrival")
        let departure = CLCircularRegion(center: CLLocationCoordinate2D(latitude: start.coordinate.latitude, longitude: start.coordinate.longitude),
                                         radius: 60, identifier: "departure")
        tracker.manager.startMonitoring(for: departure)
        tracker.manager.startMonitoring(for: region)
        #expect(tracker.manager.monitoredRegions.contains(region))
        await SimulatedDevice.current?.run()
        #expect(tracker.regionEvents == ["exit departure", "enter arrival"])
    }

    @Test("CLLocationUpdate.liveUpdates() yields every fix, unfiltered, and ends with the walk")
    func liveUpdates() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
        defer { SimulatedDevice.current = nil }
        let updates = CLLocationUpdate.liveUpdates()
        let reader = Task { @MainActor in
            var n = 0
            for try await update in updates where update.location != nil { n += 1 }
            return n
        }
        await SimulatedDevice.current?.run()
        let expected = try delivered(walk, distanceFilter: -1, desiredAccuracy: -1)
        #expect(try await reader.value == expected.count)
    }
}

@Suite("CLLocation.distance(from:) is the WGS84 geodesic")
struct DistanceTests {
    @Test("on GeographicLib's reference cases: within 1 mm below 100 km, 1e-5 m relative everywhere")
    func againstGeographicLib() throws {
        let text = try String(contentsOfFile: path("Tests/GeodesyTests/Reference/geodesic-reference.tsv"), encoding: .utf8)
        var checked = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: "\t").compactMap { Double($0) }
            guard f.count == 7 else { continue }
            let a = CLLocation(latitude: f[0], longitude: f[1]), b = CLLocation(latitude: f[2], longitude: f[3])
            let s = a.distance(from: b)
            #expect(abs(s - f[6]) <= max(1e-3, f[6] * 1e-9), "\(line)")
            checked += 1
        }
        #expect(checked > 1000)
    }

    @Test("coordinate helpers: make, validity, the invalid constant")
    func coordinates() {
        let c = CLLocationCoordinate2DMake(53.4, -2.97)
        #expect(c.latitude == 53.4 && c.longitude == -2.97)
        #expect(CLLocationCoordinate2DIsValid(c))
        #expect(!CLLocationCoordinate2DIsValid(kCLLocationCoordinate2DInvalid))
        #expect(!CLLocationCoordinate2DIsValid(CLLocationCoordinate2D(latitude: 91, longitude: 0)))
        #expect(CLCircularRegion(center: c, radius: 100, identifier: "c").contains(CLLocationCoordinate2D(latitude: 53.4005, longitude: -2.97)))
    }
}
