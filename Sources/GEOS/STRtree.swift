import CGEOS

/// A GEOS sort-tile-recursive tree of identified items (points or rectangles
/// in a plane), for envelope queries and nearest-neighbour search.
///
/// GEOS 3.11 builds the tree on the first query; items inserted after that
/// are refused with an error, as GEOS would.
public final class STRtree<ID> {
    public let context: GEOSContext
    private let tree: OpaquePointer
    private var ids: [ID] = []
    private var envelopes: [Envelope] = []
    private var built = false

    public init(nodeCapacity: Int = 10, in context: GEOSContext) throws(SpatialError) {
        guard nodeCapacity >= 2 else { throw .invalidInput("node capacity must be at least 2, got \(nodeCapacity)") }
        guard let t = GEOSSTRtree_create_r(context.handle, nodeCapacity) else { throw context.failure("create STRtree") }
        self.context = context
        tree = t
    }

    deinit {
        GEOSSTRtree_destroy_r(context.handle, tree)
    }

    public var count: Int { ids.count }

    /// Adds a point item.
    public func insert(_ id: ID, x: Double, y: Double) throws(SpatialError) {
        try insert(id, envelope: Envelope(minX: x, minY: y, maxX: x, maxY: y))
    }

    /// Adds an item covering `envelope`.
    public func insert(_ id: ID, envelope: Envelope) throws(SpatialError) {
        guard !built else { throw .invalidInput("the tree is built (it has been queried); it takes no more items") }
        guard envelope.minX.isFinite, envelope.minY.isFinite, envelope.maxX.isFinite, envelope.maxY.isFinite,
              envelope.minX <= envelope.maxX, envelope.minY <= envelope.maxY else {
            throw .invalidInput("item envelope \(envelope) is not a finite rectangle")
        }
        let g: Geometry = envelope.minX == envelope.maxX && envelope.minY == envelope.maxY
            ? try .point(x: envelope.minX, y: envelope.minY, in: context)
            : try .rectangle(envelope, in: context)
        // GEOS keeps a copy of the envelope, not the geometry; the item is its index + 1.
        GEOSSTRtree_insert_r(context.handle, tree, g.pointer, UnsafeMutableRawPointer(bitPattern: ids.count + 1))
        ids.append(id)
        envelopes.append(envelope)
    }

    /// The identifiers of the items whose envelopes intersect `envelope`, in index order.
    public func query(_ envelope: Envelope) throws(SpatialError) -> [ID] {
        let area = try Geometry.rectangle(envelope, in: context)
        built = true
        var hits: [Int] = []
        withUnsafeMutablePointer(to: &hits) { hitsPointer in
            GEOSSTRtree_query_r(context.handle, tree, area.pointer, { item, userData in
                guard let userData, let item else { return }
                userData.assumingMemoryBound(to: [Int].self).pointee.append(Int(bitPattern: item) - 1)
            }, hitsPointer)
        }
        hits.sort()
        // GEOS answers by envelope overlap; keep exactly the items that touch the query.
        return hits.compactMap { i in
            let e = envelopes[i]
            return e.maxX >= envelope.minX && e.minX <= envelope.maxX && e.maxY >= envelope.minY && e.minY <= envelope.maxY ? ids[i] : nil
        }
    }

    /// The item nearest to (`x`, `y`) by Euclidean distance to its envelope, or nil for an empty tree.
    public func nearest(x: Double, y: Double) throws(SpatialError) -> (id: ID, distance: Double)? {
        guard !ids.isEmpty else { return nil }
        let probe = try Geometry.point(x: x, y: y, in: context)
        built = true
        var state = NearestState(x: x, y: y, envelopes: envelopes)
        let found = withUnsafeMutablePointer(to: &state) { statePointer in
            GEOSSTRtree_nearest_generic_r(context.handle, tree, nil, probe.pointer, { item1, item2, distance, userData in
                guard let userData, let distance else { return 0 }
                let state = userData.assumingMemoryBound(to: NearestState.self)
                // One side is the probe (nil item), the other a tree item.
                let item = item1 ?? item2
                guard let item else { distance.pointee = 0; return 1 }
                distance.pointee = state.pointee.distance(toItem: Int(bitPattern: item) - 1)
                // GEOS 3.11 takes 1 as success here (its header says 0).
                return 1
            }, statePointer)
        }
        guard let found else { throw context.failure("nearest") }
        let index = Int(bitPattern: found) - 1
        return (ids[index], state.distance(toItem: index))
    }
}

private struct NearestState {
    let x: Double, y: Double
    let envelopes: [Envelope]

    func distance(toItem index: Int) -> Double {
        let e = envelopes[index]
        let dx = max(e.minX - x, 0, x - e.maxX)
        let dy = max(e.minY - y, 0, y - e.maxY)
        return (dx * dx + dy * dy).squareRoot()
    }
}
