import CoreLocation
import Foundation
import MapKit
import StrollSimulation
import Testing
import TimeTable

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

@Suite("TimeTable2012 on the campus loop", .serialized)
@MainActor
struct TimeTableTests {
    @Test("the day's remaining theatres re-sort as the independent GeographicLib replay says")
    func remainingTheatres() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: root.appendingPathComponent("traces/campus-loop.gpx").path)
        defer { SimulatedDevice.current = nil }
        let app = TimetableViewModel(timetable: try Timetable.bundled())
        app.day = 0
        app.time = "10:00"
        #expect(app.remainingTheatres().map(\.id) == ["cth", "sherrington", "victoria"])
        var delivered = 0
        var changesAt: [Int] = []
        let counter = DeliveryCounter { count, changes in
            delivered = count
            if changes { changesAt.append(count - 1) }
        }
        counter.app = app
        app.locationManager.delegate = counter
        app.startWalking()
        await SimulatedDevice.current?.run()
        let data = try Data(contentsOf: root.appendingPathComponent("Tests/ScenariosTests/Expected/expected-timetable.json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let want = try #require(expected["changes"] as? [[String: Any]])
        #expect(delivered == expected["delivered"] as? Int)
        #expect(changesAt == want.compactMap { $0["index"] as? Int })
        #expect(app.orderChanges == want.compactMap { $0["order"] as? [String] })
    }

    @Test("a visit through Monday's 09:00 lecture at the Ashton Building marks COMP327 attended, and only it; the walk on to the Central Teaching Hub marks nothing more")
    func lectureAttended() async throws {
        let walk = root.appendingPathComponent("Examples/TimeTable2012/walks/comp327-lecture.gpx").path
        SimulatedDevice.current = try SimulatedDevice(trace: walk)
        defer { SimulatedDevice.current = nil }
        let app = TimetableViewModel(timetable: try Timetable.bundled())
        app.day = 0
        app.startWalking()
        await SimulatedDevice.current?.run()
        #expect(app.attended == ["COMP327"])
        // Another day's timetable has no event at the Ashton Building at 09:00: nothing is attended.
        SimulatedDevice.current = try SimulatedDevice(trace: walk)
        let tuesday = TimetableViewModel(timetable: try Timetable.bundled())
        tuesday.day = 1
        tuesday.startWalking()
        await SimulatedDevice.current?.run()
        #expect(tuesday.attended.isEmpty)
    }

    @Test("a module's detail centres the map on its theatre's pin and selects it, keeping the zoom")
    func moduleDetail() throws {
        let app = TimetableViewModel(timetable: try Timetable.bundled())
        let ashton = try #require(app.showModule("COMP327"))
        #expect(ashton.id == "ashton")
        let region = MKCoordinateRegion(center: ashton.coordinate, latitudinalMeters: 500, longitudinalMeters: 500)
        #expect(app.mapView.region.span.latitudeDelta == region.span.latitudeDelta)
        #expect(app.mapView.centerCoordinate.latitude == ashton.coordinate.latitude)
        #expect(app.mapView.selectedAnnotations.first === ashton)
        let cth = try #require(app.showModule("COMP323"))
        #expect(cth.id == "cth")
        #expect(app.mapView.region.span.latitudeDelta == region.span.latitudeDelta)
        #expect(app.mapView.centerCoordinate.longitude == cth.coordinate.longitude)
        #expect(app.mapView.selectedAnnotations.count == 1 && app.mapView.selectedAnnotations.first === cth)
        #expect(app.showModule("COMP999") == nil)
    }
}

/// Passes fixes to the app and notes whether its order changed.
@MainActor
final class DeliveryCounter: NSObject, CLLocationManagerDelegate {
    weak var app: TimetableViewModel?
    private var count = 0
    private let note: (Int, Bool) -> Void

    init(note: @escaping (Int, Bool) -> Void) {
        self.note = note
    }

    /// The manager, not `Sendable` (as Apple's), stays out of the main-actor
    /// closures: the app's own callback is nonisolated and takes it here.
    nonisolated func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        guard let app = MainActor.assumeIsolated({ self.app }) else { return }
        let before = MainActor.assumeIsolated { app.orderChanges.count }
        app.locationManager(manager, didUpdateLocations: locations)
        MainActor.assumeIsolated {
            count += locations.count
            note(count, app.orderChanges.count != before)
        }
    }
}
