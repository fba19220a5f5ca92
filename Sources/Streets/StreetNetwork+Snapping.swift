import Geodesy

/// A point on the network: the nearest point of the nearest walkable edge to
/// a coordinate asked for.
public struct StreetSnap: Sendable, Equatable {
    /// The point on the network.
    public var coordinate: Coordinate
    /// Metres from the coordinate asked for (WGS84 geodesic).
    public var distance: Double
    let edge: Int
    /// The index in the edge's points of the segment's first point.
    let segment: Int
    /// Where on the segment, 0 at its first point and 1 at its second.
    let fraction: Double
    /// Metres along the edge from its first point.
    let along: Double
}

/// What a route may use and how far a point may be from the network.
public struct RouteOptions: Sendable, Equatable {
    /// Leave out ways tagged `highway=steps`.
    public var avoidsSteps: Bool
    /// A point farther than this many metres from every walkable way is an error.
    public var maximumSnapDistance: Double

    /// Options for a walk that takes steps and snaps points within 1 km.
    public init(avoidsSteps: Bool = false, maximumSnapDistance: Double = 1000) {
        self.avoidsSteps = avoidsSteps
        self.maximumSnapDistance = maximumSnapDistance
    }
}

extension StreetNetwork {
    /// The nearest point of the nearest walkable edge to `coordinate`.
    ///
    /// The nearest segment is found in the network's plane (the azimuthal
    /// equidistant projection about its middle, within 1e-6 of the geodesic
    /// distance over a city), and the point on it placed on the segment's
    /// geodesic; a point nearest to a node is that node exactly.
    public func snap(_ coordinate: Coordinate, options: RouteOptions = RouteOptions()) throws(StreetError) -> StreetSnap {
        let p = projection.project(coordinate)
        let q = SIMD2(p.x, p.y)
        var best = (distance: Double.infinity, segment: Int32(-1), fraction: 0.0)
        var ring = 0
        while grid.ringReachesGrid(ring, around: q) {
            _ = grid.visitRing(ring, around: q) { s in
                if options.avoidsSteps, edgeSteps[edge(ofSegment: s)] { return }
                let a = planar[Int(edgePoints[Int(s)])], b = planar[Int(edgePoints[Int(s) + 1])]
                let ab = b - a
                let squared = (ab * ab).sum()
                let t = squared > 0 ? min(max(((q - a) * ab).sum() / squared, 0), 1) : 0
                let d = q - (a + t * ab)
                let distance = (d * d).sum().squareRoot()
                if distance < best.distance || (distance == best.distance && s < best.segment) { best = (distance, s, t) }
            }
            if best.distance <= Double(ring) * SegmentGrid.cellSize { break }
            if Double(ring - 1) * SegmentGrid.cellSize > options.maximumSnapDistance { break }
            ring += 1
        }
        guard best.segment >= 0 else {
            throw StreetError(.outsideNetwork, "\(format(coordinate)) is more than \(Int(options.maximumSnapDistance)) m from every walkable way\(options.avoidsSteps ? " other than steps" : "")")
        }
        let s = Int(best.segment)
        let e = edge(ofSegment: best.segment)
        let a = coordinates[Int(edgePoints[s])], b = coordinates[Int(edgePoints[s + 1])]
        let segmentLength = edgeCumulative[s + 1] - edgeCumulative[s]
        let point: Coordinate
        switch best.fraction {
        case 0: point = a
        case 1: point = b
        default:
            let inverse = Geodesic.wgs84.inverse(a, b)
            point = Geodesic.wgs84.direct(from: a, azimuth: inverse.azimuth1, distance: best.fraction * inverse.distance).coordinate
        }
        let distance = Geodesic.wgs84.distance(coordinate, point)
        guard distance <= options.maximumSnapDistance else {
            throw StreetError(.outsideNetwork, "\(format(coordinate)) is \(Int(distance.rounded())) m from the nearest walkable way, more than the \(Int(options.maximumSnapDistance)) m allowed")
        }
        let along = best.fraction == 1 ? edgeCumulative[s + 1] : edgeCumulative[s] + best.fraction * segmentLength
        return StreetSnap(coordinate: point, distance: distance, edge: e, segment: s - Int(edgeStart[e]), fraction: best.fraction, along: along)
    }

    /// The edge a segment (named by its first point's index in `edgePoints`) belongs to.
    func edge(ofSegment s: Int32) -> Int {
        var low = 0, high = edgeStart.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if edgeStart[middle] <= s { low = middle } else { high = middle }
        }
        return low
    }

    func format(_ c: Coordinate) -> String { "\(c.latitude),\(c.longitude)" }
}
