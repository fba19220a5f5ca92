import Foundation
import Geodesy

/// The one spatial index of points that the proximity engine and the map
/// model share: a uniform latitude–longitude grid, cells near square on the
/// ground and about four points each, stored compactly (cell starts and one
/// index array, built by counting sort: a million points in well under a
/// second, 8 bytes a point).
///
/// Points added after the build go to a per-cell overflow list (``insert(_:at:)``),
/// so adding is incremental; a point outside the built bounds is kept in the
/// nearest edge cell. Queries hand out candidates by cell: the caller tests
/// each exactly (the grid is in degrees and knows nothing of regions' shapes).
public struct PointGrid: Sendable {
    private let minLat: Double, minLon: Double
    private let cellLat: Double, cellLon: Double
    public let rows: Int, cols: Int
    private let starts: [UInt32]
    private let items: [UInt32]
    /// Points inserted since the build, by cell.
    private var extra: [Int: [UInt32]] = [:]
    public private(set) var insertedCount = 0
    /// Whether an inserted point lies outside the built bounds (edge cells then hold points beyond their bounds).
    private var insertedOutside = false
    /// Metres per degree of latitude and (at the grid's widest latitude) longitude, lower bounds.
    private let metresPerDegreeLat: Double
    private let metresPerDegreeLon: Double

    /// Builds the grid over `coordinates`; each point's id is its index.
    public init(_ coordinates: [Coordinate]) {
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

    public var bytes: Int { starts.count * 4 + items.count * 4 + insertedCount * 4 + extra.count * 48 }
    public var maxRing: Int { max(rows, cols) }

    /// Adds point `id` at `c` without rebuilding (ids are the caller's; a rebuild
    /// over all points is worth it once many have been inserted).
    public mutating func insert(_ id: UInt32, at c: Coordinate) {
        let (r, k) = cell(of: c)
        extra[r * cols + k, default: []].append(id)
        insertedCount += 1
        if !inside(c) { insertedOutside = true }
    }

    private func inside(_ c: Coordinate) -> Bool {
        c.latitude >= minLat && c.latitude <= minLat + Double(rows) * cellLat
            && c.longitude >= minLon && c.longitude <= minLon + Double(cols) * cellLon
    }

    public func cell(of c: Coordinate) -> (Int, Int) {
        (min(rows - 1, max(0, Int(((c.latitude - minLat) / cellLat).rounded(.down)))),
         min(cols - 1, max(0, Int(((c.longitude - minLon) / cellLon).rounded(.down)))))
    }

    @inline(__always)
    private func forEachIn(cell: Int, _ body: (Int) -> Void) {
        for j in Int(starts[cell])..<Int(starts[cell + 1]) { body(Int(items[j])) }
        if insertedCount > 0, let more = extra[cell] { for i in more { body(Int(i)) } }
    }

    /// Points in the cells at Chebyshev distance `ring` from (`row`, `col`).
    public func forEachInRing(_ row: Int, _ col: Int, _ ring: Int, _ body: (Int) -> Void) {
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

    /// A lower bound, in metres, on the geodesic distance from `c` to any point
    /// outside the block of cells within `ring` of its cell (infinite when the
    /// block covers the grid). Points inserted after the build are not covered.
    public func lowerBound(ringsOutside ring: Int, around c: Coordinate) -> Double {
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

    /// A box in degrees, west to east without wrapping.
    public struct Box: Sendable, Equatable {
        public var south: Double, north: Double, west: Double, east: Double

        public init(south: Double, north: Double, west: Double, east: Double) {
            self.south = south
            self.north = north
            self.west = west
            self.east = east
        }

        /// The part both boxes cover, or nil.
        public func intersection(_ o: Box) -> Box? {
            let b = Box(south: max(south, o.south), north: min(north, o.north), west: max(west, o.west), east: min(east, o.east))
            return b.south <= b.north && b.west <= b.east ? b : nil
        }
    }

    /// Points in cells overlapping the box (candidates: the caller tests exactly).
    /// A box beyond the grid's edge still looks at the edge cells, where points
    /// inserted outside the built bounds are kept.
    public func forEachInBox(minLat south: Double, maxLat north: Double, minLon west: Double, maxLon east: Double, _ body: (Int) -> Void) {
        forEachInBox(Box(south: south, north: north, west: west, east: east), skippingCellsInside: nil, body)
    }

    /// Points in cells overlapping `box`, leaving out the cells that lie wholly
    /// inside `skip` (for a region that moved: there nothing can have changed).
    public func forEachInBox(_ box: Box, skippingCellsInside skip: Box?, _ body: (Int) -> Void) {
        guard box.south <= box.north, box.west <= box.east else { return }
        let r0 = clamp(Int(((box.south - minLat) / cellLat).rounded(.down)), rows)
        let r1 = clamp(Int(((box.north - minLat) / cellLat).rounded(.down)), rows)
        let c0 = clamp(Int(((box.west - minLon) / cellLon).rounded(.down)), cols)
        let c1 = clamp(Int(((box.east - minLon) / cellLon).rounded(.down)), cols)
        guard r0 <= r1, c0 <= c1 else { return }
        for r in r0...r1 {
            var k = c0
            while k <= c1 {
                if let skip, let run = skippedRun(row: r, from: k, to: c1, inside: skip) {
                    k = run + 1
                    continue
                }
                // Cells of one row are contiguous in `items`: take the run up to the next skipped cell.
                var end = k
                if let skip {
                    while end < c1 && skippedRun(row: r, from: end + 1, to: end + 1, inside: skip) == nil { end += 1 }
                } else {
                    end = c1
                }
                for j in Int(starts[r * cols + k])..<Int(starts[r * cols + end + 1]) { body(Int(items[j])) }
                if insertedCount > 0 {
                    for cell in (r * cols + k)...(r * cols + end) {
                        if let more = extra[cell] { for i in more { body(Int(i)) } }
                    }
                }
                k = end + 1
            }
        }
    }

    @inline(__always)
    private func clamp(_ v: Int, _ count: Int) -> Int { min(count - 1, max(0, v)) }

    /// If cell (`row`, `from`) lies wholly inside `box`, the last column of the run
    /// of such cells up to `to`; nil when it does not.
    private func skippedRun(row: Int, from: Int, to: Int, inside box: Box) -> Int? {
        let south = minLat + Double(row) * cellLat, north = south + cellLat
        guard south >= box.south, north <= box.north else { return nil }
        // Edge cells may hold inserted points beyond their bounds.
        if insertedOutside && (row == 0 || row == rows - 1) { return nil }
        var last: Int?
        var k = from
        while k <= to {
            let west = minLon + Double(k) * cellLon, east = west + cellLon
            guard west >= box.west, east <= box.east, !(insertedOutside && (k == 0 || k == cols - 1)) else { break }
            last = k
            k += 1
        }
        return last
    }
}
