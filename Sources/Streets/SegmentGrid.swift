/// A uniform grid over the network's plane holding every segment (two
/// successive points of an edge) in each cell its bounding box touches: the
/// index that finds the nearest segment to a point without looking at all.
struct SegmentGrid: Sendable {
    static let cellSize = 64.0

    let minimum: SIMD2<Double>
    let columns: Int
    let rows: Int
    /// `segments[cellStart[c]..<cellStart[c + 1]]` are cell c's segments, each
    /// named by the index in `edgePoints` of its first point.
    let cellStart: [Int32]
    let segments: [Int32]

    init(planar: [SIMD2<Double>], edgeStart: [Int32], edgePoints: [Int32]) {
        var low = SIMD2(Double.infinity, .infinity), high = SIMD2(-Double.infinity, -.infinity)
        for p in planar {
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        if planar.isEmpty { low = .zero; high = .zero }
        let columns = Int(((high.x - low.x) / Self.cellSize).rounded(.down)) + 1
        let rows = Int(((high.y - low.y) / Self.cellSize).rounded(.down)) + 1
        minimum = low
        self.columns = columns
        self.rows = rows
        var firsts: [Int32] = []
        for e in 0..<(edgeStart.count - 1) {
            for p in Int(edgeStart[e])..<(Int(edgeStart[e + 1]) - 1) { firsts.append(Int32(p)) }
        }
        var counts = [Int32](repeating: 0, count: columns * rows + 1)
        func cells(_ s: Int32, _ body: (Int) -> Void) {
            let a = planar[Int(edgePoints[Int(s)])], b = planar[Int(edgePoints[Int(s) + 1])]
            let (c0, r0) = Self.cell(pointwiseMin(a, b), minimum: low, columns: columns, rows: rows)
            let (c1, r1) = Self.cell(pointwiseMax(a, b), minimum: low, columns: columns, rows: rows)
            for r in r0...r1 {
                for c in c0...c1 { body(r * columns + c) }
            }
        }
        for s in firsts { cells(s) { counts[$0 + 1] += 1 } }
        for c in 0..<(columns * rows) { counts[c + 1] += counts[c] }
        var fill = counts
        var segments = [Int32](repeating: 0, count: Int(counts[columns * rows]))
        for s in firsts {
            cells(s) { c in
                segments[Int(fill[c])] = s
                fill[c] += 1
            }
        }
        cellStart = counts
        self.segments = segments
    }

    /// The cell of a point, clamped to the grid.
    static func cell(_ p: SIMD2<Double>, minimum: SIMD2<Double>, columns: Int, rows: Int) -> (column: Int, row: Int) {
        let c = ((p.x - minimum.x) / cellSize).rounded(.down), r = ((p.y - minimum.y) / cellSize).rounded(.down)
        return (Int(min(max(c, 0), Double(columns - 1))), Int(min(max(r, 0), Double(rows - 1))))
    }

    /// Visits the segments of the cells in ring `ring` (Chebyshev distance in
    /// cells) around the unclamped cell of `p`; false when the ring misses the grid.
    func visitRing(_ ring: Int, around p: SIMD2<Double>, _ body: (Int32) -> Void) -> Bool {
        let c = Int(((p.x - minimum.x) / Self.cellSize).rounded(.down).clamped(to: -1e9...1e9))
        let r = Int(((p.y - minimum.y) / Self.cellSize).rounded(.down).clamped(to: -1e9...1e9))
        var touched = false
        for row in (r - ring)...(r + ring) where row >= 0 && row < rows {
            let onEdgeRow = row == r - ring || row == r + ring
            let step = onEdgeRow ? 1 : max(2 * ring, 1)
            var column = c - ring
            while column <= c + ring {
                if column >= 0, column < columns {
                    touched = true
                    let cell = row * columns + column
                    for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) { body(segments[k]) }
                }
                column += step
            }
        }
        return touched
    }

    /// Whether ring `ring` around `p`, or any ring farther out, can still touch the grid.
    func ringReachesGrid(_ ring: Int, around p: SIMD2<Double>) -> Bool {
        let c = Int(((p.x - minimum.x) / Self.cellSize).rounded(.down).clamped(to: -1e9...1e9))
        let r = Int(((p.y - minimum.y) / Self.cellSize).rounded(.down).clamped(to: -1e9...1e9))
        let farColumn = max(c, columns - 1 - c, c - (columns - 1), -c)
        let farRow = max(r, rows - 1 - r, r - (rows - 1), -r)
        return ring <= max(farColumn, farRow)
    }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
