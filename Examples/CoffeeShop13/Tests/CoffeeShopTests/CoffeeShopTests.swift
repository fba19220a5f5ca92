import CoffeeShop
import CoreLocation
import Foundation
import MapKit
import StrollSimulation
import Testing

/// The repository root, for the bundled walks and the independent expected values.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

func walk(_ name: String) -> String { root.appendingPathComponent("traces/\(name).gpx").path }

/// The independent GeographicLib replay's orders of the Liverpool coffee houses (Tests/ProximityTests/Expected).
func expectedLiverpool(_ walk: String) throws -> (changes: Int, samples: [Int: [String]]) {
    let data = try Data(contentsOf: root.appendingPathComponent("Tests/ProximityTests/Expected/expected-rankings.json"))
    let all = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let group = try #require(((all[walk] as? [String: Any])?["groups"] as? [String: Any])?["liverpool"] as? [String: Any])
    var samples: [Int: [String]] = [:]
    for s in group["samples"] as? [[String: Any]] ?? [] { samples[s["index"] as? Int ?? -1] = s["order"] as? [String] }
    return (group["orderChanges"] as? Int ?? -1, samples)
}

@Suite("CoffeeShop13 on the Lime Street walk", .serialized)
@MainActor
struct CoffeeShopTests {
    @Test("the list re-sorts on every update exactly as the independent replay says: Leaf first at the station, Costa Coffee at the campus")
    func listAlongTheWalk() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: walk("lime-street-to-campus"))
        defer { SimulatedDevice.current = nil }
        let app = CoffeeShopViewModel()
        app.choose(group: "liverpool")
        var orders: [[String]] = []
        let recorder = ListRecorder(app: app) { orders.append($0) }
        app.locationManager.delegate = recorder
        app.start()
        await SimulatedDevice.current?.run()
        let (changes, samples) = try expectedLiverpool("lime-street-to-campus")
        #expect(app.orderChanges == changes + 1)
        #expect(!samples.isEmpty)
        for (index, order) in samples {
            #expect(index < orders.count && orders[index] == order, "after delivered fix \(index)")
        }
        let name = Dictionary(app.shops.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        #expect(orders.first?.first.flatMap { name[$0] } == "Leaf")
        #expect(app.sortedShops.first?.name == "Costa Coffee")
    }

    @Test("choosing a coffee house centres the map on its pin, keeps the zoom and selects it")
    func selection() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: walk("lime-street-to-campus"))
        defer { SimulatedDevice.current = nil }
        let app = CoffeeShopViewModel()
        app.start()
        await SimulatedDevice.current?.advance(by: 30)
        app.choose(group: "liverpool")
        let span = app.mapView.region.span
        let leaf = try #require(app.shops.first { $0.name == "Leaf" })
        app.select(leaf)
        #expect(app.mapView.centerCoordinate.latitude == leaf.coordinate.latitude && app.mapView.centerCoordinate.longitude == leaf.coordinate.longitude)
        #expect(app.mapView.region.span.latitudeDelta == span.latitudeDelta)
        #expect(app.mapView.selectedAnnotations.first === leaf)
        let tabac = try #require(app.shops.first { $0.name == "Tabac" })
        app.select(tabac)
        #expect(app.mapView.selectedAnnotations.count == 1 && app.mapView.selectedAnnotations.first === tabac)
    }

    @Test("the heading to the nearest coffee house: at the walk's end, Costa Coffee's bearing less the phone's true heading (the walk's course)")
    func headingToNearest() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: walk("lime-street-to-campus"))
        defer { SimulatedDevice.current = nil }
        let app = CoffeeShopViewModel()
        app.choose(group: "liverpool")
        app.start()
        await SimulatedDevice.current?.run()
        let here = try #require(app.currentLocation), heading = try #require(app.heading)
        let costa = try #require(app.sortedShops.first)
        #expect(costa.name == "Costa Coffee")
        // The phone points along the walk: its true heading is the course of the device's last fix, on the
        // same geodesic leg as the last delivered one (the distance filter holds back the fixes after it).
        #expect(abs(heading.trueHeading - here.course) < 0.01)
        // The bearing on a local flat map (east and north metres), within half a degree of the app's great circle
        // a few hundred metres away.
        let east = (costa.coordinate.longitude - here.coordinate.longitude) * cos(here.coordinate.latitude * .pi / 180)
        let north = costa.coordinate.latitude - here.coordinate.latitude
        var expected = atan2(east, north) * 180 / .pi - heading.trueHeading
        expected = expected > 180 ? expected - 360 : (expected <= -180 ? expected + 360 : expected)
        let turn = try #require(app.turnToNearest)
        #expect(abs(turn - expected) < 0.5, "turn \(turn), expected \(expected)")
    }

    @Test("two managers, 25 m and 100 m filters: different deliveries from the same walk")
    func twoFilters() async throws {
        SimulatedDevice.current = try SimulatedDevice(trace: walk("lime-street-to-campus"))
        defer { SimulatedDevice.current = nil }
        let near = Counter(filter: 25), far = Counter(filter: 100)
        await SimulatedDevice.current?.run()
        #expect(near.fixes.count > far.fixes.count && far.fixes.count > 1)
        #expect(zip(far.fixes, far.fixes.dropFirst()).allSatisfy { $0.distance(from: $1) >= 100 })
        #expect(zip(near.fixes, near.fixes.dropFirst()).contains { $0.distance(from: $1) < 100 })
    }
}

/// Passes fixes on to the app and samples its list after each.
@MainActor
final class ListRecorder: NSObject, @preconcurrency CLLocationManagerDelegate {
    let app: CoffeeShopViewModel
    let sample: ([String]) -> Void

    init(app: CoffeeShopViewModel, sample: @escaping ([String]) -> Void) {
        self.app = app
        self.sample = sample
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        app.locationManager(manager, didUpdateLocations: locations)
        sample(app.sortedShops.map(\.id))
    }
}

final class Counter: NSObject, CLLocationManagerDelegate {
    let manager = CLLocationManager()
    var fixes: [CLLocation] = []

    init(filter: CLLocationDistance) {
        super.init()
        manager.delegate = self
        manager.desiredAccuracy = kCLLocationAccuracyNearestTenMeters
        manager.distanceFilter = filter
        manager.startUpdatingLocation()
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        fixes += locations
    }
}
