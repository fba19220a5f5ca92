import Foundation
import TestSupport
import Geodesy
import LocationSimulation
import Map
import Proximity
import Testing
import Traces
@testable import Scenarios


/// Orders at sampled delivered fixes from the independent GeographicLib replay (Tests/ProximityTests/Expected).
func expectedLiverpoolOrders(_ walk: String) throws -> (changes: Int, samples: [Int: [String]]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path("Tests/ProximityTests/Expected/expected-rankings.json")))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let group = try #require(((root[walk] as? [String: Any])?["groups"] as? [String: Any])?["liverpool"] as? [String: Any])
    var samples: [Int: [String]] = [:]
    for s in (group["samples"] as? [[String: Any]]) ?? [] { samples[s["index"] as? Int ?? -1] = s["order"] as? [String] }
    return (group["orderChanges"] as? Int ?? -1, samples)
}

/// Pins inside a region, computed here from the coordinates alone.
func inside(_ places: [Place], _ r: MapRegion) -> [String] {
    places.filter { abs($0.coordinate.latitude - r.center.latitude) <= r.latitudeDelta / 2 && abs($0.coordinate.longitude - r.center.longitude) <= r.longitudeDelta / 2 }.map(\.id)
}

@Suite("CoffeeShop13, headless, along the Lime Street walk")
struct CoffeeShopScenarioTests {
    @Test("every change, in order: start, choose Liverpool, walk, select Leaf, back, refresh")
    func walkThrough() throws {
        let places = try PlaceSet.load(path("Fixtures/CityCycleRideLocations.plist"))
        let liverpool = try places.places(inGroups: ["liverpool"])
        var app = CoffeeShopApp(places: places)
        var simulator = try LocationSimulator(trace: try TraceReader.read(path("traces/lime-street-to-campus.gpx")))
        var delivered: [Location] = []
        while let e = simulator.next() { if case .location(let l) = e { delivered.append(l) } }
        let (expectedChanges, samples) = try expectedLiverpoolOrders("lime-street-to-campus")

        // Start: the first fix centres a 1 km region on the user; no pins, so nothing is visible.
        let first = delivered[0]
        let region = MapRegion(center: first.coordinate, latitudinalMeters: 1000, longitudinalMeters: 1000)
        #expect(app.locationDelivered(first) == [.map(.userLocationChanged(first.coordinate)), .map(.regionChanged(region))])

        // Choosing Liverpool adds its 15 pins, leaves the region as it was, and lists them by distance.
        let chosen = app.choose(group: "liverpool")
        let visible = inside(liverpool, region)
        #expect(chosen.count == 4)
        #expect(chosen[0] == .screen(.list(group: "liverpool")))
        #expect(chosen[1] == .map(.annotationsAdded(liverpool.map(\.id))))
        #expect(chosen[2] == .map(.visibleChanged(visible: visible, added: visible, removed: [])))
        guard case .list(let initial) = chosen[3] else {
            Issue.record("no list after choosing")
            return
        }
        #expect(initial.order == samples[0])
        #expect(app.map.region == region)

        // Walking: each delivered fix moves the user pin and updates the list, nothing else.
        var changed = 0
        var previous = initial
        for (k, l) in delivered.enumerated().dropFirst() {
            let changes = app.locationDelivered(l)
            #expect(changes.count == 2)
            #expect(changes.first == .map(.userLocationChanged(l.coordinate)))
            guard case .list(let u) = changes.last else {
                Issue.record("no list update at \(k)")
                continue
            }
            if let want = samples[k] { #expect(u.order == want, "fix \(k)") }
            #expect(u.changed == (u.order != previous.order))
            if u.changed { changed += 1 }
            previous = u
        }
        #expect(changed == expectedChanges)

        // Selecting Leaf recentres on its pin with the same span, selects it, shows its name and comment.
        let leaf = try #require(liverpool.first { $0.name == "Leaf" })
        let selected = try app.select(leaf.id).get()
        let onLeaf = region.centered(on: leaf.coordinate)
        let visibleOnLeaf = inside(liverpool, onLeaf)
        var expected: [CoffeeShopChange] = [.map(.regionChanged(onLeaf))]
        if visibleOnLeaf != visible {
            expected.append(.map(.visibleChanged(visible: visibleOnLeaf, added: visibleOnLeaf.filter { !visible.contains($0) }, removed: visible.filter { !visibleOnLeaf.contains($0) })))
        }
        expected += [.map(.selected(leaf.id)), .detail(name: "Leaf", comment: "Fantastic Tea, but the coffee is also good")]
        #expect(selected == expected)

        // Back removes the pins (deselecting Leaf first); refresh recentres on the user.
        #expect(app.back() == [.screen(.groups), .map(.deselected(leaf.id)), .map(.annotationsRemoved(liverpool.map(\.id))),
                               .map(.visibleChanged(visible: [], added: [], removed: visibleOnLeaf))])
        let last = try #require(delivered.last)
        #expect(app.refresh() == [.map(.regionChanged(region.centered(on: last.coordinate)))])
        // Selecting a coffee house that is not on the map is an error value.
        guard case .failure = app.select(leaf.id) else {
            Issue.record("selected a pin that was removed")
            return
        }
    }
}

@Suite("TimeTable2012, headless")
struct TimeTableScenarioTests {
    func app() throws -> TimeTableApp {
        let theatres = try PlaceSet.load(path("Fixtures/lecture-theatres.json")).places
        return try TimeTableApp.load(timetable: path("Fixtures/TimeTable.json"), modules: path("Fixtures/Semester1Modules.json"), theatres: theatres)
    }

    @Test("customising modules filters the days: empty hours disappear, an empty day is clear")
    func customise() throws {
        var app = try app()
        #expect(app.selectedModules.count == 6)
        #expect(app.events(onDay: 0).map(\.time) == ["09:00", "11:00", "14:00"])
        app.toggle(module: "COMP327")
        #expect(app.events(onDay: 0).map(\.time) == ["11:00", "14:00"])
        app.toggle(module: "COMP323")
        #expect(app.events(onDay: 0)[0].events.map(\.module) == ["COMP305"])
        app.toggle(module: "COMP305")
        #expect(app.isClear(day: 4), "Friday holds only COMP305")
        app.toggle(module: "COMP305")
        #expect(!app.isClear(day: 4))
    }

    @Test("a module's detail centres the map on its theatre's pin and selects it, keeping the zoom")
    func moduleDetail() throws {
        var app = try app()
        let ashton = try #require(app.theatres.first { $0.id == "ashton" })
        let first = try app.showModule("COMP327", onDay: 0).get()
        let region = MapRegion(center: ashton.coordinate, latitudinalMeters: 500, longitudinalMeters: 500)
        #expect(first.first == .moduleDetail(code: "COMP327", title: "Mobile Computing"))
        #expect(first.contains(.map(.regionChanged(region))))
        #expect(first.last == .map(.selected("ashton")))
        let cth = try #require(app.theatres.first { $0.id == "cth" })
        let second = try app.showModule("COMP323", onDay: 0).get()
        #expect(second.contains(.map(.regionChanged(region.centered(on: cth.coordinate)))))
        #expect(Array(second.suffix(2)) == [.map(.deselected("ashton")), .map(.selected("cth"))])
        guard case .failure = app.showModule("COMP999", onDay: 0) else {
            Issue.record("an unknown module showed")
            return
        }
    }

    @Test("the day's remaining lecture theatres, sorted by distance as the walker moves: every change, as GeographicLib says")
    func remainingTheatres() throws {
        var app = try app()
        #expect(app.remainingTheatres(onDay: 0, from: "10:00").map(\.id) == ["cth", "sherrington", "victoria"])
        let data = try Data(contentsOf: URL(fileURLWithPath: path("Tests/ScenariosTests/Expected/expected-timetable.json")))
        let expected = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let want = try #require(expected["changes"] as? [[String: Any]]).map { ($0["index"] as? Int ?? -1, $0["order"] as? [String] ?? []) }
        var simulator = try LocationSimulator(trace: try TraceReader.read(path("traces/campus-loop.gpx")))
        var got: [(Int, [String])] = []
        var index = 0
        while let e = simulator.next() {
            guard case .location(let l) = e else { continue }
            let changes = app.walkerMoved(to: l.coordinate, day: 0, time: "10:00")
            #expect(changes.count <= 1)
            for change in changes {
                guard case .theatres(let u) = change else {
                    Issue.record("unexpected change \(change)")
                    continue
                }
                got.append((index, u.order))
            }
            index += 1
        }
        #expect(index == expected["delivered"] as? Int)
        #expect(got.map(\.0) == want.map(\.0))
        #expect(got.map(\.1) == want.map(\.1))
    }
}

/// CoffeeShop13's list along the Bold Street walk with its 10-minute coffee stop: how often the
/// order changes while walking and while standing, by the delivered fix's (true) speed.
func coffeeShopOrderChanges(sensor: SensorOptions) throws -> (walking: Int, standing: Int, delivered: Int) {
    let places = try PlaceSet.load(path("Fixtures/CityCycleRideLocations.plist"))
    var app = CoffeeShopApp(places: places)
    _ = app.choose(group: "liverpool")
    var simulator = try LocationSimulator(trace: try TraceReader.read(path("traces/bold-street-long-stop.gpx")), sensor: sensor)
    var walking = 0, standing = 0, delivered = 0
    while let e = simulator.next() {
        guard case .location(let l) = e else { continue }
        delivered += 1
        for case .list(let u) in app.locationDelivered(l) where u.changed {
            if l.speed >= 0.2 { walking += 1 } else { standing += 1 }
        }
    }
    return (walking, standing, delivered)
}

@Suite("CoffeeShop13 with a receiver in the city")
struct CoffeeShopUrbanTests {
    @Test("urban noise (seeded): the list reorders again and again while the user stands with a coffee, where a clean receiver reorders once, arriving; the figures are pinned")
    func urban() throws {
        let clean = try coffeeShopOrderChanges(sensor: SensorOptions())
        let urban = try coffeeShopOrderChanges(sensor: SensorOptions(noise: .gaussMarkov, seed: 7, environment: .urban, warmUp: .ios))
        let white = try coffeeShopOrderChanges(sensor: SensorOptions(noise: .gaussian, seed: 7, environment: .urban, warmUp: .ios))
        print("CoffeeShop13 order changes walking/standing (delivered): clean \(clean), urban gauss-markov \(urban), urban gaussian \(white)")
        // Walking, standing, delivered fixes: the clean receiver's one change while standing is the arrival at the stop.
        #expect(clean == (walking: 27, standing: 1, delivered: 50))
        #expect(urban == (walking: 32, standing: 15, delivered: 71))
        #expect(white == (walking: 91, standing: 144, delivered: 303))
                            }
}
