import Foundation
import Geodesy
import PlacesOSM

/// The named points of interest of an OpenStreetMap extract, for local
/// search: every node and way with a `name` and a tag that makes it a place
/// people look for (a category of ``PointOfInterestCategory/init(tags:)``,
/// or one of the keys ``PointOfInterest/keys``). Relations are not read.
///
/// Built once in memory with ``load(_:)``; a value, safe to share between
/// threads. ``search(_:categories:in:)`` answers queries.
public struct PointsOfInterest: Sendable {
    /// Every point of interest: the extract's nodes in file order, then its ways.
    public let places: [PointOfInterest]
    /// Named ways of interest left out because the extract lacks their middle node.
    public let waysWithoutLocation: Int
    /// Each place's name folded into words (``SearchText``), in the order of `places`.
    let nameWords: [[String]]

    /// An index of `places`.
    public init(_ places: [PointOfInterest], waysWithoutLocation: Int = 0) {
        self.places = places
        self.waysWithoutLocation = waysWithoutLocation
        nameWords = places.map { SearchText.words($0.name) }
    }

    /// Reads the points of interest of an OpenStreetMap extract (`.osm.pbf`
    /// or `.osm` XML): its ways, then its nodes, keeping only the nodes of
    /// interest and the middle nodes of the ways of interest.
    ///
    /// Throws ``StreetError`` of kind `unreadable` for a missing file and
    /// `badData` for one that is not an extract.
    public static func load(_ path: String) throws(StreetError) -> PointsOfInterest {
        var ways: [(place: PointOfInterest, middle: Int64)] = []
        var needed = Set<Int64>()
        var places: [PointOfInterest] = []
        var locations: [Int64: Coordinate] = [:]
        let unplaced = Coordinate(computedLatitude: 0, longitude: 0)
        do {
            try OSMExtract.readWays(path) { (way: OSMWay) throws(OSMError) in
                guard !way.nodes.isEmpty, let place = Self.place(.way, way.id, way.tags, unplaced) else { return }
                let middle = way.nodes[way.nodes.count / 2]
                ways.append((place, middle))
                needed.insert(middle)
            }
            try OSMExtract.readNodes(path) { (node: OSMNode) throws(OSMError) in
                let isNeeded = needed.contains(node.id)
                let named = node.tags.isEmpty ? nil : PointOfInterest.name(node.tags)
                guard isNeeded || named != nil else { return }
                let coordinate: Coordinate
                do throws(Coordinate.Invalid) {
                    coordinate = try Coordinate(latitude: node.latitude, longitude: node.longitude)
                } catch {
                    throw OSMError(file: path, location: "node \(node.id)", reason: error.description)
                }
                if isNeeded { locations[node.id] = coordinate }
                if let place = Self.place(.node, node.id, node.tags, coordinate) { places.append(place) }
            }
        } catch {
            throw StreetError(error.unreadable ? .unreadable : .badData, error.description)
        }
        var missing = 0
        for (place, middle) in ways {
            guard let coordinate = locations[middle] else {
                missing += 1
                continue
            }
            var placed = place
            placed.coordinate = coordinate
            places.append(placed)
        }
        return PointsOfInterest(places, waysWithoutLocation: missing)
    }

    private static func place(_ element: PointOfInterest.Element, _ id: Int64, _ tags: [String: String], _ coordinate: Coordinate) -> PointOfInterest? {
        guard let (name, category) = PointOfInterest.name(tags) else { return nil }
        return PointOfInterest(element: element, id: id, name: name, coordinate: coordinate, category: category,
                               phone: tags["phone"] ?? tags["contact:phone"],
                               website: tags["website"] ?? tags["contact:website"] ?? tags["url"])
    }
}
