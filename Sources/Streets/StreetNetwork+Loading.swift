import Foundation
import Geodesy
import PlacesOSM

extension StreetNetwork {
    /// Builds the walking network of an OpenStreetMap extract (`.osm.pbf` or
    /// `.osm` XML), reading its ways and then its nodes, and keeping only the
    /// nodes that walkable ways and named ways use.
    ///
    /// Throws ``StreetError`` of kind `unreadable` for a missing file,
    /// `badData` for one that is not an extract, and `noWalkableWays` for an
    /// extract with no way a pedestrian may use.
    public static func load(_ path: String) throws(StreetError) -> StreetNetwork {
        var ways: [Way] = []
        var waysRead = 0
        var needed = Set<Int64>()
        var namedWays: [(name: String, id: Int64, node: Int64)] = []
        var locations: [Int64: Coordinate] = [:]
        var crossings = Set<Int64>()
        var places = PlaceNames()
        do {
            try OSMExtract.readWays(path) { (way: OSMWay) throws(OSMError) in
                waysRead += 1
                if let name = way.tags["name"], !way.nodes.isEmpty {
                    let middle = way.nodes[way.nodes.count / 2]
                    namedWays.append((name, way.id, middle))
                    needed.insert(middle)
                }
                guard let use = WalkingRules.use(way.tags) else { return }
                ways.append(Way(id: way.id, use: use, kind: WalkingRules.kind(way.tags), nodes: way.nodes, name: way.tags["name"] ?? way.tags["ref"]))
                needed.formUnion(way.nodes)
            }
            locations.reserveCapacity(needed.count)
            try OSMExtract.readNodes(path) { (node: OSMNode) throws(OSMError) in
                let coordinate: Coordinate
                do throws(Coordinate.Invalid) {
                    coordinate = try Coordinate(latitude: node.latitude, longitude: node.longitude)
                } catch {
                    throw OSMError(file: path, location: "node \(node.id)", reason: error.description)
                }
                if needed.contains(node.id) {
                    locations[node.id] = coordinate
                    if WalkingRules.waitsToCross(node.tags) { crossings.insert(node.id) }
                }
                if let name = node.tags["name"] { places.add(name, rank: .init(isWay: false, id: node.id), coordinate: coordinate) }
            }
        } catch {
            throw StreetError(error.unreadable ? .unreadable : .badData, error.description)
        }
        for way in namedWays {
            if let coordinate = locations[way.node] { places.add(way.name, rank: .init(isWay: true, id: way.id), coordinate: coordinate) }
        }
        let network = StreetNetwork(ways: ways, locations: locations, places: places, waysRead: waysRead, crossings: crossings)
        guard network.summary.edges > 0 else {
            throw StreetError(.noWalkableWays, "\(path): no way a pedestrian may use (of \(waysRead) ways, \(ways.count) walkable by their tags, none with two nodes in the extract)")
        }
        return network
    }

    /// The coordinate that `text` names: `LAT,LON` in degrees, an element's
    /// OpenStreetMap id (`node/ID`, `way/ID`), or the name of a node or way of
    /// the extract, compared without case or diacritics (as `stroll search` compares them). A
    /// name that several places answer is refused with the candidates.
    public func coordinate(of text: String) throws(StreetError) -> Coordinate {
        let text = text.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]) {
            do {
                return try Coordinate(latitude: latitude, longitude: longitude)
            } catch {
                throw StreetError(.outsideNetwork, "\(text): \(error.description)")
            }
        }
        switch places.match(text) {
        case .found(let coordinate):
            return coordinate
        case .none:
            throw StreetError(.unknownPlace, "\"\(text)\" is neither LAT,LON nor the name of a place in the extract")
        case .ambiguous(let candidates, let total):
            let listed = candidates.map { c in
                String(format: "%@ (%@, %.5f,%.5f)", c.name, c.osmID, c.coordinate.latitude, c.coordinate.longitude)
            }
            let more = total > candidates.count ? "; and \(total - candidates.count) more" : ""
            throw StreetError(.ambiguousPlace, "\"\(text)\" names \(total) places: \(listed.joined(separator: "; "))\(more); "
                + "give one by its full name, its id or LAT,LON")
        }
    }
}
