import Geodesy
import SpatialIndex

/// RankingIndex's grid queries: the k nearest places and the places inside a region.
extension RankingIndex {
    /// The distance to place `i` for ordering: the millimetre it rounds to is
    /// Karney's (Karney's method near a half millimetre and beyond 20 km).
    @inline(__always)
    private func orderingDistance(_ i: Int, _ w: Walker) -> Double {
        let t = Int(tieRank[i])
        return Self.rankingDistance(w, x[t], y[t], z[t], geodesic, coordinates, i).distance
    }

    // MARK: k nearest

    /// The `k` nearest places in exact order, written to `result` as (index, distance).
    /// Searches grid cells outward from the walker and stops when no unvisited
    /// cell can hold a place nearer than the k-th found.
    public func nearest(_ k: Int, from walker: Coordinate, into result: inout [(index: Int, distance: Double)]) {
        result.removeAll(keepingCapacity: true)
        guard k > 0, count > 0 else { return }
        let w = Walker(walker, ellipsoid: geodesic.ellipsoid)
        let want = min(k, count)
        var ring = 0
        let (row0, col0) = grid.cell(of: walker)
        while true {
            grid.forEachInRing(row0, col0, ring) { i in
                let d = orderingDistance(i, w)
                insertNearest(&result, (i, d), limit: want)
            }
            let bound = grid.lowerBound(ringsOutside: ring, around: walker)
            if result.count == want, let last = result.last, bound > last.distance + 1 { break }
            if ring > grid.maxRing { break }
            ring += 1
        }
    }

    private func insertNearest(_ list: inout [(index: Int, distance: Double)], _ item: (Int, Double), limit: Int) {
        func before(_ a: (index: Int, distance: Double), _ b: (index: Int, distance: Double)) -> Bool {
            let ma = (a.distance * 1000).rounded(), mb = (b.distance * 1000).rounded()
            return ma != mb ? ma < mb : tieRank[a.index] < tieRank[b.index]
        }
        let entry = (index: item.0, distance: item.1)
        if list.count == limit, let last = list.last, !before(entry, last) { return }
        var j = list.count
        while j > 0 && before(entry, list[j - 1]) { j -= 1 }
        list.insert(entry, at: j)
        if list.count > limit { list.removeLast() }
    }

    // MARK: Region

    /// Places inside the rectangle `|lat − centre.lat| ≤ latDelta/2`, `|lon − centre.lon| ≤ lonDelta/2`, by index.
    public func inside(center: Coordinate, latitudeDelta: Double, longitudeDelta: Double, into result: inout [Int]) {
        result.removeAll(keepingCapacity: true)
        grid.forEachInBox(minLat: center.latitude - latitudeDelta / 2, maxLat: center.latitude + latitudeDelta / 2,
                          minLon: center.longitude - longitudeDelta / 2, maxLon: center.longitude + longitudeDelta / 2) { i in
            let c = coordinates[i]
            if abs(c.latitude - center.latitude) <= latitudeDelta / 2 && abs(c.longitude - center.longitude) <= longitudeDelta / 2 {
                result.append(i)
            }
        }
    }
}
