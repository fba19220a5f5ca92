import Geodesy

/// The walking network of an OpenStreetMap extract: the ways a pedestrian may
/// use (``WalkingRules``), split at junctions into edges.
///
/// A vertex is a node where walkable ways meet (a node that walkable ways
/// use more than once) or where one ends; an edge is the stretch of one way
/// between two vertices, with every node of the way on it kept as its
/// geometry. An edge's length is the sum of the WGS84 geodesic lengths of its
/// segments (Karney's method, `Geodesic`), so the network's lengths are
/// exact to Karney's precision, a few nanometres a segment. Ways are walked
/// both ways: pedestrians are not bound by `oneway`.
///
/// Built once in memory from an extract with ``load(_:)``; a value, safe to
/// share between threads.
public struct StreetNetwork: Sendable {
    /// What the network holds and what was left out while building it.
    public struct Summary: Sendable, Equatable {
        /// Ways of the extract read.
        public var ways = 0
        /// Ways a pedestrian may use.
        public var walkableWays = 0
        /// Nodes on walkable ways.
        public var nodes = 0
        /// Junctions and ends of ways.
        public var vertices = 0
        /// Stretches of ways between vertices.
        public var edges = 0
        /// Edges that are steps.
        public var stepEdges = 0
        /// The sum of the edges' lengths, in metres.
        public var length = 0.0
        /// References to nodes that the extract does not hold; a way is cut there.
        public var missingNodes = 0
        /// Nodes on walkable ways where a pedestrian waits to cross (``WalkingRules/waitsToCross(_:)``).
        public var crossings = 0
    }

    /// What the network holds.
    public let summary: Summary

    // Points: every node on a walkable way.
    let nodeIDs: [Int64]
    let coordinates: [Coordinate]
    let ecef: [SIMD3<Double>]
    /// The points in the network's plane (`LocalProjection` about its middle), for the snapping grid.
    let planar: [SIMD2<Double>]
    let projection: LocalProjection

    // Edges: `edgePoints[edgeStart[e]..<edgeStart[e + 1]]` are edge e's points, and
    // `edgeCumulative` the distance along the edge to each of them.
    let edgeStart: [Int32]
    let edgePoints: [Int32]
    let edgeCumulative: [Double]
    let edgeSteps: [Bool]
    /// Each edge's way's kind, for drawing.
    let edgeKind: [WalkingRules.Kind]
    let edgeFrom: [Int32]
    let edgeTo: [Int32]
    /// Each edge's way's name as an index in `wayNames` (0: no name).
    let edgeName: [Int32]
    let wayNames: [String]

    // Vertices: a vertex's point, and the edges at it (`adjacency[adjacencyStart[v]..<adjacencyStart[v + 1]]`).
    let vertexPoint: [Int32]
    let adjacencyStart: [Int32]
    let adjacency: [Int32]

    let grid: SegmentGrid
    let places: PlaceNames
    /// For each point, whether a pedestrian waits there to cross.
    let isCrossing: [Bool]

    /// A walkable way reduced to what the network needs.
    struct Way {
        var id: Int64
        var use: WalkingRules.Use
        /// What the way is drawn as (``WalkingRules/kind(_:)``).
        var kind: WalkingRules.Kind = .street
        var nodes: [Int64]
        /// The way's `name`, else its `ref`; nil without either.
        var name: String?
    }

    /// Builds the network from walkable ways and the locations of their nodes.
    /// A node missing from `locations` cuts its way there; `crossings` are
    /// the nodes where a pedestrian waits to cross (``WalkingRules/waitsToCross(_:)``).
    init(ways: [Way], locations: [Int64: Coordinate], places: PlaceNames, waysRead: Int, crossings: Set<Int64> = []) {
        var summary = Summary()
        summary.ways = waysRead
        summary.walkableWays = ways.count
        var pointOfNode: [Int64: Int32] = [:]
        var nodeIDs: [Int64] = []
        var coordinates: [Coordinate] = []
        var uses: [Int32] = []
        var runs: [(points: [Int32], steps: Bool, kind: WalkingRules.Kind, name: Int32)] = []
        var wayNames = [""]
        var nameIndex: [String: Int32] = [:]
        for way in ways {
            var run: [Int32] = []
            var name: Int32 = 0
            if let text = way.name {
                if let known = nameIndex[text] {
                    name = known
                } else {
                    name = Int32(wayNames.count)
                    nameIndex[text] = name
                    wayNames.append(text)
                }
            }
            func close() {
                if run.count >= 2 { runs.append((run, way.use == .steps, way.kind, name)) }
                run = []
            }
            for node in way.nodes {
                guard let location = locations[node] else {
                    summary.missingNodes += 1
                    close()
                    continue
                }
                let point: Int32
                if let known = pointOfNode[node] {
                    point = known
                } else {
                    point = Int32(nodeIDs.count)
                    pointOfNode[node] = point
                    nodeIDs.append(node)
                    coordinates.append(location)
                    uses.append(0)
                }
                if run.last == point { continue }
                run.append(point)
            }
            close()
        }
        // A point used twice (by two ways, or twice by one) or ending a run is a vertex.
        var isVertex = [Bool](repeating: false, count: nodeIDs.count)
        for run in runs {
            for p in run.points { uses[Int(p)] += 1 }
            if let first = run.points.first, let last = run.points.last {
                isVertex[Int(first)] = true
                isVertex[Int(last)] = true
            }
        }
        for p in uses.indices where uses[p] >= 2 { isVertex[p] = true }
        var vertexOfPoint = [Int32](repeating: -1, count: nodeIDs.count)
        var vertexPoint: [Int32] = []
        for p in isVertex.indices where isVertex[p] {
            vertexOfPoint[p] = Int32(vertexPoint.count)
            vertexPoint.append(Int32(p))
        }
        let geodesic = Geodesic.wgs84
        var edgeStart: [Int32] = [0], edgePoints: [Int32] = [], edgeCumulative: [Double] = [], edgeSteps: [Bool] = [], edgeKind: [WalkingRules.Kind] = []
        var edgeFrom: [Int32] = [], edgeTo: [Int32] = [], edgeName: [Int32] = []
        for run in runs {
            var start = 0
            for i in 1..<run.points.count where isVertex[Int(run.points[i])] {
                var along = 0.0
                for k in start...i {
                    if k > start { along += geodesic.distance(coordinates[Int(run.points[k - 1])], coordinates[Int(run.points[k])]) }
                    edgePoints.append(run.points[k])
                    edgeCumulative.append(along)
                }
                edgeStart.append(Int32(edgePoints.count))
                edgeSteps.append(run.steps)
                edgeKind.append(run.kind)
                edgeFrom.append(vertexOfPoint[Int(run.points[start])])
                edgeTo.append(vertexOfPoint[Int(run.points[i])])
                edgeName.append(run.name)
                summary.length += along
                if run.steps { summary.stepEdges += 1 }
                start = i
            }
        }
        // The edges at each vertex, in compressed rows.
        var degree = [Int32](repeating: 0, count: vertexPoint.count + 1)
        for e in edgeFrom.indices {
            degree[Int(edgeFrom[e]) + 1] += 1
            if edgeTo[e] != edgeFrom[e] { degree[Int(edgeTo[e]) + 1] += 1 }
        }
        for v in 0..<vertexPoint.count { degree[v + 1] += degree[v] }
        var fill = degree
        var adjacency = [Int32](repeating: 0, count: Int(degree[vertexPoint.count]))
        for e in edgeFrom.indices {
            adjacency[Int(fill[Int(edgeFrom[e])])] = Int32(e)
            fill[Int(edgeFrom[e])] += 1
            if edgeTo[e] != edgeFrom[e] {
                adjacency[Int(fill[Int(edgeTo[e])])] = Int32(e)
                fill[Int(edgeTo[e])] += 1
            }
        }
        let projection = LocalProjection(origin: Self.middle(of: coordinates))
        let planar = coordinates.map { c in
            let p = projection.project(c)
            return SIMD2(p.x, p.y)
        }
        summary.nodes = nodeIDs.count
        summary.vertices = vertexPoint.count
        summary.edges = edgeSteps.count
        let isCrossing = nodeIDs.map(crossings.contains)
        summary.crossings = isCrossing.reduce(0) { $0 + ($1 ? 1 : 0) }
        self.isCrossing = isCrossing
        self.summary = summary
        self.nodeIDs = nodeIDs
        self.coordinates = coordinates
        ecef = coordinates.map { Ellipsoid.wgs84.ecef($0) }
        self.planar = planar
        self.projection = projection
        self.edgeStart = edgeStart
        self.edgePoints = edgePoints
        self.edgeCumulative = edgeCumulative
        self.edgeSteps = edgeSteps
        self.edgeKind = edgeKind
        self.edgeFrom = edgeFrom
        self.edgeTo = edgeTo
        self.edgeName = edgeName
        self.wayNames = wayNames
        self.vertexPoint = vertexPoint
        adjacencyStart = degree
        self.adjacency = adjacency
        grid = SegmentGrid(planar: planar, edgeStart: edgeStart, edgePoints: edgePoints)
        self.places = places
    }

    /// The middle of the points' bounding box (the origin of the network's plane).
    private static func middle(of coordinates: [Coordinate]) -> Coordinate {
        guard let first = coordinates.first else { return Coordinate(computedLatitude: 0, longitude: 0) }
        var south = first.latitude, north = first.latitude, west = first.longitude, east = first.longitude
        for c in coordinates {
            south = min(south, c.latitude)
            north = max(north, c.latitude)
            west = min(west, c.longitude)
            east = max(east, c.longitude)
        }
        return Coordinate(computedLatitude: (south + north) / 2, longitude: (west + east) / 2)
    }

    /// The range of edge `e`'s points in `edgePoints`.
    func points(ofEdge e: Int) -> Range<Int> { Int(edgeStart[e])..<Int(edgeStart[e + 1]) }

    /// Edge `e`'s length in metres.
    func length(ofEdge e: Int) -> Double { edgeCumulative[Int(edgeStart[e + 1]) - 1] }
}
