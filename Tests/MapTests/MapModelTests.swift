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

    @Test("the grid gives the same visible sets and deltas as a scan of every pin, pans, zooms, adds and across the antimeridian")
    func indexedVisible() throws {
        var rng = SplitMix64(seed: 2)
        // Pins around Liverpool and around the antimeridian, some added after the grid is built.
        func randomPin(_ k: Int) -> Annotation {
            guard k % 5 == 0 else { return pin("p\(k)", 53.4 + rng.uniform(-0.03, 0.03), -2.97 + rng.uniform(-0.05, 0.05)) }
            // Within a degree of the antimeridian, on either side.
            let lon = 180 + rng.uniform(-1, 1)
            return pin("p\(k)", rng.uniform(-1, 1), lon > 180 ? lon - 360 : lon)
        }
        let pins = (0..<10_000).map(randomPin)
        var linear = MapModel()
        linear.indexThreshold = .max
        var indexed = MapModel()
        indexed.indexThreshold = 100
        _ = linear.add(pins)
        _ = indexed.add(pins)
        var centre = try Coordinate(latitude: 53.4, longitude: -2.97)
        var delta = VisibleDelta()
        for step in 0..<160 {
            if step % 40 == 20 {
                // Jump across the antimeridian and back.
                centre = try Coordinate(latitude: rng.uniform(-0.5, 0.5), longitude: rng.uniform(0, 1) < 0.5 ? 179.9 : -179.9)
            } else if step % 40 == 0 {
                centre = try Coordinate(latitude: 53.4 + rng.uniform(-0.03, 0.03), longitude: -2.97 + rng.uniform(-0.05, 0.05))
            } else {
                // A pan of up to 300 m.
                centre = try Coordinate(latitude: centre.latitude + rng.uniform(-0.003, 0.003), longitude: max(-180, min(180, centre.longitude + rng.uniform(-0.004, 0.004))))
            }
            let span = [300.0, 800, 5000, 90_000][step % 4]
            let r = MapRegion(center: centre, latitudinalMeters: span, longitudinalMeters: span)
            let before = Set(indexed.visible)
            let changes = linear.setRegion(r)
            indexed.setRegion(r, delta: &delta)
            #expect(linear.visible == indexed.visible, "step \(step)")
            let after = Set(indexed.visible)
            #expect(delta.added.sorted().map { indexed.annotations[$0].id } == indexed.visible.filter { !before.contains($0) }, "step \(step) added")
            #expect(Set(delta.removed.map { indexed.annotations[$0].id }) == before.subtracting(after), "step \(step) removed")
            #expect(Set(delta.added).count == delta.added.count && Set(delta.removed).count == delta.removed.count)
            if case .visibleChanged(_, let added, _)? = changes.last {
                #expect(added == delta.added.sorted().map { indexed.annotations[$0].id })
            }
            if step % 50 == 25 {
                // Pins added while the grid stands go in incrementally.
                let more = (0..<300).map { randomPin(10_000 + step * 300 + $0) }
                _ = linear.add(more)
                _ = indexed.add(more)
                #expect(linear.visible == indexed.visible)
            }
        }
        #expect(indexed.visibleCount == indexed.visible.count)
    }

    @Test("a region of zero, negative, NaN or too wide a span is an error value naming the span, and the map keeps its region")
    func invalidRegions() throws {
        var map = MapModel()
        let good = MapRegion(center: ashton, latitudinalMeters: 1000, longitudinalMeters: 1000)
        #expect((try? map.setCheckedRegion(good).get()) != nil)
        for (lat, lon) in [(0.0, 0.01), (-1, 1), (.nan, 1), (1, .nan), (181, 1), (1, 361), (.infinity, 1)] {
            let result = map.setCheckedRegion(MapRegion(center: ashton, latitudeDelta: lat, longitudeDelta: lon))
            guard case .failure(let error) = result else {
                Issue.record("\(lat) × \(lon) was accepted")
                continue
            }
            #expect(error.description.contains("span"))
            #expect(map.region == good)
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
