import Geodesy
import Spatial

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

    public var description: String {
        switch self {
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
    public private(set) var visible: [String] = []
    public private(set) var userLocation: Coordinate?
    public var trackingMode: TrackingMode = .none
    /// Above this many pins the visible set comes from a GEOS STRtree query. Off by
    /// default: measured on 100 000 pins the linear scan wins (Benchmarks/README.md).
    public var indexThreshold = Int.max

    private var indexOf: [String: Int] = [:]
    private var index: VisibleIndex?

    public init() {}

    public func annotation(_ id: String) -> Annotation? { indexOf[id].map { annotations[$0] } }

    // MARK: Pins

    public mutating func add(_ new: [Annotation]) -> [MapChange] {
        var added: [String] = []
        for a in new {
            if let i = indexOf[a.id] {
                annotations[i] = a
            } else {
                indexOf[a.id] = annotations.count
                annotations.append(a)
                added.append(a.id)
            }
        }
        index = nil
        var changes: [MapChange] = added.isEmpty ? [] : [.annotationsAdded(added)]
        changes += refreshVisible()
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
        annotations.removeAll { gone.contains($0.id) }
        indexOf = Dictionary(uniqueKeysWithValues: annotations.enumerated().map { ($1.id, $0) })
        index = nil
        changes.append(.annotationsRemoved(ids.filter { gone.contains($0) }))
        return changes + refreshVisible()
    }

    public mutating func removeAll() -> [MapChange] {
        remove(annotations.map(\.id))
    }

    // MARK: Region

    public mutating func setRegion(_ r: MapRegion) -> [MapChange] {
        guard r != region else { return [] }
        region = r
        return [.regionChanged(r)] + refreshVisible()
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

    private mutating func refreshVisible() -> [MapChange] {
        let now = computeVisible()
        guard now != visible else { return [] }
        let before = Set(visible), after = Set(now)
        let change = MapChange.visibleChanged(visible: now, added: now.filter { !before.contains($0) }, removed: visible.filter { !after.contains($0) })
        visible = now
        return [change]
    }

    /// Pins inside the region, in the order they were added.
    private mutating func computeVisible() -> [String] {
        guard let r = region else { return [] }
        if annotations.count > indexThreshold, let ids = indexedVisible(r) { return ids }
        return annotations.filter { r.contains($0.coordinate) }.map(\.id)
    }

    private mutating func indexedVisible(_ r: MapRegion) -> [String]? {
        if index == nil { index = VisibleIndex(annotations) }
        guard let hits = index?.query(r) else { return nil }
        return hits.sorted().map { annotations[$0].id }
    }
}

/// A GEOS STRtree over the pins in degrees, for regions over many thousands of pins.
/// Candidates from the tree are confirmed with the exact rectangle test.
struct VisibleIndex {
    private let context: GEOSContext
    private let tree: STRtree<Int>
    private let coordinates: [Coordinate]

    init?(_ annotations: [Annotation]) {
        guard let context = try? GEOSContext(), let tree = try? STRtree<Int>(in: context) else { return nil }
        for (i, a) in annotations.enumerated() {
            guard (try? tree.insert(i, x: a.coordinate.longitude, y: a.coordinate.latitude)) != nil else { return nil }
        }
        self.context = context
        self.tree = tree
        coordinates = annotations.map(\.coordinate)
    }

    func query(_ r: MapRegion) -> [Int]? {
        let minLat = r.center.latitude - r.latitudeDelta / 2, maxLat = r.center.latitude + r.latitudeDelta / 2
        let west = r.center.longitude - r.longitudeDelta / 2, east = r.center.longitude + r.longitudeDelta / 2
        var boxes = [Envelope(minX: max(-180, west), minY: minLat, maxX: min(180, east), maxY: maxLat)]
        if west < -180 { boxes.append(Envelope(minX: west + 360, minY: minLat, maxX: 180, maxY: maxLat)) }
        if east > 180 { boxes.append(Envelope(minX: -180, minY: minLat, maxX: east - 360, maxY: maxLat)) }
        var hits = Set<Int>()
        for box in boxes {
            guard let found = try? tree.query(box) else { return nil }
            hits.formUnion(found)
        }
        return hits.filter { r.contains(coordinates[$0]) }
    }
}
