import Geodesy

extension StreetNetwork {
    /// One edge of the network as a map draws it: its points, in order, and
    /// what its way is.
    public struct Line: Sendable, Equatable {
        /// Street, path or steps (``WalkingRules/kind(_:)``).
        public var kind: WalkingRules.Kind
        /// The way's `name`, else its `ref`; nil without either.
        public var name: String?
        /// The edge's points, every node of the way between its two vertices.
        public var coordinates: [Coordinate]

        /// A line of `kind` through `coordinates`.
        public init(kind: WalkingRules.Kind, name: String? = nil, coordinates: [Coordinate]) {
            self.kind = kind
            self.name = name
            self.coordinates = coordinates
        }
    }

    /// The edges whose bounding box meets the box from `south`, `west` to
    /// `north`, `east` (degrees), each whole, in the network's order: what a
    /// map of that box draws under a walk, before it clips them to its frame.
    /// A box whose west is east of its east is empty (no box crosses the
    /// antimeridian here).
    public func lines(south: Double, west: Double, north: Double, east: Double) -> [Line] {
        guard south <= north, west <= east else { return [] }
        var lines: [Line] = []
        for e in 0..<edgeKind.count {
            let range = points(ofEdge: e)
            var s = Double.infinity, n = -Double.infinity, w = Double.infinity, x = -Double.infinity
            for k in range {
                let c = coordinates[Int(edgePoints[k])]
                s = min(s, c.latitude)
                n = max(n, c.latitude)
                w = min(w, c.longitude)
                x = max(x, c.longitude)
            }
            guard s <= north, n >= south, w <= east, x >= west else { continue }
            let name = Int(edgeName[e])
            lines.append(Line(kind: edgeKind[e], name: name > 0 && name < wayNames.count ? wayNames[name] : nil,
                              coordinates: range.map { coordinates[Int(edgePoints[$0])] }))
        }
        return lines
    }
}
