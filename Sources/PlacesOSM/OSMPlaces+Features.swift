import Foundation
import GEOS
import Geodesy
import Places

/// An OpenStreetMap node or way with every tag it carries and where it stands:
/// what readers other than the place reader (the address index) take from an
/// extract.
public struct OSMTaggedFeature: Equatable, Sendable {
    /// `node` or `way`.
    public enum Kind: Int, Sendable {
        /// A node: a point.
        case node = 0
        /// A way: a line, or an area when closed.
        case way = 1
    }

    /// Whether it is a node or a way.
    public var kind: Kind
    /// Its OpenStreetMap id (unique among elements of its kind).
    public var id: Int64
    /// Every tag, by key (the first of a key given twice).
    public var tags: [String: String]
    /// A node's position; a way's centroid, as ``OSMPlaces`` places a way.
    public var coordinate: Coordinate

    /// A feature as a reader found it.
    public init(kind: Kind, id: Int64, tags: [String: String], coordinate: Coordinate) {
        self.kind = kind
        self.id = id
        self.tags = tags
        self.coordinate = coordinate
    }

    /// `node/ID` or `way/ID`, as OpenStreetMap names an element.
    public var osmID: String { "\(kind == .node ? "node" : "way")/\(id)" }
}

extension OSMPlaces {
    /// The nodes and ways of an extract (`.osm.pbf` or `.osm` XML) whose tags
    /// `matches` accepts, in file order (nodes first, then ways), each with
    /// all its tags: a node where it is, a way at its centroid as ``load(_:filters:groupName:)``
    /// places a way (GEOS, in longitude and latitude: a closed way's polygon, an
    /// open way's line). Relations are not read into features: each relation
    /// `matches` accepts is a rejection saying so, as is a way whose nodes
    /// are not in the extract. Two passes over the file (ways and relations,
    /// then nodes); only the matched ways' nodes are kept.
    public static func features(in path: String, matching matches: ([String: String]) -> Bool) throws(OSMError)
        -> (features: [OSMTaggedFeature], rejected: [PlaceRejection]) {
        let pbf = path.lowercased().hasSuffix(".pbf")
        func read(_ kinds: Set<OSMElement.Kind>, _ visit: (OSMElement) throws(OSMError) -> Void) throws(OSMError) {
            if pbf { try PBFReader.read(path, kinds: kinds, visit: visit) } else { try OSMXMLReader.read(path, kinds: kinds, visit: visit) }
        }
        func dictionary(_ tags: [(String, String)]) -> [String: String] {
            Dictionary(tags, uniquingKeysWith: { first, _ in first })
        }
        var rejected: [PlaceRejection] = []
        var ways: [(id: Int64, tags: [String: String], refs: [Int64])] = []
        var needed = Set<Int64>()
        try read([.way, .relation]) { (e: OSMElement) throws(OSMError) in
            let tags = dictionary(e.tags)
            guard matches(tags) else { return }
            if e.kind == .relation {
                rejected.append(PlaceRejection(file: path, entry: "relation/\(e.id)", reason: "a relation: only nodes and ways are read"))
            } else {
                ways.append((e.id, tags, e.refs))
                needed.formUnion(e.refs)
            }
        }
        var features: [OSMTaggedFeature] = []
        var locations: [Int64: (Int64, Int64)] = [:]
        locations.reserveCapacity(needed.count)
        try read([.node]) { (e: OSMElement) throws(OSMError) in
            if needed.contains(e.id) { locations[e.id] = (e.latitude, e.longitude) }
            let tags = dictionary(e.tags)
            guard !tags.isEmpty, matches(tags) else { return }
            do {
                let coordinate = try Coordinate(latitude: Double(e.latitude) / 1e9, longitude: Double(e.longitude) / 1e9)
                features.append(OSMTaggedFeature(kind: .node, id: e.id, tags: tags, coordinate: coordinate))
            } catch {
                rejected.append(PlaceRejection(file: path, entry: "node/\(e.id)", reason: "\(error)"))
            }
        }
        guard !ways.isEmpty else { return (features, rejected) }
        let context: GEOSContext
        do {
            context = try GEOSContext()
        } catch {
            throw OSMError(file: path, reason: "GEOS: \(error.description)")
        }
        for way in ways {
            switch line(way.refs, locations) {
            case .failure(let reason):
                rejected.append(PlaceRejection(file: path, entry: "way/\(way.id)", reason: reason.description))
            case .success(let points):
                let closed = way.refs.count >= 4 && way.refs.first == way.refs.last
                do {
                    let geometry = closed ? try Geometry.polygon(shell: points, in: context) : try Geometry.lineString(points, in: context)
                    guard let c = try geometry.centroid() else { throw SpatialError.invalidInput("an empty geometry") }
                    let coordinate = try Coordinate(latitude: c.y, longitude: c.x)
                    features.append(OSMTaggedFeature(kind: .way, id: way.id, tags: way.tags, coordinate: coordinate))
                } catch {
                    rejected.append(PlaceRejection(file: path, entry: "way/\(way.id)", reason: "no centroid: \(error)"))
                }
            }
        }
        return (features, rejected)
    }
}
