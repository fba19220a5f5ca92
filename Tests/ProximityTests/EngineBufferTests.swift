import Foundation
import Geodesy
import Testing
import TestSupport
@testable import Proximity

@Suite("The engine's reused buffers and its sort of many places")
struct EngineBufferTests {
    /// A walk of `steps` fixes, some a few metres apart, some a jump across the city.
    static func walk(_ steps: Int, rng: inout SplitMix64) throws -> [Coordinate] {
        var walker = try Coordinate(latitude: 53.40, longitude: -2.97)
        return (0..<steps).map { k in
            walker = Geodesic.wgs84.direct(from: walker, azimuth: rng.uniform(0, 360), distance: k % 7 == 6 ? rng.uniform(500, 3000) : rng.uniform(0, 30)).coordinate
            return walker
        }
    }

    @Test("updates kept by the caller keep their rows while the engine writes later ones; an engine whose updates are let go gives the same rows",
          arguments: [40, 1_000])
    func keptUpdates(places n: Int) throws {
        var rng = SplitMix64(seed: UInt64(n))
        let places = RankingPropertyTests.randomPlaces(n, rng: &rng, duplicateNames: false)
        let walk = try Self.walk(60, rng: &rng)
        var keeping = ProximityEngine(places: places), dropping = ProximityEngine(places: places)
        var kept: [RankingUpdate] = []
        var copies: [(order: [String], distances: [Double], moves: [RowMove], changed: Bool, nearest: String?)] = []
        for walker in walk {
            kept.append(keeping.update(from: walker))
            let u = dropping.update(from: walker)
            copies.append((Array(u.order), Array(u.distances), Array(u.moves), u.changed, u.nearest))
        }
        for (k, (u, c)) in zip(kept, copies).enumerated() {
            #expect(u.order == c.order && u.distances == c.distances && u.moves == c.moves && u.changed == c.changed && u.nearest == c.nearest, "update \(k)")
        }
        // The kept updates are each a consistent step from the one before.
        for (a, b) in zip(kept, kept.dropFirst()) {
            #expect(RowDiff.apply(RowDiff(previous: a.order, current: b.order), to: a.order, current: b.order) == b.order)
            #expect(b.moves == RowDiff(previous: a.order, current: b.order).moves)
        }
    }

    @Test("the radix sort of many keys gives the standard sort's order, ties in millimetres broken by tie rank")
    func radixSort() {
        var rng = SplitMix64(seed: 3)
        var scratch: [Int64] = [], counts: [Int] = []
        for n in [256, 257, 1_000, 5_000, 70_000] {
            let tieBits = Int.bitWidth - (n - 1).leadingZeroBitCount
            // Millimetres from a few to 40 km, many shared; tie ranks a permutation of 0..<n.
            let ties = (0..<n).shuffled(using: &rng)
            var keys = (0..<n).map { i in Int64(rng.next() % (i % 3 == 0 ? 50 : 40_000_000)) << ProximityEngine.keyShift | Int64(ties[i]) }
            let expected = keys.sorted()
            ProximityEngine.radixSort(&keys, scratch: &scratch, counts: &counts, tieBits: tieBits)
            #expect(keys == expected, "n \(n)")
        }
    }

    @Test("keys in tie order sorted by their millimetres alone give the standard sort's order below 16.7 km, and are left as they were above it")
    func radixSortByMillimetres() {
        var rng = SplitMix64(seed: 5)
        var scratch: [Int64] = [], counts: [Int] = []
        for n in [256, 1_000, 5_000, 70_000] {
            // In tie order: key t holds tie rank t. Millimetres up to 16.7 km, many shared.
            var keys: [Int64] = (0..<n).map { t in
                let mm = Int64(truncatingIfNeeded: rng.next() % (t % 3 == 0 ? 50 : 1 << 24))
                return mm << ProximityEngine.keyShift | Int64(t)
            }
            let expected = keys.sorted()
            #expect(ProximityEngine.radixSortByMillimetres(&keys, scratch: &scratch, counts: &counts), "n \(n)")
            #expect(keys == expected, "n \(n)")
            // One place at 16.8 km: two digits are too few, and nothing is moved.
            let far: Int64 = 1 << 24
            keys[n / 2] = far << ProximityEngine.keyShift | Int64(n / 2)
            let before = keys.shuffled(using: &rng)
            keys = before
            #expect(!ProximityEngine.radixSortByMillimetres(&keys, scratch: &scratch, counts: &counts), "n \(n)")
            #expect(keys == before)
        }
        // The general sort after this one, with the same buffers, still sorts.
        var keys: [Int64] = (0..<3_000).map { t in
            Int64(truncatingIfNeeded: rng.next() % 40_000_000) << ProximityEngine.keyShift | Int64(t)
        }
        keys.shuffle(using: &rng)
        let expected = keys.sorted()
        ProximityEngine.radixSort(&keys, scratch: &scratch, counts: &counts, tieBits: 12)
        #expect(keys == expected)
    }

    @Test("thousands of places ranked after jumps across the city are in the contract's order by their distances")
    func manyPlacesOrdered() throws {
        var rng = SplitMix64(seed: 11)
        let places = RankingPropertyTests.randomPlaces(3_000, rng: &rng)
        let byID = Dictionary(uniqueKeysWithValues: places.map { ($0.id, $0) })
        var engine = ProximityEngine(places: places)
        for walker in try Self.walk(30, rng: &rng) {
            let u = engine.update(from: walker)
            #expect(u.order.count == places.count)
            let keys = zip(u.order, u.distances).map { id, d in (Int64((d * 1000).rounded()), byID[id]?.name ?? "", id) }
            let sorted = zip(keys, keys.dropFirst()).allSatisfy { a, b in
                a.0 < b.0 || (a.0 == b.0 && (ProximityEngine.scalarLess(a.1, b.1) || (a.1 == b.1 && ProximityEngine.scalarLess(a.2, b.2))))
            }
            #expect(sorted)
        }
    }
}
