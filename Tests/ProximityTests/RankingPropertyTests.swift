import Foundation
import Geodesy
import Testing
import TestSupport
@testable import Proximity

@Suite("Ranking properties over random places and walkers")
struct RankingPropertyTests {
    static func randomPlaces(_ n: Int, rng: inout SplitMix64, duplicateNames: Bool = true) -> [Place] {
        (0..<n).map { i in
            let c = try! Coordinate(latitude: 53.4055 + rng.uniform(-0.027, 0.027), longitude: -2.966 + rng.uniform(-0.045, 0.045))
            let name = duplicateNames ? ["Costa", "Leaf", "Tabac", "Café Nero", "Ça va", "Zest"][Int(rng.next() % 6)] : "P\(i)"
            return Place(id: "p\(i)", name: name, coordinate: c, group: "g")
        }
    }

    @Test("the order is a permutation sorted by (millimetre, name scalars, id) of Karney distances")
    func sortedPermutation() throws {
        var rng = SplitMix64(seed: 5)
        for trial in 0..<40 {
            var places = Self.randomPlaces(60, rng: &rng)
            // Ties on purpose: a few places on the same spot.
            places[1].coordinate = places[0].coordinate
            places[2].coordinate = places[0].coordinate
            var engine = ProximityEngine(places: places)
            let walker = try Coordinate(latitude: 53.4055 + rng.uniform(-0.02, 0.02), longitude: -2.966 + rng.uniform(-0.03, 0.03))
            let update = engine.update(from: walker)
            #expect(Set(update.order) == Set(places.map(\.id)) && update.order.count == places.count, "trial \(trial)")
            let byID = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
            let keys = update.order.map { id -> (Int64, String, String) in
                let p = byID[id]!
                return (Int64((Geodesic.wgs84.distance(walker, p.coordinate) * 1000).rounded()), p.name, p.id)
            }
            for (a, b) in zip(keys, keys.dropFirst()) {
                let ok = a.0 < b.0 || (a.0 == b.0 && (ProximityEngine.scalarLess(a.1, b.1) || (a.1 == b.1 && ProximityEngine.scalarLess(a.2, b.2))))
                #expect(ok, "trial \(trial): \(a) before \(b)")
            }
            for (id, d) in zip(update.order, update.distances) {
                #expect(abs(d - Geodesic.wgs84.distance(walker, byID[id]!.coordinate)) < 1e-6)
            }
        }
    }

    @Test("applying the moves to the previous order gives the new one; the moves are minimal; none when unchanged")
    func movesApply() throws {
        var rng = SplitMix64(seed: 9)
        var engine = ProximityEngine(places: Self.randomPlaces(40, rng: &rng, duplicateNames: false))
        var previous: RankingUpdate?
        var walker = try Coordinate(latitude: 53.40, longitude: -2.97)
        for step in 0..<300 {
            walker = Geodesic.wgs84.direct(from: walker, azimuth: rng.uniform(0, 360), distance: rng.uniform(0, 400)).coordinate
            let update = engine.update(from: walker)
            if let previous {
                let diff = RowDiff(previous: previous.order, current: update.order)
                #expect(RowDiff.apply(diff, to: previous.order, current: update.order) == update.order, "step \(step)")
                #expect(update.moves == diff.moves)
                // Minimal: as many moves as places outside a longest common subsequence of the two orders.
                let position = Dictionary(uniqueKeysWithValues: previous.order.enumerated().map { ($1, $0) })
                let lis = RowDiff.longestIncreasing(update.order.map { position[$0]! }).filter { $0 }.count
                #expect(update.moves.count == update.order.count - lis)
                // Every move takes previous[from] to new[to].
                #expect(update.moves.allSatisfy { previous.order[$0.from] == update.order[$0.to] })
                if !update.changed { #expect(update.moves.isEmpty) }
                #expect(update.changed == (update.order != previous.order))
            }
            previous = update
        }
    }

    @Test("with places leaving and joining (a radius that changes), the update is the row diff of the two orders by id")
    func joinsAndLeaves() throws {
        var rng = SplitMix64(seed: 21)
        var engine = ProximityEngine(places: Self.randomPlaces(60, rng: &rng, duplicateNames: true))
        var previous: RankingUpdate?
        var walker = try Coordinate(latitude: 53.40, longitude: -2.97)
        var joined = 0, left = 0
        for step in 0..<400 {
            walker = Geodesic.wgs84.direct(from: walker, azimuth: rng.uniform(0, 360), distance: rng.uniform(0, 300)).coordinate
            engine.maximumRadius = step % 7 == 0 ? nil : rng.uniform(200, 3000)
            engine.sortMode = step % 50 < 5 ? .name : .distance
            let update = engine.update(from: walker)
            if let previous {
                let diff = RowDiff(previous: previous.order, current: update.order)
                #expect(update.moves == diff.moves, "step \(step)")
                #expect(update.inserted == diff.inserted && update.deleted == diff.deleted, "step \(step)")
                #expect(update.changed == (update.order != previous.order))
                #expect(RowDiff.apply(diff, to: previous.order, current: update.order) == update.order)
                joined += update.inserted.count
                left += update.deleted.count
            }
            #expect(update.displayDistances == update.distances.map(ProximityEngine.display))
            previous = update
        }
        #expect(joined > 50 && left > 50)
    }

    @Test("switching to name order, a radius and a predicate report inserts and deletes")
    func modesAndFilters() throws {
        let (coffee, _) = try bundledPlaces()
        var engine = ProximityEngine(places: coffee)
        let ashton = try Coordinate(latitude: 53.406566, longitude: -2.966531)
        let first = engine.update(from: ashton)
        #expect(first.names.first == "Victoria Museum")
        engine.sortMode = .name
        let byName = engine.update(from: ashton)
        #expect(byName.names == coffee.map(\.name).sorted { ProximityEngine.scalarLess($0, $1) })
        #expect(byName.changed && byName.nearest == first.nearest)
        engine.sortMode = .distance
        engine.maximumRadius = 500
        let near = engine.update(from: ashton)
        #expect(near.distances.allSatisfy { $0 <= 500 })
        #expect(!near.deleted.isEmpty && near.inserted.isEmpty)
        #expect(Set(near.deleted) == Set(first.order).subtracting(near.order))
        engine.maximumRadius = nil
        engine.predicate = { $0.name != "Costa Coffee" }
        let noCosta = engine.update(from: ashton)
        #expect(!noCosta.names.contains("Costa Coffee"))
        #expect(noCosta.deleted == ["liverpool-9"])
        #expect(Set(noCosta.inserted) == Set(near.deleted))
    }

    @Test("an empty set of places gives empty rankings")
    func empty() throws {
        var engine = ProximityEngine(places: [])
        let u = engine.update(from: try Coordinate(latitude: 53.4, longitude: -2.9))
        #expect(u.order.isEmpty && u.nearest == nil && u.moves.isEmpty)
    }

    @Test("distances display as a table shows them", arguments: [
        (0.4, "0 m"), (85.2, "85 m"), (999.4, "999 m"), (999.6, "1.0 km"), (1234, "1.2 km"), (99_949, "99.9 km"), (8_000_000, "8000 km"),
    ])
    func display(metres: Double, text: String) {
        #expect(ProximityEngine.display(metres) == text)
    }
}
