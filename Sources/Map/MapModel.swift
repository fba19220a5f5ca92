import Geodesy
import SpatialIndex

/// A pin on the map (`MKPointAnnotation`).
public struct Annotation: Equatable, Hashable, Sendable, Identifiable {
    public var id: String
    public var coordinate: Coordinate
    public var title: String
    public var subtitle: String?
    /// Pins with the same identifier may be drawn as one cluster (MapKit's
    /// `MKAnnotationView.clusteringIdentifier`); pins without one never are.
    public var clusteringIdentifier: String?

    public init(id: String, coordinate: Coordinate, title: String, subtitle: String? = nil, clusteringIdentifier: String? = nil) {
        self.id = id
        self.coordinate = coordinate
        self.title = title
        self.subtitle = subtitle
        self.clusteringIdentifier = clusteringIdentifier
    }
}

/// Nearby pins of one clustering identifier drawn as one (`MKClusterAnnotation`).
public struct MapCluster: Equatable, Hashable, Sendable, Identifiable {
    /// `cluster/ZOOM/PIN`: the zoom it was formed at and the pin it grew from;
    /// the same at every zoom level and pan it lives through.
    public var id: String
    public var clusteringIdentifier: String
    /// The count-weighted mean of its members' positions (in Web Mercator).
    public var coordinate: Coordinate
    /// Pins inside it.
    public var count: Int
    /// The zoom it was formed at.
    public var zoom: Int
    /// The zoom at which it splits into its parts (supercluster's `expansion_zoom`).
    public var expansionZoom: Int
}

/// A cluster in a ``VisibleDelta``: item `item` of level `level` of the
/// map's `tree`-th cluster tree (see ``MapModel/cluster(_:)``).
public struct ClusterRef: Equatable, Hashable, Sendable {
    public var tree: Int
    public var level: Int
    public var item: Int
}

/// Everything the map model says when something changes, in order.
public enum MapChange: Equatable, Sendable {
    case annotationsAdded([String])
    case annotationsRemoved([String])
    case regionChanged(MapRegion)
    /// The pins drawn in the region now, and which came and went.
    case visibleChanged(visible: [String], added: [String], removed: [String])
    case selected(String)
    case deselected(String)
    case userLocationChanged(Coordinate)
    /// With clustering: the clusters drawn in the region now, and which came and went (ids).
    case clustersChanged(shown: [MapCluster], added: [String], removed: [String])
}

/// Why a map request could not be done (an error value, never a crash).
public enum MapError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    case notOnMap(String)
    case noAnnotationAt(Coordinate)
    case noUserLocation
    /// A span that is zero, negative, not a number, or wider than the world (latitude over 180°, longitude over 360°).
    case invalidRegion(latitudeDelta: Double, longitudeDelta: Double)
    /// Cluster settings that make no sense (a radius, width or tile size that is not positive, zooms out of 0...30).
    case invalidClustering(radius: Double, mapWidth: Double)
    /// A pin whose coordinate is not a place on Earth (from `MKMapView`, whose
    /// coordinates are unchecked numbers; ``Geodesy/Coordinate`` is always valid).
    case invalidCoordinate(id: String, latitude: Double, longitude: Double)

    public var description: String {
        switch self {
        case .invalidRegion(let lat, let lon): return "a region's span must be more than 0 and at most 180° of latitude and 360° of longitude, not \(lat)° × \(lon)°"
        case .invalidClustering(let radius, let width): return "clustering needs a positive radius, map width and tile size and 0 ≤ min zoom ≤ max zoom ≤ 30 (radius \(radius), map width \(width))"
        case .invalidCoordinate(let id, let lat, let lon): return "pin \(id) has an invalid coordinate (\(lat), \(lon)): latitude must be in -90...90 and longitude in -180...180"
        case .notOnMap(let id): return "no pin \(id) on the map"
        case .noAnnotationAt(let c): return "no pin at \(c)"
        case .noUserLocation: return "the user's location is not known yet"
        }
    }
}

/// The MapKit behaviour the seed apps rely on, headless: pins, one selection,
/// a region and the pins visible in it, the user's location and tracking,
/// and clusters of pins that share a clustering identifier.
///
/// - Selection is single: selecting one pin deselects the other; removing the
///   selected pin deselects it.
/// - `setCenter` keeps the span (zoom level).
/// - The visible set is the pins drawn inside the region's rectangle: with
///   clustering on, pins hidden in a cluster are not in it, and the clusters
///   drawn are ``clusters``. The selected pin is never hidden in a cluster:
///   it is drawn on its own, and its cluster is drawn without it (a cluster
///   left with one pin is drawn as that pin).
public struct MapModel {
    /// Whether the map follows the user, as `MKUserTrackingMode`.
    public enum TrackingMode: String, Sendable {
        case none
        /// Recentre on every user-location update.
        case follow
    }

    public private(set) var annotations: [Annotation] = []
    public internal(set) var region: MapRegion?
    public private(set) var selected: String?
    public private(set) var userLocation: Coordinate?
    public var trackingMode: TrackingMode = .none
    /// Above this many pins the visible set comes from the grid shared with the
    /// proximity engine (``SpatialIndex/PointGrid``) and a region change looks only at the
    /// cells it uncovers or covers; at or below it, a scan of every pin (faster
    /// for a few hundred: `make bench`'s `Map visible-set update` measures both).
    public var indexThreshold = 256 {
        didSet {
            pins.threshold = indexThreshold
            for t in trees.indices { trees[t].set.threshold = indexThreshold }
        }
    }
    /// How pins are clustered; nil (the default) draws every pin.
    public private(set) var clustering: ClusterSettings?

    private var indexOf: [String: Int] = [:]
    /// Pins drawn on their own: every pin without clustering; with it, the pins without an identifier.
    var pins = VisibleSet()
    /// With clustering, the annotation index of each point of ``pins``.
    var plainPins: [Int] = []
    var trees: [TreeLayer] = []
    /// With clustering: for each annotation, its tree (−1: none) and position in it (or in ``plainPins``).
    private var pinTree: [Int32] = []
    private var pinPosition: [UInt32] = []
    private var lastDisplay = Display()
    var scratch = VisibleDelta()
    var plainScratch = VisibleDelta()
    var treeScratch = VisibleDelta()

    /// One clustering identifier's tree and what of its current level is in the region.
    struct TreeLayer {
        var identifier: String
        var tree: ClusterTree
        var level: Int
        var set: VisibleSet
    }

    /// What is drawn: pins (ids, in the order they were added) and clusters (by id).
    struct Display: Equatable {
        var visible: [String] = []
        var clusters: [MapCluster] = []
        var refs: [String: ClusterRef] = [:]
        /// With the selected pin pulled out of a cluster: that cluster's id.
        var without: String?
    }

    public init() {}

    /// The pins drawn inside the region, in the order they were added.
    public var visible: [String] {
        if clustering != nil { return display().visible }
        var ids: [String] = []
        ids.reserveCapacity(pins.count)
        for (i, inside) in pins.mask.enumerated() where inside { ids.append(annotations[i].id) }
        return ids
    }

    /// ``visible`` as indices into ``annotations``, written into `rows`
    /// (emptied first, its room kept): nothing is allocated once it has the
    /// room. False, and `rows` left empty, with clustering, where the pins
    /// drawn depend on the clusters (ask ``visible``).
    public func visibleIndices(into rows: inout [UInt32]) -> Bool {
        rows.removeAll(keepingCapacity: true)
        guard clustering == nil else { return false }
        pins.mask.withUnsafeBufferPointer { mask in
            for i in mask.indices where mask[i] { rows.append(UInt32(truncatingIfNeeded: i)) }
        }
        return true
    }

    /// The clusters drawn inside the region (empty without clustering), by id.
    public var clusters: [MapCluster] { clustering == nil ? [] : display().clusters }

    /// Pins and clusters drawn (without the selected-pin rule's adjustments).
    public var visibleCount: Int { pins.count + trees.reduce(0) { $0 + $1.set.count } }

    /// Bytes the visible-set machinery holds per pin beyond the pins themselves:
    /// the grid, the packed coordinates and the visible mask (and the cluster trees).
    public var indexBytesPerPin: Double {
        guard !annotations.isEmpty else { return 0 }
        return Double(pins.bytes + trees.reduce(0) { $0 + $1.tree.bytes + $1.set.mask.count }) / Double(annotations.count)
    }

    /// Whether the pin at `index` (in ``annotations``) is drawn inside the region.
    public func isVisible(at index: Int) -> Bool {
        guard annotations.indices.contains(index) else { return false }
        guard clustering != nil else { return pins.mask[index] }
        let id = annotations[index].id
        return display().visible.contains(id)
    }

    public func annotation(_ id: String) -> Annotation? { indexOf[id].map { annotations[$0] } }

    // MARK: Pins

    public mutating func add(_ new: [Annotation]) -> [MapChange] {
        var added: [String] = []
        var delta = VisibleDelta()
        var changedClusters = false
        for a in new {
            let c = a.coordinate
            if let i = indexOf[a.id] {
                let old = annotations[i]
                annotations[i] = a
                if clustering == nil {
                    if old.coordinate != c { pins.move(point: i, to: c, inside: region?.contains(c) ?? false, delta: &delta) }
                } else if old.coordinate != c || old.clusteringIdentifier != a.clusteringIdentifier {
                    changedClusters = true
                }
            } else {
                let i = annotations.count
                indexOf[a.id] = i
                annotations.append(a)
                added.append(a.id)
                if clustering == nil {
                    pins.append(c, inside: region?.contains(c) ?? false, delta: &delta)
                } else {
                    changedClusters = true
                }
            }
        }
        var changes: [MapChange] = added.isEmpty ? [] : [.annotationsAdded(added)]
        if clustering != nil {
            if changedClusters { rebuildLayers() }
            changes += displayChanges()
        } else {
            changes += visibleChange(delta)
        }
        return changes
    }

    public mutating func remove(_ ids: [String]) -> [MapChange] {
        let gone = Set(ids).filter { indexOf[$0] != nil }
        guard !gone.isEmpty else { return [] }
        var changes: [MapChange] = []
        if let s = selected, gone.contains(s) {
            selected = nil
            changes.append(.deselected(s))
        }
        let before = clustering == nil ? visible : []
        var kept: [Bool] = []
        if clustering == nil {
            kept.reserveCapacity(annotations.count)
            for (i, a) in annotations.enumerated() where !gone.contains(a.id) { kept.append(pins.mask[i]) }
        }
        annotations.removeAll { gone.contains($0.id) }
        indexOf = Dictionary(uniqueKeysWithValues: annotations.enumerated().map { ($1.id, $0) })
        changes.append(.annotationsRemoved(ids.filter { gone.contains($0) }))
        if clustering != nil {
            rebuildLayers()
            return changes + displayChanges()
        }
        pins = VisibleSet(coordinates: annotations.map(\.coordinate), grid: nil, threshold: indexThreshold)
        pins.mask = kept
        pins.count = kept.reduce(0) { $0 + ($1 ? 1 : 0) }
        let leaving = before.filter { gone.contains($0) }
        if !leaving.isEmpty { changes.append(.visibleChanged(visible: visible, added: [], removed: leaving)) }
        return changes
    }

    public mutating func removeAll() -> [MapChange] {
        remove(annotations.map(\.id))
    }

    // MARK: Clustering

    /// Turns clustering on with `settings`, changes them, or turns it off (nil).
    /// The trees are built at once (supercluster's `load`); adding or removing
    /// pins later rebuilds them.
    public mutating func setClustering(_ settings: ClusterSettings?) -> Result<[MapChange], MapError> {
        if let settings, !settings.isValid { return .failure(.invalidClustering(radius: settings.radius, mapWidth: settings.mapWidth)) }
        guard settings != clustering else { return .success([]) }
        let before = clustering == nil ? Display(visible: visible) : display()
        clustering = settings
        lastDisplay = before
        if settings != nil {
            rebuildLayers()
            if let s = selected, indexOf[s] == nil, !display().clusters.contains(where: { $0.id == s }) {
                selected = nil
                return .success([.deselected(s)] + displayChanges())
            }
            return .success(displayChanges())
        }
        // Back to every pin on its own.
        var changes: [MapChange] = []
        if let s = selected, indexOf[s] == nil {
            selected = nil
            changes.append(.deselected(s))
        }
        trees = []
        plainPins = []
        pinTree = []
        pinPosition = []
        pins = VisibleSet(coordinates: annotations.map(\.coordinate), grid: nil, threshold: indexThreshold)
        var delta = VisibleDelta()
        if let region { pins.move(from: nil, to: region, delta: &delta) }
        let now = visible
        if now != before.visible {
            let was = Set(before.visible), isNow = Set(now)
            changes.append(.visibleChanged(visible: now, added: now.filter { !was.contains($0) }, removed: before.visible.filter { !isNow.contains($0) }))
        }
        if !before.clusters.isEmpty { changes.append(.clustersChanged(shown: [], added: [], removed: before.clusters.map(\.id))) }
        return .success(changes)
    }

    /// The cluster a ``VisibleDelta`` names.
    public func cluster(_ ref: ClusterRef) -> MapCluster {
        let layer = trees[ref.tree]
        let t = layer.tree
        // A cluster splits one zoom above the one it was formed at (supercluster's `expansion_zoom`).
        let formed = t.formedZoom(level: ref.level, item: ref.item) ?? (t.settings.maxZoom + 1)
        return MapCluster(id: "cluster/\(formed)/\(annotations[t.seedPin(level: ref.level, item: ref.item)].id)",
                          clusteringIdentifier: layer.identifier,
                          coordinate: t.levels[ref.level].coordinates[ref.item], count: Int(t.levels[ref.level].count[ref.item]),
                          zoom: formed, expansionZoom: formed + 1)
    }

    /// The ids of the pins inside a cluster drawn now, in the order they were
    /// added (the selected pin left out); nil for an id that is not a cluster drawn now.
    public func members(ofCluster id: String) -> [String]? {
        let d = display()
        guard let ref = d.refs[id] else { return nil }
        let all = trees[ref.tree].tree.memberPins(level: ref.level, item: ref.item).map { annotations[$0].id }
        return d.without == id ? all.filter { $0 != selected } : all
    }

    /// The zoom level clusters are drawn at for the current region (nil without clustering or region).
    public var clusterZoom: Int? {
        guard let clustering, let region else { return nil }
        return clustering.level(of: region)
    }

    private mutating func rebuildLayers() {
        guard let settings = clustering else { return }
        var byIdentifier: [String: Int] = [:]
        var groups: [(String, [Int])] = []
        plainPins = []
        pinTree = [Int32](repeating: -1, count: annotations.count)
        pinPosition = [UInt32](repeating: 0, count: annotations.count)
        for (i, a) in annotations.enumerated() {
            guard let id = a.clusteringIdentifier else {
                pinPosition[i] = UInt32(plainPins.count)
                plainPins.append(i)
                continue
            }
            let g: Int
            if let known = byIdentifier[id] {
                g = known
            } else {
                g = groups.count
                byIdentifier[id] = g
                groups.append((id, []))
            }
            pinTree[i] = Int32(g)
            pinPosition[i] = UInt32(groups[g].1.count)
            groups[g].1.append(i)
        }
        pins = VisibleSet(coordinates: plainPins.map { annotations[$0].coordinate }, grid: nil, threshold: indexThreshold)
        var delta = VisibleDelta()
        if let region { pins.move(from: nil, to: region, delta: &delta) }
        trees = groups.map { identifier, members in
            let tree = ClusterTree(coordinates: members.map { annotations[$0].coordinate }, pins: members, settings: settings)
            let level = tree.level(zoom: region.map(settings.level(of:)) ?? settings.maxZoom + 1)
            var set = VisibleSet(coordinates: tree.levels[level].coordinates, grid: tree.levels[level].grid, threshold: indexThreshold)
            if let region { set.move(from: nil, to: region, delta: &delta) }
            return TreeLayer(identifier: identifier, tree: tree, level: level, set: set)
        }
        // Room for any level's items, so that a pan appends without allocating.
        let most = trees.map { $0.tree.levels.map(\.itemCount).max() ?? 0 }.max() ?? 0
        treeScratch = VisibleDelta()
        treeScratch.added.reserveCapacity(most)
        treeScratch.removed.reserveCapacity(most)
    }

    /// What is drawn now, the selected pin pulled out of its cluster.
    func display() -> Display {
        var d = Display()
        var shown: [Int] = []
        for (k, inside) in pins.mask.enumerated() where inside { shown.append(plainPins[k]) }
        var selectedPin: (tree: Int, position: Int)?
        if let s = selected, let i = indexOf[s], pinTree.indices.contains(i), pinTree[i] >= 0 { selectedPin = (Int(pinTree[i]), Int(pinPosition[i])) }
        for (t, layer) in trees.enumerated() {
            let tree = layer.tree, l = layer.level
            var pulledFrom = -1
            if let sp = selectedPin, sp.tree == t {
                let item = tree.item(holdingPin: sp.position, level: l)
                if tree.isCluster(level: l, item: item) {
                    pulledFrom = item
                    let s = tree.pins[sp.position]
                    if region?.contains(annotations[s].coordinate) == true { shown.append(s) }
                }
            }
            for (i, inside) in layer.set.mask.enumerated() where inside {
                guard tree.isCluster(level: l, item: i) else {
                    shown.append(tree.seedPin(level: l, item: i))
                    continue
                }
                var c = cluster(ClusterRef(tree: t, level: l, item: i))
                if i == pulledFrom, let sp = selectedPin {
                    let rest = tree.memberPins(level: l, item: i).filter { $0 != tree.pins[sp.position] }
                    if rest.count == 1 {
                        shown.append(rest[0])
                        continue
                    }
                    // The mean without the selected pin, in Web Mercator.
                    let (x, y) = tree.mercator(level: l, item: i)
                    let s = annotations[tree.pins[sp.position]].coordinate
                    let n = Double(c.count)
                    let mx = (x * n - Mercator.x(s.longitude)) / (n - 1), my = (y * n - Mercator.y(s.latitude)) / (n - 1)
                    c.coordinate = Coordinate(computedLatitude: Mercator.latitude(my), longitude: Mercator.longitude(mx))
                    c.count -= 1
                    d.without = c.id
                }
                d.refs[c.id] = ClusterRef(tree: t, level: l, item: i)
                d.clusters.append(c)
            }
        }
        shown.sort()
        var last = -1
        for i in shown where i != last {
            d.visible.append(annotations[i].id)
            last = i
        }
        d.clusters.sort { $0.id < $1.id }
        return d
    }

    /// The changes since the last display reported, and a cluster selection that is no longer drawn ended.
    mutating func displayChanges() -> [MapChange] {
        var changes: [MapChange] = []
        var now = display()
        if let s = selected, indexOf[s] == nil, now.refs[s] == nil {
            selected = nil
            changes.append(.deselected(s))
            now = display()
        }
        let old = lastDisplay
        if now.visible != old.visible {
            let was = Set(old.visible), isNow = Set(now.visible)
            changes.append(.visibleChanged(visible: now.visible, added: now.visible.filter { !was.contains($0) },
                                           removed: old.visible.filter { !isNow.contains($0) }))
        }
        if now.clusters != old.clusters {
            let was = Set(old.clusters.map(\.id)), isNow = Set(now.clusters.map(\.id))
            changes.append(.clustersChanged(shown: now.clusters, added: now.clusters.map(\.id).filter { !was.contains($0) },
                                            removed: old.clusters.map(\.id).filter { !isNow.contains($0) }))
        }
        lastDisplay = now
        return changes
    }

    // MARK: Selection

    /// Selects a pin, or a cluster drawn now (by its id).
    public mutating func select(_ id: String) -> Result<[MapChange], MapError> {
        guard indexOf[id] != nil || (clustering != nil && display().refs[id] != nil) else { return .failure(.notOnMap(id)) }
        guard selected != id else { return .success([]) }
        var changes: [MapChange] = []
        if let old = selected { changes.append(.deselected(old)) }
        selected = id
        changes.append(.selected(id))
        if clustering != nil { changes += displayChanges() }
        return .success(changes)
    }

    /// Selects the pin at exactly this coordinate (as the CoffeeShop13 hints match pins).
    public mutating func select(at c: Coordinate) -> Result<[MapChange], MapError> {
        guard let a = annotations.first(where: { $0.coordinate == c }) else { return .failure(.noAnnotationAt(c)) }
        return select(a.id)
    }

    public mutating func deselect() -> [MapChange] {
        guard let s = selected else { return [] }
        selected = nil
        return [.deselected(s)] + (clustering != nil ? displayChanges() : [])
    }

    // MARK: User location

    public mutating func updateUserLocation(_ c: Coordinate) -> [MapChange] {
        userLocation = c
        var changes: [MapChange] = [.userLocationChanged(c)]
        if trackingMode == .follow { changes += setCenter(c) }
        return changes
    }

    /// ``updateUserLocation(_:)`` that says only which pins came into the
    /// region and which left it, in `delta` (as ``setRegion(_:delta:)``), and
    /// allocates nothing once `delta` has the room. Without clustering (a
    /// clustered map's selection can change with its display: use
    /// ``updateUserLocation(_:)`` there).
    public mutating func updateUserLocation(_ c: Coordinate, delta: inout VisibleDelta) {
        userLocation = c
        if trackingMode == .follow, let r = region { setRegion(r.centered(on: c), delta: &delta) }
    }

    // MARK: Visible set

    func visibleChange(_ delta: VisibleDelta) -> [MapChange] {
        guard !delta.added.isEmpty || !delta.removed.isEmpty else { return [] }
        return [.visibleChanged(visible: visible, added: delta.added.sorted().map { annotations[$0].id },
                                removed: delta.removed.sorted().map { annotations[$0].id })]
    }
}
