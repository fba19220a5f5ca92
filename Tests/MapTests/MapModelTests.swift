import Geodesy
import Testing
import TestSupport
@testable import Map


func pin(_ id: String, _ lat: Double, _ lon: Double) -> Annotation {
    Annotation(id: id, coordinate: try! Coordinate(latitude: lat, longitude: lon), title: id)
}

@Suite("Map model")
struct MapModelTests {
    let ashton = try! Coordinate(latitude: 53.406566, longitude: -2.966531)

    @Test("a region in metres uses the radii of curvature; setCenter keeps the span")
    func regionAndCentre() throws {
        let r = MapRegion(center: ashton, latitudinalMeters: 1000, longitudinalMeters: 1000)
        // Independent: one latitude degree at the centre is M·π/180 metres.
        let m = Ellipsoid.wgs84.meridionalRadius(atLatitude: ashton.latitude)
        #expect(abs(r.latitudeDelta - 1000 / (m * .pi / 180)) < 1e-15)
        var map = MapModel()
        _ = map.setRegion(r)
        let other = try Coordinate(latitude: 53.40, longitude: -2.97)
        #expect(map.setCenter(other) == [.regionChanged(r.centered(on: other))])
        #expect(map.region?.latitudeDelta == r.latitudeDelta && map.region?.longitudeDelta == r.longitudeDelta)
    }

    @Test("the visible set is the pins inside the rectangle, checked independently, as pins and the region change")
    func visible() throws {
        var rng = SplitMix64(seed: 1)
        var map = MapModel()
        let pins = (0..<400).map { pin("p\($0)", 53.4 + rng.uniform(-0.02, 0.02), -2.97 + rng.uniform(-0.03, 0.03)) }
        _ = map.add(pins)
        for _ in 0..<30 {
            let c = try Coordinate(latitude: 53.4 + rng.uniform(-0.02, 0.02), longitude: -2.97 + rng.uniform(-0.03, 0.03))
            let r = MapRegion(center: c, latitudinalMeters: rng.uniform(100, 3000), longitudinalMeters: rng.uniform(100, 3000))
            _ = map.setRegion(r)
            let expected = pins.filter { abs($0.coordinate.latitude - c.latitude) <= r.latitudeDelta / 2 && abs($0.coordinate.longitude - c.longitude) <= r.longitudeDelta / 2 }.map(\.id)
            #expect(map.visible == expected)
        }
        let before = map.visible
        let changes = map.remove(Array(before.prefix(2)))
        #expect(changes.contains(.annotationsRemoved(Array(before.prefix(2)))))
        #expect(changes.contains { if case .visibleChanged(_, _, let removed) = $0 { return removed == Array(before.prefix(2)) } else { return false } } || before.count < 2)
    }

    @Test("the STRtree path gives the same visible sets as the linear scan")
    func indexedVisible() throws {
        var rng = SplitMix64(seed: 2)
        let pins = (0..<20_000).map { pin("p\($0)", 53.4 + rng.uniform(-0.03, 0.03), -2.97 + rng.uniform(-0.05, 0.05)) }
        var linear = MapModel()
        linear.indexThreshold = .max
        var indexed = MapModel()
        indexed.indexThreshold = 100
        _ = linear.add(pins)
        _ = indexed.add(pins)
        for _ in 0..<20 {
            let c = try Coordinate(latitude: 53.4 + rng.uniform(-0.03, 0.03), longitude: -2.97 + rng.uniform(-0.05, 0.05))
            let r = MapRegion(center: c, latitudinalMeters: 800, longitudinalMeters: 800)
            _ = linear.setRegion(r)
            _ = indexed.setRegion(r)
            #expect(linear.visible == indexed.visible)
        }
    }

    @Test("across the antimeridian")
    func antimeridian() throws {
        var map = MapModel()
        _ = map.add([pin("west", 0, 179.9), pin("east", 0, -179.9), pin("far", 0, 170)])
        _ = map.setRegion(MapRegion(center: try Coordinate(latitude: 0, longitude: 180), latitudeDelta: 1, longitudeDelta: 1))
        #expect(map.visible == ["west", "east"])
        let fit = try #require(MapRegion.fitting([try Coordinate(latitude: 0, longitude: 179), try Coordinate(latitude: 1, longitude: -179)], padding: 0))
        #expect(abs(fit.longitudeDelta - 2) < 1e-9 && abs(abs(fit.center.longitude) - 180) < 1e-9)
    }

    @Test("selection is single; removing the selected pin deselects it; a pin not on the map is an error value")
    func selection() throws {
        var map = MapModel()
        _ = map.add([pin("a", 53.40, -2.97), pin("b", 53.41, -2.96)])
        #expect(try map.select("a").get() == [.selected("a")])
        #expect(try map.select("b").get() == [.deselected("a"), .selected("b")])
        #expect(try map.select(at: try Coordinate(latitude: 53.40, longitude: -2.97)).get() == [.deselected("b"), .selected("a")])
        #expect(map.remove(["a"]).first == .deselected("a"))
        #expect(map.selected == nil)
        guard case .failure(.notOnMap("zzz")) = map.select("zzz") else {
            Issue.record("selecting a missing pin did not fail")
            return
        }
    }

    @Test("follow mode recentres on each user location; showAnnotations fits with padding")
    func followAndShow() throws {
        var map = MapModel()
        map.trackingMode = .follow
        _ = map.setRegion(MapRegion(center: ashton, latitudinalMeters: 1000, longitudinalMeters: 1000))
        let next = try Coordinate(latitude: 53.405, longitude: -2.968)
        _ = map.updateUserLocation(next)
        #expect(map.region?.center == next)
        _ = map.add([pin("a", 53.40, -2.97), pin("b", 53.41, -2.96)])
        _ = map.show(["a", "b"], padding: 0.1)
        let r = try #require(map.region)
        #expect(abs(r.latitudeDelta - 0.012) < 1e-9 && abs(r.center.latitude - 53.405) < 1e-9)
        #expect(map.visible == ["a", "b"])
    }
}
