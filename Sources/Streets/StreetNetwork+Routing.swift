import Geodesy

extension StreetNetwork {
    /// The shortest walking route from `from` through each of `via` in order
    /// to `to`, each point snapped to the network first (``snap(_:options:)``).
    ///
    /// Exact: each leg is an A* search whose heuristic, the straight-line
    /// (chord) distance to the end through the Earth, never exceeds the
    /// geodesic length of any path, so the route's length is the network's
    /// shortest path between the snapped points. Throws ``StreetError`` of
    /// kind `outsideNetwork` for a point too far from the network and
    /// `noRoute` when no walkable path joins two successive points.
    public func route(from: Coordinate, to: Coordinate, via: [Coordinate] = [], options: RouteOptions = RouteOptions()) throws(StreetError) -> StreetRoute {
        let start = try snap(from, options: options)
        var stops: [StreetSnap] = []
        for point in via { stops.append(try snap(point, options: options)) }
        let end = try snap(to, options: options)
        let points = [start] + stops + [end]
        var distance = 0.0
        var path: [Int32] = []
        // The route's line, each point with the name of the way that leads to it.
        var line: [(coordinate: Coordinate, name: Int32)] = []
        // The line's points where the walker waits to cross.
        var crossings: [Int] = []
        func add(_ c: Coordinate, _ name: Int32, crossing: Bool = false) {
            if line.last?.coordinate != c { line.append((c, name)) }
            if crossing, crossings.last != line.count - 1 { crossings.append(line.count - 1) }
        }
        for k in 0..<(points.count - 1) {
            let leg = try self.leg(from: points[k], to: points[k + 1], avoidingSteps: options.avoidsSteps)
            distance += leg.distance
            for p in leg.points where path.last != p { path.append(p) }
            add(points[k].coordinate, edgeName[points[k].edge])
            for (p, name) in zip(leg.points, leg.names) { add(coordinates[Int(p)], name, crossing: isCrossing[Int(p)]) }
            add(points[k + 1].coordinate, edgeName[points[k + 1].edge])
        }
        // A crossing where the walk starts or ends is not waited at.
        crossings.removeAll { $0 == 0 || $0 == line.count - 1 }
        return StreetRoute(distance: distance, nodes: path.map { nodeIDs[Int($0)] }, coordinates: line.map(\.coordinate),
                           stretches: stretches(line), from: start, to: end, via: stops, crossings: crossings)
    }

    /// The line's segments grouped into runs along one named way (or unnamed ways).
    private func stretches(_ line: [(coordinate: Coordinate, name: Int32)]) -> [StreetRoute.Stretch] {
        var stretches: [StreetRoute.Stretch] = []
        for i in line.indices.dropFirst() {
            let length = Geodesic.wgs84.distance(line[i - 1].coordinate, line[i].coordinate)
            let name = line[i].name == 0 ? nil : wayNames[Int(line[i].name)]
            if let last = stretches.last, last.name == name {
                stretches[stretches.count - 1].range = last.range.lowerBound...i
                stretches[stretches.count - 1].distance += length
            } else {
                stretches.append(StreetRoute.Stretch(name: name, range: (i - 1)...i, distance: length))
            }
        }
        return stretches
    }

    /// One leg's length and the points it passes.
    struct Leg {
        var distance: Double
        var points: [Int32]
        /// For each point, the name of the way that leads to it.
        var names: [Int32]
    }

    /// How the search reached a vertex.
    private enum Reached {
        case none
        /// From the start point along its edge toward the edge's first (true) or last point.
        case start(towardFirst: Bool)
        case edge(Int32)
    }

    /// The shortest path between two snapped points: A* over the vertices,
    /// seeded with the two ends of the start's edge and finished at either end
    /// of the end's edge (or along one edge when both are on it).
    func leg(from s: StreetSnap, to t: StreetSnap, avoidingSteps: Bool) throws(StreetError) -> Leg {
        let sLength = length(ofEdge: s.edge), tLength = length(ofEdge: t.edge)
        var best = Double.infinity
        var finish: (vertex: Int32, atFirst: Bool)?
        if s.edge == t.edge {
            best = abs(s.along - t.along)
        }
        let target = Ellipsoid.wgs84.ecef(t.coordinate)
        // The chord never exceeds a geodesic; the factor keeps rounding from making it do so.
        func heuristic(_ v: Int32) -> Double {
            let d = ecef[Int(vertexPoint[Int(v)])] - target
            return (d * d).sum().squareRoot() * (1 - 1e-9)
        }
        var dist = [Double](repeating: .infinity, count: vertexPoint.count)
        var reached = [Reached](repeating: .none, count: vertexPoint.count)
        var settled = [Bool](repeating: false, count: vertexPoint.count)
        var heap = MinimumHeap()
        for (vertex, cost, towardFirst) in [(edgeFrom[s.edge], s.along, true), (edgeTo[s.edge], sLength - s.along, false)] where cost < dist[Int(vertex)] {
            dist[Int(vertex)] = cost
            reached[Int(vertex)] = .start(towardFirst: towardFirst)
            heap.push(cost + heuristic(vertex), vertex)
        }
        while let (key, v) = heap.pop() {
            if key >= best { break }
            let vi = Int(v)
            if settled[vi] { continue }
            settled[vi] = true
            let g = dist[vi]
            if v == edgeFrom[t.edge], g + t.along < best {
                best = g + t.along
                finish = (v, true)
            }
            if v == edgeTo[t.edge], g + tLength - t.along < best {
                best = g + tLength - t.along
                finish = (v, false)
            }
            for k in Int(adjacencyStart[vi])..<Int(adjacencyStart[vi + 1]) {
                let e = Int(adjacency[k])
                if avoidingSteps, edgeSteps[e] { continue }
                let w = edgeFrom[e] == v ? edgeTo[e] : edgeFrom[e]
                if w == v || settled[Int(w)] { continue }
                let candidate = g + length(ofEdge: e)
                if candidate < dist[Int(w)] {
                    dist[Int(w)] = candidate
                    reached[Int(w)] = .edge(Int32(e))
                    heap.push(candidate + heuristic(w), w)
                }
            }
        }
        guard best.isFinite else {
            throw StreetError(.noRoute, "no walkable path from \(format(s.coordinate)) to \(format(t.coordinate))\(avoidingSteps ? " without steps" : "")")
        }
        guard let finish else {
            let passed = between(s, t)
            return Leg(distance: best, points: passed, names: passed.map { _ in edgeName[s.edge] })
        }
        // Back from the finishing vertex to the start, edge by edge.
        var edges: [(edge: Int, forward: Bool)] = []
        var v = finish.vertex
        var first: [Int32] = []
        while true {
            switch reached[Int(v)] {
            case .edge(let e):
                let forward = edgeTo[Int(e)] == v
                edges.append((Int(e), forward))
                v = forward ? edgeFrom[Int(e)] : edgeTo[Int(e)]
                continue
            case .start(let towardFirst):
                first = fromSnap(s, towardFirst: towardFirst)
            case .none:
                break
            }
            break
        }
        var leg = Leg(distance: best, points: [], names: [])
        func add(_ p: Int32, _ name: Int32) {
            guard leg.points.last != p else { return }
            leg.points.append(p)
            leg.names.append(name)
        }
        for p in first { add(p, edgeName[s.edge]) }
        for (e, forward) in edges.reversed() {
            let range = self.points(ofEdge: e)
            for p in forward ? Array(edgePoints[range]) : edgePoints[range].reversed() { add(p, edgeName[e]) }
        }
        for p in fromSnap(t, towardFirst: finish.atFirst).reversed() { add(p, edgeName[t.edge]) }
        return leg
    }

    /// The points of a snap's edge passed going from the snapped point to the
    /// edge's first point (or its last), the snapped point included when it is one.
    private func fromSnap(_ s: StreetSnap, towardFirst: Bool) -> [Int32] {
        let range = points(ofEdge: s.edge)
        if towardFirst {
            let top = s.fraction == 1 ? s.segment + 1 : s.segment
            return (0...top).reversed().map { edgePoints[range.lowerBound + $0] }
        }
        let bottom = s.fraction == 0 ? s.segment : s.segment + 1
        return (bottom..<range.count).map { edgePoints[range.lowerBound + $0] }
    }

    /// The points passed going along one edge from one snapped point to another.
    private func between(_ s: StreetSnap, _ t: StreetSnap) -> [Int32] {
        let range = points(ofEdge: s.edge)
        // Positions in points: a point at index i is passed when it lies between the two.
        let low = s.along <= t.along
        let (a, b) = low ? (s, t) : (t, s)
        let first = a.fraction == 0 ? a.segment : a.segment + 1
        let last = b.fraction == 1 ? b.segment + 1 : b.segment
        guard first <= last else { return [] }
        let passed = (first...last).map { edgePoints[range.lowerBound + $0] }
        return low ? passed : passed.reversed()
    }
}
