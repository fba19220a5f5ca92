import Foundation
import Geodesy

/// A uniform latitude–longitude grid over places, cells near square on the
/// ground and about four places each, stored compactly (cell starts and one
/// index array, built by counting sort).
struct PlaceGrid {
    private let minLat: Double, minLon: Double
    private let cellLat: Double, cellLon: Double
    let rows: Int, cols: Int
    private let starts: [UInt32]
    private let items: [UInt32]
    /// Metres per degree of latitude and (at the grid's widest latitude) longitude, lower bounds.
    private let metresPerDegreeLat: Double
    private let metresPerDegreeLon: Double

    init(_ coordinates: [Coordinate]) {
        let lats = coordinates.map(\.latitude), lons = coordinates.map(\.longitude)
        let south = lats.min() ?? 0, north = lats.max() ?? 0
        let west = lons.min() ?? 0, east = lons.max() ?? 0
        let midLat = (south + north) / 2
        let aspect = max(0.01, cos(midLat * .pi / 180))
        let heightDeg = max(north - south, 1e-9), widthDeg = max(east - west, 1e-9)
        // Cells about square on the ground: cellLon = cellLat / cos(midLat).
        let cellsWanted = max(1.0, Double(coordinates.count) / 4)
        var h = ((heightDeg * widthDeg * aspect) / cellsWanted).squareRoot()
        if !h.isFinite || h <= 0 { h = max(heightDeg, widthDeg * aspect) }
        let rows = max(1, min(4096, Int((heightDeg / h).rounded(.up))))
        let cols = max(1, min(4096, Int((widthDeg / (h / aspect)).rounded(.up))))
        self.rows = rows
        self.cols = cols
        minLat = south
        minLon = west
        cellLat = heightDeg / Double(rows) * (1 + 1e-12)
        cellLon = widthDeg / Double(cols) * (1 + 1e-12)
        var counts = [UInt32](repeating: 0, count: rows * cols + 1)
        var cellOf = [Int](repeating: 0, count: coordinates.count)
        for (i, c) in coordinates.enumerated() {
            let r = min(rows - 1, max(0, Int((c.latitude - south) / cellLat)))
            let k = min(cols - 1, max(0, Int((c.longitude - west) / cellLon)))
            cellOf[i] = r * cols + k
            counts[r * cols + k + 1] += 1
        }
        for j in 1..<counts.count { counts[j] += counts[j - 1] }
        starts = counts
        var fill = counts
        var items = [UInt32](repeating: 0, count: coordinates.count)
        for (i, cell) in cellOf.enumerated() {
            items[Int(fill[cell])] = UInt32(i)
            fill[cell] += 1
        }
        self.items = items
        let e = Ellipsoid.wgs84
        let widest = max(abs(south), abs(north))
        metresPerDegreeLat = 0.999 * min(e.meridionalRadius(atLatitude: south), e.meridionalRadius(atLatitude: north)) * .pi / 180
        metresPerDegreeLon = 0.999 * e.primeVerticalRadius(atLatitude: 0) * cos(min(89.9, widest) * .pi / 180) * .pi / 180
    }

    var bytes: Int { starts.count * 4 + items.count * 4 }
    var maxRing: Int { max(rows, cols) }

    func cell(of c: Coordinate) -> (Int, Int) {
        (min(rows - 1, max(0, Int(((c.latitude - minLat) / cellLat).rounded(.down)))),
         min(cols - 1, max(0, Int(((c.longitude - minLon) / cellLon).rounded(.down)))))
    }

    @inline(__always)
    private func forEachIn(cell: Int, _ body: (Int) -> Void) {
        for j in Int(starts[cell])..<Int(starts[cell + 1]) { body(Int(items[j])) }
    }

    /// Places in the cells at Chebyshev distance `ring` from (`row`, `col`).
    func forEachInRing(_ row: Int, _ col: Int, _ ring: Int, _ body: (Int) -> Void) {
        if ring == 0 {
            forEachIn(cell: row * cols + col, body)
            return
        }
        let top = row + ring, bottom = row - ring, left = col - ring, right = col + ring
        for k in max(0, left)...min(cols - 1, right) {
            if top < rows { forEachIn(cell: top * cols + k, body) }
            if bottom >= 0 { forEachIn(cell: bottom * cols + k, body) }
        }
        let lo = max(0, bottom + 1), hi = min(rows - 1, top - 1)
        if lo <= hi {
            for r in lo...hi {
                if left >= 0 { forEachIn(cell: r * cols + left, body) }
                if right < cols { forEachIn(cell: r * cols + right, body) }
            }
        }
    }

    /// A lower bound, in metres, on the geodesic distance from `c` to any place
    /// outside the block of cells within `ring` of its cell (infinite when the
    /// block covers the grid).
    func lowerBound(ringsOutside ring: Int, around c: Coordinate) -> Double {
        let (row, col) = cell(of: c)
        var bound = Double.infinity
        if row + ring + 1 < rows {
            bound = min(bound, (minLat + Double(row + ring + 1) * cellLat - c.latitude) * metresPerDegreeLat)
        }
        if row - ring > 0 {
            bound = min(bound, (c.latitude - (minLat + Double(row - ring) * cellLat)) * metresPerDegreeLat)
        }
        if col + ring + 1 < cols {
            bound = min(bound, (minLon + Double(col + ring + 1) * cellLon - c.longitude) * metresPerDegreeLon)
        }
        if col - ring > 0 {
            bound = min(bound, (c.longitude - (minLon + Double(col - ring) * cellLon)) * metresPerDegreeLon)
        }
        return max(0, bound)
    }

    /// Places in cells overlapping the box (candidates: the caller tests exactly).
    func forEachInBox(minLat south: Double, maxLat north: Double, minLon west: Double, maxLon east: Double, _ body: (Int) -> Void) {
        let r0 = max(0, Int(((south - minLat) / cellLat).rounded(.down)))
        let r1 = min(rows - 1, Int(((north - minLat) / cellLat).rounded(.down)))
        let c0 = max(0, Int(((west - minLon) / cellLon).rounded(.down)))
        let c1 = min(cols - 1, Int(((east - minLon) / cellLon).rounded(.down)))
        guard r0 <= r1, c0 <= c1 else { return }
        for r in r0...r1 {
            // Cells of one row are contiguous in `items`.
            let from = Int(starts[r * cols + c0]), to = Int(starts[r * cols + c1 + 1])
            for j in from..<to { body(Int(items[j])) }
        }
    }
}
