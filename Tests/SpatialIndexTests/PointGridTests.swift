import Geodesy
import SpatialIndex
import Testing
import TestSupport

/// The grid the proximity engine and the map model both search: every query
/// hands out each point of the cells it covers exactly once, a box query
/// misses no point inside the box, the rings' lower bound never exceeds a true
/// distance, and inserted points are found like built ones.
@Suite("PointGrid: the grid of points the ranking and the map share")
struct PointGridTests {
    static func points(_ n: Int, seed: UInt64) -> [Coordinate] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { _ in
            Coordinate(computedLatitude: 53.38 + Double(rng.next() % 50_000) / 1_000_000, longitude: -3.0 + Double(rng.next() % 80_000) / 1_000_000)
        }
    }

    @Test("the rings around a cell, taken outwards, hand out every point exactly once", arguments: [1, 7, 1_000, 20_000])
    func ringsCoverEveryPointOnce(n: Int) {
        let p = Self.points(n, seed: UInt64(n))
        let grid = PointGrid(p)
        var seen = [Int](repeating: 0, count: n)
        let (row, col) = grid.cell(of: p[0])
        for ring in 0...grid.maxRing { grid.forEachInRing(row, col, ring) { seen[$0] += 1 } }
        #expect(seen.allSatisfy { $0 == 1 })
    }

    @Test("a box query returns every point inside the box (and only candidates from the cells it overlaps)")
    func boxFindsEverythingInside() {
        let p = Self.points(5_000, seed: 3)
        let grid = PointGrid(p)
        var rng = SplitMix64(seed: 4)
        for _ in 0..<200 {
            let south = 53.38 + Double(rng.next() % 50_000) / 1_000_000, west = -3.0 + Double(rng.next() % 80_000) / 1_000_000
            let north = south + Double(rng.next() % 10_000) / 1_000_000, east = west + Double(rng.next() % 10_000) / 1_000_000
            var found = Set<Int>()
            grid.forEachInBox(minLat: south, maxLat: north, minLon: west, maxLon: east) { found.insert($0) }
            let inside = p.indices.filter { p[$0].latitude >= south && p[$0].latitude <= north && p[$0].longitude >= west && p[$0].longitude <= east }
            #expect(Set(inside).isSubset(of: found))
        }
    }

    @Test("the lower bound outside the rings is never more than the geodesic distance to a point outside them")
    func lowerBoundHolds() {
        let p = Self.points(3_000, seed: 5)
        let grid = PointGrid(p)
        for walker in Self.points(20, seed: 6) {
            let (row, col) = grid.cell(of: walker)
            for ring in 0..<4 {
                var within = Set<Int>()
                for r in 0...ring { grid.forEachInRing(row, col, r) { within.insert($0) } }
                let bound = grid.lowerBound(ringsOutside: ring, around: walker)
                for i in p.indices where !within.contains(i) {
                    #expect(bound <= Geodesic.wgs84.distance(walker, p[i]) + 1e-6)
                }
            }
        }
    }

    @Test("points inserted after the build, inside or outside its bounds, are found by rings and boxes")
    func insertedPointsAreFound() {
        let p = Self.points(500, seed: 7)
        var grid = PointGrid(p)
        let inside = Coordinate(computedLatitude: 53.40, longitude: -2.97), outside = Coordinate(computedLatitude: 53.60, longitude: -2.50)
        grid.insert(500, at: inside)
        grid.insert(501, at: outside)
        #expect(grid.insertedCount == 2)
        var found = Set<Int>()
        let (row, col) = grid.cell(of: inside)
        for ring in 0...grid.maxRing { grid.forEachInRing(row, col, ring) { found.insert($0) } }
        #expect(found.contains(500) && found.contains(501) && found.count == 502)
        var boxed = Set<Int>()
        grid.forEachInBox(minLat: 53.59, maxLat: 53.61, minLon: -2.51, maxLon: -2.49) { boxed.insert($0) }
        #expect(boxed.contains(501))
    }
}
