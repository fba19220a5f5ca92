import Testing
import TestSupport
@testable import GEOS

@Suite("STRtree over GEOS")
struct STRtreeTests {
    /// A 400 x 250 grid of points 10 m apart: id = row * 400 + column.
    static func grid(in context: GEOSContext) throws -> STRtree<Int> {
        let tree = try STRtree<Int>(in: context)
        for row in 0..<250 {
            for column in 0..<400 {
                try tree.insert(row * 400 + column, x: Double(column) * 10, y: Double(row) * 10)
            }
        }
        return tree
    }

    @Test("an envelope query over a 100 000-point grid returns exactly the points inside")
    func envelopeQuery() throws {
        let context = try GEOSContext()
        let tree = try Self.grid(in: context)
        #expect(tree.count == 100_000)
        let queries = [
            Envelope(minX: 15, minY: 25, maxX: 95, maxY: 61),
            Envelope(minX: -100, minY: -100, maxX: 0, maxY: 0),
            Envelope(minX: 3990, minY: 2490, maxX: 5000, maxY: 5000),
            Envelope(minX: 1000, minY: 1000, maxX: 1000, maxY: 1200),
            Envelope(minX: 4000.5, minY: 0, maxX: 5000, maxY: 100),
        ]
        for q in queries {
            var expected: [Int] = []
            for row in 0..<250 {
                for column in 0..<400 where q.contains(x: Double(column) * 10, y: Double(row) * 10) {
                    expected.append(row * 400 + column)
                }
            }
            #expect(try tree.query(q) == expected, "\(q)")
        }
        #expect(try tree.query(Envelope(minX: 15, minY: 25, maxX: 95, maxY: 61)).count == 8 * 4)
    }

    @Test("nearest neighbour agrees with brute force on 1000 random queries")
    func nearestMatchesBruteForce() throws {
        let context = try GEOSContext()
        let tree = try STRtree<Int>(in: context)
        var rng = SplitMix64(seed: 42)
        var points: [(Double, Double)] = []
        for i in 0..<5000 {
            let p = (rng.uniform(0, 6000), rng.uniform(0, 6000))
            points.append(p)
            try tree.insert(i, x: p.0, y: p.1)
        }
        for _ in 0..<1000 {
            let q = (rng.uniform(-500, 6500), rng.uniform(-500, 6500))
            var best = Double.infinity
            for p in points { best = min(best, ((p.0 - q.0) * (p.0 - q.0) + (p.1 - q.1) * (p.1 - q.1)).squareRoot()) }
            let found = try #require(try tree.nearest(x: q.0, y: q.1))
            let p = points[found.id]
            let d = ((p.0 - q.0) * (p.0 - q.0) + (p.1 - q.1) * (p.1 - q.1)).squareRoot()
            #expect(d == best, "query \(q)")
            #expect(found.distance == d)
        }
    }

    @Test("an empty tree has no nearest item, and a built tree refuses inserts")
    func emptyAndBuilt() throws {
        let context = try GEOSContext()
        let tree = try STRtree<String>(in: context)
        #expect(try tree.nearest(x: 0, y: 0) == nil)
        try tree.insert("a", x: 1, y: 1)
        #expect(try tree.query(Envelope(minX: 0, minY: 0, maxX: 2, maxY: 2)) == ["a"])
        #expect(throws: SpatialError.self) { try tree.insert("b", x: 2, y: 2) }
        #expect(throws: SpatialError.self) { try STRtree<Int>(nodeCapacity: 1, in: context) }
    }
}

