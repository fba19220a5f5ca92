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
    var monitoringStarts: [String] = []
    var monitoringFailures: [String] = []

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

    nonisolated func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {
        let id = region.identifier
        MainActor.assumeIsolated { monitoringStarts.append(id) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error) {
        let entry = "\(region?.identifier ?? "-") \((error as? CLError)?.code.rawValue ?? -1)"
        MainActor.assumeIsolated { monitoringFailures.append(entry) }
    }
}

/// The significant-change fixes of a run of device fixes, by Apple's rule as
/// StrollSimulation applies it: the first, then each at least 500 m and five
/// minutes from the last one delivered.
func significantChanges(_ fixes: [Location]) -> [Location] {
    var kept: [Location] = []
    for fix in fixes {
        if let last = kept.last {
            guard fix.timestamp - last.timestamp >= SimulatedDevice.significantChangeInterval,
                  fix.distance(from: last) >= SimulatedDevice.significantChangeDistance else { continue }
        }
        kept.append(fix)
    }
    return kept
}

/// Every fix the device makes on a trace (no filter, best accuracy).
func deviceFixes(_ trace: Trace) throws -> [Location] {
    var settings = LocationSettings()
    settings.distanceFilter = kCLDistanceFilterNone
    settings.desiredAccuracy = kCLLocationAccuracyBest
    var simulator = try LocationSimulator(trace: trace, settings: settings)
    return simulator.run().compactMap { if case .location(let l) = $0 { return l } else { return nil } }
}

/// A drive due east at 20 m/s, a fix every 10 s for half an hour: 500 m
/// takes 25 s, so Apple's five minutes, not the distance, spaces significant changes.
func drive() -> Trace {
    let start = Coordinate(computedLatitude: 53.40, longitude: -2.98)
    let fixes = (0..<181).map { i in
        Fix(coordinate: Geodesic.wgs84.direct(from: start, azimuth: 90, distance: 200 * Double(i)).coordinate,
            time: 1_714_554_000 + 10 * Double(i), horizontalAccuracy: 5, line: i + 1)
    }
    return Trace(format: .gpx, tracks: [Track(segments: [Segment(fixes: fixes)])])
}

/// What Stroll's own simulator delivers for the walk with these settings.
func delivered(_ walk: String, distanceFilter: Double, desiredAccuracy: Double = 10) throws -> [Location] {
    try delivered(trace: try TraceReader.read(path(walk)), distanceFilter: distanceFilter, desiredAccuracy: desiredAccuracy)
}

func delivered(trace: Trace, distanceFilter: Double, desiredAccuracy: Double = 10) throws -> [Location] {
    var settings = LocationSettings()
    settings.distanceFilter = distanceFilter
    settings.desiredAccuracy = desiredAccuracy
    var simulator = try LocationSimulator(trace: trace, settings: settings)
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

    @Test("significant changes are a service of their own: the first fix, then one per 500 m and five minutes; the app's distanceFilter is not changed")
    func significantChangesAlone() async throws {
        let trace = drive()
        SimulatedDevice.current = SimulatedDevice(trace: trace)
        defer { SimulatedDevice.current = nil }
        let tracker = WalkTracker(distanceFilter: 25)
        tracker.manager.desiredAccuracy = kCLLocationAccuracyThreeKilometers
        tracker.manager.startMonitoringSignificantLocationChanges()
        #expect(tracker.manager.distanceFilter == 25 && tracker.manager.desiredAccuracy == kCLLocationAccuracyThreeKilometers)
        #expect(tracker.manager.isMonitoringSignificantLocationChanges && !tracker.manager.isUpdatingLocation)
        await SimulatedDevice.current?.run()
        let expected = significantChanges(try deviceFixes(trace))
        // 1800 s of driving: the start, then every 300 s (6 km each), not every 500 m.
        #expect(expected.count == 7)
        #expect(tracker.locations.map(\.timestamp.timeIntervalSince1970) == expected.map(\.timestamp))
        #expect(zip(tracker.locations, expected).allSatisfy { same($0, $1) })
        #expect(tracker.errors.isEmpty)
    }

    @Test("significant changes beside standard updates: each stops without stopping the other")
    func significantChangesBesideUpdates() async throws {
        let trace = drive()
        let standard = try delivered(trace: trace, distanceFilter: 25), significant = significantChanges(try deviceFixes(trace))
        let stopAt = 1_714_554_000 + 900.0

        // Standard updates stop at 900 s; significant changes go on to the end.
        let device = SimulatedDevice(trace: trace)
        SimulatedDevice.current = device
        defer { SimulatedDevice.current = nil }
        let a = WalkTracker(distanceFilter: 25)
        a.manager.startUpdatingLocation()
        a.manager.startMonitoringSignificantLocationChanges()
        await device.advance(by: 900)
        a.manager.stopUpdatingLocation()
        #expect(a.manager.isMonitoringSignificantLocationChanges && !a.manager.isUpdatingLocation)
        await device.run()
        let expectedA = standard.filter { $0.timestamp <= stopAt } + significant
        #expect(a.locations.map(\.timestamp.timeIntervalSince1970).sorted() == expectedA.map(\.timestamp).sorted())
        #expect(a.locations.contains { $0.timestamp.timeIntervalSince1970 > stopAt })

        // Significant changes stop at 900 s; standard updates go on, their 25 m filter untouched.
        let again = SimulatedDevice(trace: trace)
        SimulatedDevice.current = again
        let b = WalkTracker(distanceFilter: 25)
        b.manager.startMonitoringSignificantLocationChanges()
        b.manager.startUpdatingLocation()
        b.manager.startMonitoringSignificantLocationChanges() // again while running: no new first fix
        await again.advance(by: 900)
        b.manager.stopMonitoringSignificantLocationChanges()
        #expect(!b.manager.isMonitoringSignificantLocationChanges && b.manager.isUpdatingLocation)
        await again.run()
        let expectedB = standard + significant.filter { $0.timestamp <= stopAt }
        #expect(b.locations.map(\.timestamp.timeIntervalSince1970).sorted() == expectedB.map(\.timestamp).sorted())
        #expect(b.manager.distanceFilter == 25)
    }

    @Test("significant changes wait for a prompt's answer, and a refusal reports .denied")
    func significantChangesAuthorization() async throws {
        let trace = drive()
        SimulatedDevice.current = SimulatedDevice(trace: trace, authorization: .notDetermined, answer: .authorizedAlways)
        let granted = WalkTracker()
        granted.manager.startMonitoringSignificantLocationChanges()
        granted.manager.requestAlwaysAuthorization()
        await SimulatedDevice.current?.run()
        #expect(granted.locations.count == significantChanges(try deviceFixes(trace)).count)

        SimulatedDevice.current = SimulatedDevice(trace: trace, authorization: .denied)
        defer { SimulatedDevice.current = nil }
        let refused = WalkTracker()
        refused.manager.startMonitoringSignificantLocationChanges()
        await SimulatedDevice.current?.run()
        #expect(refused.errors.map(\.code) == [.denied] && refused.locations.isEmpty)
        #expect(!refused.manager.isMonitoringSignificantLocationChanges)
    }

    @Test("course and speed accuracies come from the fix's accuracy and the trace leg they were measured on")
    func courseAndSpeedAccuracy() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
        defer { SimulatedDevice.current = nil }
        let tracker = WalkTracker()
        tracker.manager.startUpdatingLocation()
        await SimulatedDevice.current?.run()
        // The walk is recorded every 5 s with 5 m accuracy: both ends of a leg off by σ per axis.
        let spread = 2.0.squareRoot() * 5 * SensorOptions.sigmaPerRadius68
        let moving = tracker.locations.filter { $0.speed > 0 && $0.course >= 0 }
        #expect(moving.count > 10 && moving.count == tracker.locations.count - 1)
        for fix in moving {
            #expect(abs(fix.speedAccuracy - spread / 5) < 1e-9)
            #expect(abs(fix.courseAccuracy - atan2(spread, fix.speed * 5) * 180 / .pi) < 1e-6)
        }
        #expect(abs(spread / 5 - 0.937) < 0.001)
        let first = try #require(tracker.locations.first)
        #expect(first.course == -1 && first.courseAccuracy == -1 && first.speed == -1 && first.speedAccuracy == -1)
    }

    @Test("a region wider than maximumRegionMonitoringDistance fails with regionMonitoringFailure and is not monitored")
    func regionTooLarge() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
        defer { SimulatedDevice.current = nil }
        let tracker = WalkTracker()
        let center = CLLocationCoordinate2D(latitude: 53.40, longitude: -2.97)
        let huge = CLCircularRegion(center: center, radius: tracker.manager.maximumRegionMonitoringDistance + 1, identifier: "huge")
        let widest = CLCircularRegion(center: center, radius: tracker.manager.maximumRegionMonitoringDistance, identifier: "widest")
        tracker.manager.startMonitoring(for: huge)
        tracker.manager.startMonitoring(for: widest)
        await SimulatedDevice.current?.run()
        #expect(tracker.monitoringFailures == ["huge \(CLError.Code.regionMonitoringFailure.rawValue)"])
        #expect(tracker.monitoringStarts == ["widest"] && tracker.regionEvents.isEmpty)
    }

    @Test("past 20 monitored regions, the 21st fails with regionMonitoringFailure and the 20 are still watched")
    func twentyRegions() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk))
        defer { SimulatedDevice.current = nil }
        let fixes = try delivered(walk, distanceFilter: 25)
        let end = try #require(fixes.last)
        let tracker = WalkTracker()
        let far = CLLocationCoordinate2D(latitude: 51.5, longitude: -0.12)
        for i in 1...19 { tracker.manager.startMonitoring(for: CLCircularRegion(center: far, radius: 100, identifier: "r\(i)")) }
        let arrival = CLLocationCoordinate2D(latitude: end.coordinate.latitude, longitude: end.coordinate.longitude)
        tracker.manager.startMonitoring(for: CLCircularRegion(center: arrival, radius: 60, identifier: "arrival"))
        tracker.manager.startMonitoring(for: CLCircularRegion(center: arrival, radius: 60, identifier: "extra"))
        await SimulatedDevice.current?.run()
        #expect(tracker.monitoringStarts.count == 20 && !tracker.monitoringStarts.contains("extra"))
        #expect(tracker.monitoringFailures == ["extra \(CLError.Code.regionMonitoringFailure.rawValue)"])
        #expect(tracker.regionEvents == ["enter arrival"])
    }

    @Test("CLLocationUpdate.liveUpdates() reports a stop once with isStationary, then nothing until the device moves")
    func liveUpdatesStationary() async throws {
        let stop = "traces/bold-street-long-stop.gpx"
        SimulatedDevice.current = try SimulatedDevice(trace: path(stop))
        defer { SimulatedDevice.current = nil }
        let updates = CLLocationUpdate.liveUpdates(.fitness)
        let reader = Task { @MainActor in
            var located = 0, stationary = 0
            for try await update in updates {
                if update.location != nil { located += 1 }
                if update.isStationary { stationary += 1 }
            }
            return (located, stationary)
        }
        await SimulatedDevice.current?.run()
        var settings = LocationSettings()
        settings.distanceFilter = kCLDistanceFilterNone
        settings.desiredAccuracy = kCLLocationAccuracyBest
        settings.pausesLocationUpdatesAutomatically = true
        var simulator = try LocationSimulator(trace: try TraceReader.read(path(stop)), settings: settings)
        let events = simulator.run()
        let fixes = events.filter { if case .location = $0 { return true } else { return false } }.count
        let pauses = events.filter { if case .paused = $0 { return true } else { return false } }.count
        let (located, stationary) = try await reader.value
        #expect(pauses >= 1 && simulator.counts.paused > 0)
        #expect(located == fixes && stationary == pauses)
        #expect(located < (try delivered(stop, distanceFilter: -1, desiredAccuracy: -1)).count)
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
