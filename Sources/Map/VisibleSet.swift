import Geodesy
import SpatialIndex

/// Which of a list of points lie inside the map's region, kept up to date as
/// the region moves: the pins of an unclustered map, or one zoom level's
/// pins and clusters of a clustered one.
///
/// Above `threshold` points the grid answers, and a move looks only at the
/// cells the new region uncovers or covers; at or below it, every point is
/// tested (faster for a few hundred: `make bench`'s `Map visible-set update` measures both).
struct VisibleSet: Sendable {
    var coordinates: [Coordinate] = []
    var mask: [Bool] = []
    var count = 0
    var grid: PointGrid?
    var threshold = 256

    init(threshold: Int = 256) {
        self.threshold = threshold
    }

    init(coordinates: [Coordinate], grid: PointGrid?, threshold: Int) {
        self.coordinates = coordinates
        self.grid = grid
        self.threshold = threshold
        mask = [Bool](repeating: false, count: coordinates.count)
    }

    var bytes: Int { (grid?.bytes ?? 0) + coordinates.count * MemoryLayout<Coordinate>.stride + mask.count }

    @inline(__always)
    mutating func mark(_ i: Int, _ inside: Bool, into delta: inout VisibleDelta) {
        mask[i] = inside
        if inside {
            count += 1
            delta.added.append(i)
        } else {
            count -= 1
            delta.removed.append(i)
        }
    }

    /// Moves from `old` to `r`, appending the points that came in and went out (their indices) to `delta`.
    mutating func move(from old: MapRegion?, to r: MapRegion, delta: inout VisibleDelta) {
        guard old != r else { return }
        if coordinates.count <= threshold {
            for i in coordinates.indices {
                let inside = r.contains(coordinates[i])
                if inside != mask[i] { mark(i, inside, into: &delta) }
            }
            return
        }
        if grid == nil { grid = PointGrid(coordinates) }
        guard let grid else { return }
        let now = MapModel.boxes(r)
        let before = old.map(MapModel.boxes)
        // Cells wholly inside both rectangles cannot change: only the strips a pan uncovers and covers are read.
        var both: PointGrid.Box?
        if now.1 == nil, let before, before.1 == nil { both = now.0.intersection(before.0) }
        // Two passes per box pair, written out: an array of boxes would allocate on every pan.
        grid.forEachInBox(now.0, skippingCellsInside: both) { i in
            if !mask[i] && r.contains(coordinates[i]) { mark(i, true, into: &delta) }
        }
        if let second = now.1 {
            grid.forEachInBox(second, skippingCellsInside: both) { i in
                if !mask[i] && r.contains(coordinates[i]) { mark(i, true, into: &delta) }
            }
        }
        guard let before else { return }
        grid.forEachInBox(before.0, skippingCellsInside: both) { i in
            if mask[i] && !r.contains(coordinates[i]) { mark(i, false, into: &delta) }
        }
        if let second = before.1 {
            grid.forEachInBox(second, skippingCellsInside: both) { i in
                if mask[i] && !r.contains(coordinates[i]) { mark(i, false, into: &delta) }
            }
        }
    }

    /// Adds a point at the end (the grid grows incrementally).
    mutating func append(_ c: Coordinate, inside: Bool, delta: inout VisibleDelta) {
        let i = coordinates.count
        coordinates.append(c)
        mask.append(false)
        grid?.insert(UInt32(i), at: c)
        if inside { mark(i, true, into: &delta) }
        if let g = grid, g.insertedCount > coordinates.count / 4 { grid = nil }
    }

    /// Moves point `i` to `c` (the grid is rebuilt at the next move).
    mutating func move(point i: Int, to c: Coordinate, inside: Bool, delta: inout VisibleDelta) {
        coordinates[i] = c
        grid = nil
        if inside != mask[i] { mark(i, inside, into: &delta) }
    }
}
