import CoreLocation
import Foundation
import LocationSimulation
import StrollSimulation
import Testing
import TestSupport
import Traces

/// What a `CLVisit` said, kept across the hop to the main actor (a `CLVisit`
/// is not `Sendable`, as Apple's is not).
struct SeenVisit: Sendable {
    var arrivalDate: Date
    var departureDate: Date
    var coordinate: CLLocationCoordinate2D
    var horizontalAccuracy: Double
    var description: String

    init(_ v: CLVisit) {
        arrivalDate = v.arrivalDate
        departureDate = v.departureDate
        coordinate = v.coordinate
        horizontalAccuracy = v.horizontalAccuracy
        description = v.description
    }
}

/// An app that records its visits, as Swift 6 code writes the callback.
@MainActor
final class VisitRecorder: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    var visits: [SeenVisit] = []
    var locations = 0

    override init() {
        super.init()
        manager.delegate = self
        manager.distanceFilter = 25
        manager.desiredAccuracy = kCLLocationAccuracyHundredMeters
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didVisit visit: CLVisit) {
        let seen = SeenVisit(visit)
        MainActor.assumeIsolated { visits.append(seen) }
    }

    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        let n = locations.count
        MainActor.assumeIsolated { self.locations += n }
    }
}

/// The visits ``VisitDetector`` finds in every fix the device makes on a trace.
func expectedVisits(_ trace: Trace) throws -> [Visit] {
    var detector = VisitDetector()
    return try deviceFixes(trace).flatMap { detector.add($0) }
}

@Suite("CLVisit: visit monitoring through StrollSimulation", .serialized)
@MainActor
struct CLVisitTests {
    let walk = "traces/bold-street-long-stop.gpx"

    /// The long-stop walk, and a device on it installed as the current one (the caller uninstalls it).
    func install() throws -> (Trace, SimulatedDevice) {
        let trace = try TraceReader.read(path(walk))
        let device = SimulatedDevice(trace: trace)
        SimulatedDevice.current = device
        return (trace, device)
    }

    @Test("the long coffee stop on Renshaw Street: an arrival (departure distantFuture), then its departure, as the detector finds them in the device's fixes")
    func longStop() async throws {
        let (trace, device) = try install()
        defer { SimulatedDevice.current = nil }
        let app = VisitRecorder()
        app.manager.startMonitoringVisits()
        #expect(app.manager.isMonitoringVisits && !app.manager.isUpdatingLocation)
        await device.run()
        let expected = try expectedVisits(trace)
        try #require(expected.count == 2 && app.visits.count == 2)
        let (arrival, departure) = (app.visits[0], app.visits[1])
        #expect(arrival.departureDate == .distantFuture)
        #expect(arrival.arrivalDate == departure.arrivalDate)
        #expect(departure.departureDate.timeIntervalSince(departure.arrivalDate) >= 600)
        for (visit, want) in zip(app.visits, expected) {
            #expect(visit.arrivalDate.timeIntervalSince1970 == want.arrival)
            #expect(visit.departureDate == (want.departure.map { Date(timeIntervalSince1970: $0) } ?? .distantFuture))
            #expect(visit.coordinate.latitude == want.coordinate.latitude && visit.coordinate.longitude == want.coordinate.longitude)
            #expect(visit.horizontalAccuracy == want.horizontalAccuracy)
        }
        // The stop is on Renshaw Street; every fix of the run is within 100 m
        // of its first, so within 200 m of the centre (the walk in and out
        // are part of the run).
        #expect(abs(departure.coordinate.latitude - 53.40395) < 0.0005 && abs(departure.coordinate.longitude + 2.97703) < 0.0008)
        #expect(departure.horizontalAccuracy > 0 && departure.horizontalAccuracy < 200)
        #expect(departure.description.contains("CLVisit"))
        // Visits alone deliver no fixes to the delegate.
        #expect(app.locations == 0)
    }

    @Test("visits beside updates with a 25 m filter: the same visits, the filter untouched")
    func besideUpdates() async throws {
        let (trace, device) = try install()
        defer { SimulatedDevice.current = nil }
        let app = VisitRecorder()
        app.manager.startUpdatingLocation()
        app.manager.startMonitoringVisits()
        app.manager.startMonitoringVisits() // again while running: nothing new
        await device.run()
        #expect(app.manager.distanceFilter == 25)
        #expect(app.locations > 0)
        #expect(app.visits.map(\.arrivalDate.timeIntervalSince1970) == (try expectedVisits(trace)).map(\.arrival))
    }

    @Test("stopMonitoringVisits after the arrival: no departure is delivered")
    func stopping() async throws {
        let (trace, device) = try install()
        defer { SimulatedDevice.current = nil }
        let expected = try expectedVisits(trace)
        let app = VisitRecorder()
        app.manager.startMonitoringVisits()
        let departure = try #require(expected.last?.departure)
        await device.advance(by: departure - device.now - 10)
        #expect(app.visits.count == 1)
        app.manager.stopMonitoringVisits()
        #expect(!app.manager.isMonitoringVisits)
        await device.run()
        #expect(app.visits.count == 1 && app.visits[0].departureDate == .distantFuture)
    }

    @Test("without a device, startMonitoringVisits reports locationUnknown; when denied, .denied")
    func noDevice() async throws {
        let app = VisitRecorder()
        let failures = FailureRecorder()
        app.manager.delegate = failures
        app.manager.startMonitoringVisits()
        #expect(failures.codes == [.locationUnknown])
        SimulatedDevice.current = try SimulatedDevice(trace: path(walk), authorization: .denied)
        defer { SimulatedDevice.current = nil }
        app.manager.startMonitoringVisits()
        await SimulatedDevice.current?.run()
        #expect(failures.codes == [.locationUnknown, .denied])
        #expect(!app.manager.isMonitoringVisits)
    }
}

/// Records the codes of `didFailWithError`.
@MainActor
final class FailureRecorder: NSObject, CLLocationManagerDelegate {
    var codes: [CLError.Code] = []

    nonisolated func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        guard let code = (error as? CLError)?.code else { return }
        MainActor.assumeIsolated { codes.append(code) }
    }
}
