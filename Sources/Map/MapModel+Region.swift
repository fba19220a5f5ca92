import Geodesy
import SpatialIndex

/// MapModel's region: moving it, and the pins and clusters each move brings into view and takes out of it.
extension MapModel {
    public mutating func setRegion(_ r: MapRegion) -> [MapChange] {
        guard r != region else { return [] }
        var delta = scratch
        setRegion(r, delta: &delta)
        var changes = [MapChange.regionChanged(r)]
        changes += clustering == nil ? visibleChange(delta) : displayChanges()
        scratch = delta
        return changes
    }

    /// Sets the region after checking its span (``MapError/invalidRegion(latitudeDelta:longitudeDelta:)``).
    public mutating func setCheckedRegion(_ r: MapRegion) -> Result<[MapChange], MapError> {
        guard r.isValid else { return .failure(.invalidRegion(latitudeDelta: r.latitudeDelta, longitudeDelta: r.longitudeDelta)) }
        return .success(setRegion(r))
    }

    /// Moves the region and says only which pins came into it and which left
    /// (indices into ``annotations``), reusing `delta`'s storage: the form for
    /// maps of many pins, where the full visible list is asked for only when
    /// wanted (``visible``). Nothing is allocated once `delta` has the capacity
    /// (with clustering: while the zoom level stays; a new level compares the
    /// two levels' items).
    /// Below ``indexThreshold`` pins each list is in the order the pins were
    /// added; above it, in the grid's order (cells south to north, west to east;
    /// the same for the same pins and regions): sort them for the order of addition.
    /// With clustering, pins hidden in clusters are not listed, and the
    /// clusters that came and went are in `clustersAdded` and `clustersRemoved`
    /// (the selected-pin rule is applied by ``visible`` and ``clusters`` only).
    public mutating func setRegion(_ r: MapRegion, delta: inout VisibleDelta) {
        delta.added.removeAll(keepingCapacity: true)
        delta.removed.removeAll(keepingCapacity: true)
        delta.clustersAdded.removeAll(keepingCapacity: true)
        delta.clustersRemoved.removeAll(keepingCapacity: true)
        let old = region
        region = r
        guard old != r else { return }
        guard let settings = clustering else {
            pins.move(from: old, to: r, delta: &delta)
            return
        }
        plainScratch.added.removeAll(keepingCapacity: true)
        plainScratch.removed.removeAll(keepingCapacity: true)
        pins.move(from: old, to: r, delta: &plainScratch)
        for k in plainScratch.added { delta.added.append(plainPins[k]) }
        for k in plainScratch.removed { delta.removed.append(plainPins[k]) }
        let level = settings.level(of: r)
        for t in trees.indices {
            let l = trees[t].tree.level(zoom: level)
            if l == trees[t].level {
                moveTree(t, from: old, to: r, delta: &delta)
            } else {
                changeLevel(t, to: l, region: r, delta: &delta)
            }
        }
    }

    private mutating func moveTree(_ t: Int, from old: MapRegion?, to r: MapRegion, delta: inout VisibleDelta) {
        treeScratch.added.removeAll(keepingCapacity: true)
        treeScratch.removed.removeAll(keepingCapacity: true)
        trees[t].set.move(from: old, to: r, delta: &treeScratch)
        let l = trees[t].level
        for k in treeScratch.added.indices { note(t, l, treeScratch.added[k], into: &delta.added, &delta.clustersAdded) }
        for k in treeScratch.removed.indices { note(t, l, treeScratch.removed[k], into: &delta.removed, &delta.clustersRemoved) }
    }

    @inline(__always)
    private func note(_ t: Int, _ l: Int, _ i: Int, into pinList: inout [Int], _ clusterList: inout [ClusterRef]) {
        let tree = trees[t].tree
        if tree.isCluster(level: l, item: i) {
            clusterList.append(ClusterRef(tree: t, level: l, item: i))
        } else {
            pinList.append(tree.seedPin(level: l, item: i))
        }
    }

    /// A new zoom level: the items of the old level in the region and of the new one compared by identity.
    private mutating func changeLevel(_ t: Int, to l: Int, region r: MapRegion, delta: inout VisibleDelta) {
        let tree = trees[t].tree
        let oldLevel = trees[t].level
        var before: [UInt64: Int] = [:]
        for (i, inside) in trees[t].set.mask.enumerated() where inside { before[tree.key(level: oldLevel, item: i)] = i }
        var set = VisibleSet(coordinates: tree.levels[l].coordinates, grid: tree.levels[l].grid, threshold: indexThreshold)
        var fresh = VisibleDelta()
        set.move(from: nil, to: r, delta: &fresh)
        trees[t].set = set
        trees[t].level = l
        for i in fresh.added {
            if before.removeValue(forKey: tree.key(level: l, item: i)) == nil { note(t, l, i, into: &delta.added, &delta.clustersAdded) }
        }
        for i in before.values.sorted() { note(t, oldLevel, i, into: &delta.removed, &delta.clustersRemoved) }
    }

    /// Moves the centre and keeps the span, as `setCenter(_:animated:)`.
    public mutating func setCenter(_ c: Coordinate) -> [MapChange] {
        guard let r = region else { return [] }
        return setRegion(r.centered(on: c))
    }

    public mutating func centerOnUser() -> Result<[MapChange], MapError> {
        guard let u = userLocation else { return .failure(.noUserLocation) }
        return .success(setCenter(u))
    }

    /// The region that fits these pins with padding (`showAnnotations(_:animated:)`).
    public mutating func show(_ ids: [String], padding: Double = 0.1) -> [MapChange] {
        let coordinates = ids.compactMap { annotation($0)?.coordinate }
        guard let r = MapRegion.fitting(coordinates, padding: padding) else { return [] }
        return setRegion(r)
    }

    /// The region's rectangle as boxes without wrap: a second when it crosses the antimeridian.
    static func boxes(_ r: MapRegion) -> (PointGrid.Box, PointGrid.Box?) {
        let south = r.center.latitude - r.latitudeDelta / 2, north = r.center.latitude + r.latitudeDelta / 2
        guard r.longitudeDelta < 360 else { return (PointGrid.Box(south: south, north: north, west: -180, east: 180), nil) }
        var west = r.center.longitude - r.longitudeDelta / 2, east = r.center.longitude + r.longitudeDelta / 2
        if west < -180 { west += 360; east += 360 }
        if east <= 180 { return (PointGrid.Box(south: south, north: north, west: west, east: east), nil) }
        return (PointGrid.Box(south: south, north: north, west: west, east: 180), PointGrid.Box(south: south, north: north, west: -180, east: east - 360))
    }
}

/// Which pins a region change brought into view and which it took out:
/// indices into ``MapModel/annotations`` (see ``MapModel/setRegion(_:delta:)`` for their order),
/// and with clustering the clusters.
public struct VisibleDelta: Equatable, Sendable {
    public var added: [Int] = []
    public var removed: [Int] = []
    public var clustersAdded: [ClusterRef] = []
    public var clustersRemoved: [ClusterRef] = []

    public init() {}
}
