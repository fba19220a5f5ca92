import Foundation
import Geodesy
import LocationSimulation
import Proximity
import Testing

@Suite("Rankings of shards merge into the ranking of the whole set")
struct ShardedRankingTests {
    /// Places around Liverpool with ties on purpose: pairs at the same spot with
    /// different names, and same names at the same spot with different ids.
    static func places(_ count: Int, seed: UInt64) -> [Place] {
        var rng = SeededGenerator(seed: seed)
        var places: [Place] = []
        for i in 0..<count {
            let lat = 53.40 + Double(rng.next() % 20_000) * 1e-6, lon = -2.98 + Double(rng.next() % 30_000) * 1e-6
            let name = ["Leaf", "Bold St Coffee", "Café Nero", "92 Degrees", "Ölbaum"][Int(rng.next() % 5)] + (i % 7 == 0 ? "" : " \(i % 50)")
            places.append(Place(id: "p\(i)", name: name, coordinate: Coordinate(computedLatitude: lat, longitude: lon), group: "cafes"))
            if i % 10 == 0 {
                // Same spot: a different name, and the same name with another id.
                places.append(Place(id: "q\(i)", name: name + "!", coordinate: Coordinate(computedLatitude: lat, longitude: lon), group: "cafes"))
                places.append(Place(id: "r\(i)", name: name, coordinate: Coordinate(computedLatitude: lat, longitude: lon), group: "cafes"))
            }
        }
        return places
    }

    @Test("4 shards, by distance and by name, all places and within 400 m: every update equals the whole set's, moves and inserts included",
          arguments: [(SortMode.distance, nil as Double?), (.distance, 400), (.name, nil), (.name, 400)])
    func mergeEqualsWhole(sort: SortMode, within: Double?) {
        let all = Self.places(1_500, seed: 11)
        var whole = ProximityEngine(places: all, sortMode: sort)
        whole.maximumRadius = within
        var shards = (0..<4).map { k in
            var engine = ProximityEngine(places: all.enumerated().filter { $0.offset % 4 == k }.map(\.element), sortMode: sort)
            engine.maximumRadius = within
            return engine
        }
        var merged = ShardedRanking(sortMode: sort)
        var rng = SeededGenerator(seed: 5)
        var lat = 53.405, lon = -2.97
        var moved = 0
        for _ in 0..<40 {
            lat += (Double(rng.next() % 200) - 100) * 2e-5
            lon += (Double(rng.next() % 200) - 100) * 3e-5
            let walker = Coordinate(computedLatitude: lat, longitude: lon)
            let expected = whole.update(from: walker)
            let got = merged.merge(shards.indices.map { ShardedRanking.Shard(shards[$0].update(from: walker)) })
            #expect(got == expected)
            moved += expected.moves.count + expected.inserted.count
        }
        #expect(moved > 100, "the walk reorders the list")
    }
}
