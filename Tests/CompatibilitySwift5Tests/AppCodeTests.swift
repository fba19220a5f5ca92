// Compiled in the Swift 5 language mode, as most app code still is: plain
// classes with no concurrency annotations, using CoreLocation as on iOS.
import CoreLocation
import Foundation
import LocationSimulation
import StrollSimulation
import Traces
import Testing
import TestSupport

class TripRecorder: NSObject, CLLocationManagerDelegate {
    private let locationManager = CLLocationManager()
    private(set) var trail: [CLLocation] = []
    var lastLocation: CLLocation? { trail.last }

    func begin() {
        locationManager.delegate = self
        locationManager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        locationManager.distanceFilter = 25
        locationManager.pausesLocationUpdatesAutomatically = false
        locationManager.requestWhenInUseAuthorization()
        locationManager.startUpdatingLocation()
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        trail.append(contentsOf: locations)
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: Error) {
        print("location error: \(error)")
    }
}

extension CLLocationCoordinate2D {
    func metres(to other: CLLocationCoordinate2D) -> CLLocationDistance {
        CLLocation(latitude: latitude, longitude: longitude).distance(from: CLLocation(latitude: other.latitude, longitude: other.longitude))
    }
}

@Suite("App code in Swift 5 mode", .serialized)
struct AppCodeTests {
    @Test("an ObservableObject with @Published fixes: $location.sink sees every delivered fix in order, objectWillChange fires before each change, and a cancelled subscription sees no more")
    @MainActor
    func publishedFixes() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path("traces/pier-head-to-guild.gpx"), authorization: .notDetermined)
        defer { SimulatedDevice.current = nil }
        let model = PublishedLocationManager()
        var published: [CLLocation?] = []
        var willChange = 0
        var statuses: [CLAuthorizationStatus] = []
        let fixes = model.$location.sink { published.append($0) }
        let changes = model.objectWillChange.sink { _ in willChange += 1 }
        let authorization = model.$authorizationStatus.sink { statuses.append($0) }
        // A subscription cancelled ten minutes into the walk sees nothing after.
        var early: [CLLocation?] = []
        let cancelled = model.$location.sink { early.append($0) }
        model.start()
        await SimulatedDevice.current?.advance(by: 600)
        cancelled.cancel()
        let seenEarly = early.count
        await SimulatedDevice.current?.run()
        var simulator = try LocationSimulator(trace: try TraceReader.read(path("traces/pier-head-to-guild.gpx")))
        let expected = simulator.run().compactMap { event -> Double? in
            if case .location(let l) = event { return l.timestamp }
            return nil
        }
        // The subscription's first value is the one it found (nil), then one per delivered fix.
        #expect(published.first.map { $0 == nil } == true)
        #expect(published.dropFirst().map { $0?.timestamp.timeIntervalSince1970 ?? -1 } == expected && expected.count > 10)
        #expect(willChange >= expected.count + 1)
        #expect(model.location?.timestamp == published.last??.timestamp)
        #expect(statuses.first == .notDetermined && statuses.last == .authorizedWhenInUse)
        #expect(early.count == seenEarly && seenEarly > 1 && seenEarly < published.count)
        authorization.cancel()
        fixes.cancel()
        changes.cancel()
    }

    @Test("a plain NSObject delegate records the walk; its last fix is the walk's last delivered fix")
    @MainActor
    func recordsTheWalk() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: path("traces/pier-head-to-guild.gpx"), authorization: .notDetermined)
        defer { SimulatedDevice.current = nil }
        let recorder = TripRecorder()
        recorder.begin()
        await SimulatedDevice.current?.run()
        // What Stroll's own simulator delivers for the walk with the recorder's settings.
        var simulator = try LocationSimulator(trace: try TraceReader.read(path("traces/pier-head-to-guild.gpx")))
        let expected = simulator.run().compactMap { event -> Location? in
            if case .location(let l) = event { return l }
            return nil
        }
        #expect(recorder.trail.count == expected.count && expected.count > 10)
        let times = recorder.trail.map { $0.timestamp.timeIntervalSince1970 }
        #expect(times == expected.map(\.timestamp))
        let last = try #require(recorder.lastLocation)
        let walkEnd = try #require(expected.last)
        #expect(last.coordinate.latitude == walkEnd.coordinate.latitude && last.coordinate.longitude == walkEnd.coordinate.longitude)
    }

    @Test("a coordinate extension over CLLocation.distance(from:) agrees with GeographicLib to 1 mm")
    func coordinateExtension() throws {
        let text = try String(contentsOfFile: path("Tests/GeodesyTests/Reference/geodesic-reference.tsv"), encoding: .utf8)
        var worst = 0.0
        for line in text.split(separator: "\n") where line.hasPrefix("city") {
            let f = line.split(separator: "\t").dropFirst().compactMap { Double($0) }
            guard f.count == 7 else { continue }
            let d = CLLocationCoordinate2D(latitude: f[0], longitude: f[1]).metres(to: CLLocationCoordinate2D(latitude: f[2], longitude: f[3]))
            worst = max(worst, abs(d - f[6]))
        }
        #expect(worst <= 0.001)
    }
}
