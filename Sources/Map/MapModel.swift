import Geodesy
import SpatialIndex

/// A pin on the map (`MKPointAnnotation`).
public struct Annotation: Equatable, Hashable, Sendable, Identifiable {
    public var id: String
    public var coordinate: Coordinate
    public var title: String
    public var subtitle: String?

    public init(id: String, coordinate: Coordinate, title: String, subtitle: String? = nil) {
        self.id = id
        self.coordinate = coordinate
        self.title = title
        self.subtitle = subtitle
    }
}

/// Everything the map model says when something changes, in order.
public enum MapChange: Equatable, Sendable {
    case annotationsAdded([String])
    case annotationsRemoved([String])
    case regionChanged(MapRegion)
    /// The pins inside the region now, and which came and went.
    case visibleChanged(visible: [String], added: [String], removed: [String])
    case selected(String)
    case deselected(String)
    case userLocationChanged(Coordinate)
}

/// Why a map request could not be done (an error value, never a crash).
public enum MapError: Error, Equatable, Sendable, CustomStringConvertible {
    case notOnMap(String)
    case noAnnotationAt(Coordinate)
    case noUserLocation
    /// A span that is zero, negative, not a number, or wider than the world (latitude over 180°, longitude over 360°).
    case invalidRegion(latitudeDelta: Double, longitudeDelta: Double)

    public var description: String {
        switch self {
        case .invalidRegion(let lat, let lon): return "a region's span must be more than 0 and at most 180° of latitude and 360° of longitude, not \(lat)° × \(lon)°"
        case .notOnMap(let id): return "no pin \(id) on the map"
        case .noAnnotationAt(let c): return "no pin at \(c)"
        case .noUserLocation: return "the user's location is not known yet"
        }
    }
}

/// The MapKit behaviour the seed apps rely on, headless: pins, one selection,
/// a region and the pins visible in it, the user's location and tracking.
///
/// - Selection is single: selecting one pin deselects the other; removing the
///   selected pin deselects it.
/// - `setCenter` keeps the span (zoom level).
/// - The visible set is the pins inside the region's rectangle.
public struct MapModel {
    public enum TrackingMode: String, Sendable {
        case none
        /// Recentre on every user-location update.
        case follow
    }

    public private(set) var annotations: [Annotation] = []
    public private(set) var region: MapRegion?
    public private(set) var selected: String?
    public private(set) var userLocation: Coordinate?
    public var trackingMode: TrackingMode = .none
    /// Above this many pins the visible set comes from the grid shared with the
    /// proximity engine (``PointGrid``) and a region change looks only at the
    /// cells it uncovers or covers; at or below it, a scan of every pin (faster
    /// for a few hundred, measured in Benchmarks/README.md).
    public var indexThreshold = 256

    private var indexOf: [String: Int] = [:]
    /// The pins' coordinates by index, packed for the visible-set tests.
    private var coordinates: [Coordinate] = []
    /// Whether each pin (by index) is inside the region.
    private var visibleMask: [Bool] = []
    public private(set) var visibleCount = 0
    private var grid: PointGrid?
    private var scratch = VisibleDelta()

    public init() {}

    /// The pins inside the region, in the order they were added.
    public var visible: [String] {
        var ids: [String] = []
        ids.reserveCapacity(visibleCount)
        for (i, inside) in visibleMask.enumerated() where inside { ids.append(annotations[i].id) }
        return ids
    }

    /// Bytes the visible-set machinery holds per pin beyond the pins themselves:
    /// the grid, the packed coordinates and the visible mask.
    public var indexBytesPerPin: Double {
        guard !annotations.isEmpty else { return 0 }
        return Double((grid?.bytes ?? 0) + coordinates.count * MemoryLayout<Coordinate>.stride + visibleMask.count) / Double(annotations.count)
    }

    /// Whether the pin at `index` (in ``annotations``) is inside the region.
    public func isVisible(at index: Int) -> Bool { visibleMask.indices.contains(index) && visibleMask[index] }

    public func annotation(_ id: String) -> Annotation? { indexOf[id].map { annotations[$0] } }

    // MARK: Pins

    public mutating func add(_ new: [Annotation]) -> [MapChange] {
        var added: [String] = []
        var delta = VisibleDelta()
        for a in new {
            if let i = indexOf[a.id] {
                let moved = annotations[i].coordinate != a.coordinate
                annotations[i] = a
                if moved {
                    coordinates[i] = a.coordinate
                    grid = nil
                    let inside = region?.contains(a.coordinate) ?? false
                    if inside != visibleMask[i] { mark(i, inside, into: &delta) }
                }
            } else {
                let i = annotations.count
                indexOf[a.id] = i
                annotations.append(a)
                coordinates.append(a.coordinate)
                visibleMask.append(false)
                grid?.insert(UInt32(i), at: a.coordinate)
                added.append(a.id)
                if region?.contains(a.coordinate) == true { mark(i, true, into: &delta) }
            }
        }
        if let g = grid, g.insertedCount > annotations.count / 4 { grid = nil }
        var changes: [MapChange] = added.isEmpty ? [] : [.annotationsAdded(added)]
        changes += visibleChange(delta)
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
        let leaving = visible.filter { gone.contains($0) }
        var kept: [Bool] = []
        kept.reserveCapacity(annotations.count)
        for (i, a) in annotations.enumerated() where !gone.contains(a.id) { kept.append(visibleMask[i]) }
        annotations.removeAll { gone.contains($0.id) }
        indexOf = Dictionary(uniqueKeysWithValues: annotations.enumerated().map { ($1.id, $0) })
        coordinates = annotations.map(\.coordinate)
        visibleMask = kept
        visibleCount = kept.reduce(0) { $0 + ($1 ? 1 : 0) }
        grid = nil
        changes.append(.annotationsRemoved(ids.filter { gone.contains($0) }))
        if !leaving.isEmpty { changes.append(.visibleChanged(visible: visible, added: [], removed: leaving)) }
        return changes
    }

    public mutating func removeAll() -> [MapChange] {
        remove(annotations.map(\.id))
    }

    // MARK: Region

    public mutating func setRegion(_ r: MapRegion) -> [MapChange] {
        guard r != region else { return [] }
        var delta = scratch
        setRegion(r, delta: &delta)
        let changes = [MapChange.regionChanged(r)] + visibleChange(delta)
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
    /// wanted (``visible``). Nothing is allocated once `delta` has the capacity.
    /// Below ``indexThreshold`` pins each list is in the order the pins were
    /// added; above it, in the grid's order (cells south to north, west to east;
    /// the same for the same pins and regions): sort them for the order of addition.
    public mutating func setRegion(_ r: MapRegion, delta: inout VisibleDelta) {
        delta.added.removeAll(keepingCapacity: true)
        delta.removed.removeAll(keepingCapacity: true)
        let old = region
        region = r
        guard old != r else { return }
        if annotations.count <= indexThreshold {
            for i in coordinates.indices {
                let inside = r.contains(coordinates[i])
                if inside != visibleMask[i] { mark(i, inside, into: &delta) }
            }
            return
        }
        if grid == nil { grid = PointGrid(coordinates) }
        guard let grid else { return }
        let now = Self.boxes(r)
        let before = old.map(Self.boxes)
        // Cells wholly inside both rectangles cannot change: only the strips a pan uncovers and covers are read.
        var both: PointGrid.Box?
        if now.1 == nil, let before, before.1 == nil { both = now.0.intersection(before.0) }
        // Two passes per box pair, written out: an array of boxes would allocate on every pan.
        grid.forEachInBox(now.0, skippingCellsInside: both) { i in
            if !visibleMask[i] && r.contains(coordinates[i]) { mark(i, true, into: &delta) }
        }
        if let second = now.1 {
            grid.forEachInBox(second, skippingCellsInside: both) { i in
                if !visibleMask[i] && r.contains(coordinates[i]) { mark(i, true, into: &delta) }
            }
        }
        guard let before else { return }
        grid.forEachInBox(before.0, skippingCellsInside: both) { i in
            if visibleMask[i] && !r.contains(coordinates[i]) { mark(i, false, into: &delta) }
        }
        if let second = before.1 {
            grid.forEachInBox(second, skippingCellsInside: both) { i in
                if visibleMask[i] && !r.contains(coordinates[i]) { mark(i, false, into: &delta) }
            }
        }
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

    // MARK: Selection

    public mutating func select(_ id: String) -> Result<[MapChange], MapError> {
        guard indexOf[id] != nil else { return .failure(.notOnMap(id)) }
        guard selected != id else { return .success([]) }
        var changes: [MapChange] = []
        if let old = selected { changes.append(.deselected(old)) }
        selected = id
        changes.append(.selected(id))
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
        return [.deselected(s)]
    }

    // MARK: User location

    public mutating func updateUserLocation(_ c: Coordinate) -> [MapChange] {
        userLocation = c
        var changes: [MapChange] = [.userLocationChanged(c)]
        if trackingMode == .follow { changes += setCenter(c) }
        return changes
    }

    // MARK: Visible set

    private mutating func mark(_ i: Int, _ inside: Bool, into delta: inout VisibleDelta) {
        visibleMask[i] = inside
        if inside {
            visibleCount += 1
            delta.added.append(i)
        } else {
            visibleCount -= 1
            delta.removed.append(i)
        }
    }

    private func visibleChange(_ delta: VisibleDelta) -> [MapChange] {
        guard !delta.added.isEmpty || !delta.removed.isEmpty else { return [] }
        return [.visibleChanged(visible: visible, added: delta.added.sorted().map { annotations[$0].id },
                                removed: delta.removed.sorted().map { annotations[$0].id })]
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
/// indices into ``MapModel/annotations`` (see ``MapModel/setRegion(_:delta:)`` for their order).
public struct VisibleDelta: Equatable, Sendable {
    public var added: [Int] = []
    public var removed: [Int] = []

    public init() {}
}
