import Foundation
import Traces
import Geodesy
import Places
import GEOS

/// A tag filter: `amenity=cafe,restaurant` (those values of the key) or
/// `amenity` (any value). A place's group is the value that matched.
public struct OSMFilter: Equatable, Sendable, CustomStringConvertible {
    public var key: String
    /// The values taken; empty for any.
    public var values: [String]

    public init(key: String, values: [String] = []) {
        self.key = key
        self.values = values
    }

    /// Reads `KEY=V1,V2` or `KEY`; nil when the key is empty.
    public init?(parsing text: String) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let key = parts[0].trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { return nil }
        self.key = key
        values = parts.count > 1 ? parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } : []
        if parts.count > 1, values.isEmpty { return nil }
    }

    public var description: String { values.isEmpty ? key : "\(key)=\(values.joined(separator: ","))" }

    /// The matched value, if the tags match.
    func match(_ tags: [(String, String)]) -> String? {
        guard let value = tags.first(where: { $0.0 == key })?.1 else { return nil }
        return values.isEmpty || values.contains(value) ? value : nil
    }
}

/// Places from OpenStreetMap: an extract as `.osm.pbf` or `.osm` XML, or an
/// Overpass API answer in JSON (`[out:json]` with `out center`).
///
/// The tag filters choose the elements (any filter matching is enough); the
/// matched value is the place's group unless `groupName` names one. Nodes
/// stand where they are. A way stands at its centroid, computed with GEOS in
/// longitude and latitude as a GIS computes it on the data as stored: a
/// closed way's polygon (area-weighted), an open way's line (length-weighted).
/// A `type=multipolygon` relation stands at the centroid of its area: its
/// outer member ways joined into rings by GEOS's polygonizer, less its inner
/// ones. `name`, else `brand`, else the matched tag's value (the place's
/// kind: `cafe`, `fast food` for `fast_food`), is the name; the type and id
/// (`node/123`, `way/45`, `relation/6`) are the place's id, the matched tag
/// (`amenity=cafe`) its subtitle. (The type and id is the name only where
/// the matched value is blank.)
///
/// Streaming in bounded memory: the file is read three times (relations,
/// then ways, then nodes: the order of a sorted extract), and only the nodes
/// and ways the matched features need are kept, never every node. What
/// cannot be placed (a way whose nodes are missing from the extract, a
/// relation that is not a multipolygon or does not close) is a counted,
/// explained rejection.
public enum OSMPlaces {
    /// Whether `path` names an OpenStreetMap extract (by its extension).
    public static func isExtract(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".pbf") || lower.hasSuffix(".osm") || lower.hasSuffix(".osm.xml")
    }

    /// Whether `data` is an Overpass API JSON answer (an object with `elements`).
    public static func isOverpass(_ data: Data) -> Bool {
        let head = String(decoding: data.prefix(4096), as: UTF8.self)
        return head.contains("\"elements\"") && (head.contains("\"osm3s\"") || head.contains("\"generator\"") || head.contains("\"version\""))
    }

    public static func load(_ path: String, filters: [OSMFilter], groupName: String? = nil) throws(OSMError) -> PlaceSet {
        guard !filters.isEmpty else {
            throw OSMError(file: path, reason: "an OpenStreetMap source needs --osm-filter KEY=VALUE,... (for example amenity=cafe) to choose its places")
        }
        let pbf = path.lowercased().hasSuffix(".pbf")
        func read(_ kinds: Set<OSMElement.Kind>, _ visit: (OSMElement) throws(OSMError) -> Void) throws(OSMError) {
            if pbf { try PBFReader.read(path, kinds: kinds, visit: visit) } else { try OSMXMLReader.read(path, kinds: kinds, visit: visit) }
        }
        var builder = Builder(file: path, filters: filters, groupName: groupName)

        // 1. Matched relations, and the ways they are made of.
        var relations: [(OSMElement, String)] = []
        var memberWays = Set<Int64>()
        try read([.relation]) { (e: OSMElement) throws(OSMError) in
            guard let group = builder.group(e) else { return }
            guard e.tag("type") == "multipolygon" else {
                builder.reject(e, "a relation of type \(e.tag("type") ?? "(none)"), not a multipolygon: it has no area to stand at")
                return
            }
            relations.append((e, group))
            for m in e.members where m.kind == .way { memberWays.insert(m.id) }
        }
        // 2. Matched ways and member ways: the nodes they need.
        var ways: [(OSMElement, String)] = []
        var wayNodes: [Int64: [Int64]] = [:]
        var neededNodes = Set<Int64>()
        try read([.way]) { (e: OSMElement) throws(OSMError) in
            if let group = builder.group(e) {
                ways.append((e, group))
                neededNodes.formUnion(e.refs)
            }
            if memberWays.contains(e.id) {
                wayNodes[e.id] = e.refs
                neededNodes.formUnion(e.refs)
            }
        }
        // 3. Matched nodes, and the locations of the needed ones.
        var locations: [Int64: (Int64, Int64)] = [:]
        locations.reserveCapacity(neededNodes.count)
        try read([.node]) { (e: OSMElement) throws(OSMError) in
            if let group = builder.group(e) {
                builder.add(e, group: group, latitude: Double(e.latitude) / 1e9, longitude: Double(e.longitude) / 1e9)
            }
            if neededNodes.contains(e.id) { locations[e.id] = (e.latitude, e.longitude) }
        }
        let context: GEOSContext
        do {
            context = try GEOSContext()
        } catch {
            throw OSMError(file: path, reason: "GEOS: \(error.description)")
        }
        for (way, group) in ways {
            switch line(way.refs, locations) {
            case .failure(let reason): builder.reject(way, reason.description)
            case .success(let points):
                let closed = way.refs.count >= 4 && way.refs.first == way.refs.last
                do throws(SpatialError) {
                    let geometry = closed ? try Geometry.polygon(shell: points, in: context) : try Geometry.lineString(points, in: context)
                    guard let c = try geometry.centroid() else { throw SpatialError.invalidInput("an empty geometry") }
                    builder.add(way, group: group, latitude: c.y, longitude: c.x)
                } catch {
                    builder.reject(way, "no centroid: \(error.description)")
                }
            }
        }
        for (relation, group) in relations {
            do throws(SpatialError) {
                var outer: [Geometry] = [], inner: [Geometry] = []
                for m in relation.members where m.kind == .way {
                    guard let refs = wayNodes[m.id] else { throw SpatialError.invalidInput("its member way \(m.id) is not in the extract") }
                    switch line(refs, locations) {
                    case .failure(let reason): throw SpatialError.invalidInput("member way \(m.id): \(reason.description)")
                    case .success(let points):
                        let geometry = try Geometry.lineString(points, in: context)
                        if m.role == "inner" { inner.append(geometry) } else { outer.append(geometry) }
                    }
                }
                var area = try Geometry.polygonize(outer, in: context).unaryUnion()
                if !inner.isEmpty { area = try area.difference(try Geometry.polygonize(inner, in: context).unaryUnion()) }
                guard !area.isEmpty, let c = try area.centroid() else { throw SpatialError.invalidInput("its outer ways do not close into rings") }
                builder.add(relation, group: group, latitude: c.y, longitude: c.x)
            } catch {
                builder.reject(relation, "no area: \(error.description)")
            }
        }
        return builder.set
    }

    /// A way's points (x longitude, y latitude), or why it cannot be drawn.
    static func line(_ refs: [Int64], _ locations: [Int64: (Int64, Int64)]) -> Result<[PlanePoint], Reason> {
        var points: [PlanePoint] = []
        points.reserveCapacity(refs.count)
        var missing = 0
        for ref in refs {
            guard let (lat, lon) = locations[ref] else {
                missing += 1
                continue
            }
            points.append(PlanePoint(x: Double(lon) / 1e9, y: Double(lat) / 1e9))
        }
        if missing > 0 { return .failure(Reason("\(missing) of its \(refs.count) nodes are not in the extract")) }
        if points.count < 2 { return .failure(Reason("a way of \(points.count) node\(points.count == 1 ? "" : "s")")) }
        return .success(points)
    }

    struct Reason: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Places from an Overpass API JSON answer: nodes at their `lat`/`lon`, ways
    /// and relations at the `center` that `out center` gives (the middle of
    /// their bounding box, as Overpass computes it).
    public static func loadOverpass(_ data: Data, file path: String, filters: [OSMFilter], groupName: String? = nil) throws(OSMError) -> PlaceSet {
        guard !filters.isEmpty else {
            throw OSMError(file: path, reason: "an Overpass answer needs --osm-filter KEY=VALUE,... (for example amenity=cafe) to choose its places")
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw OSMError(file: path, reason: "not JSON: \(ErrorWords.reason(error))")
        }
        guard let elements = (root as? [String: Any])?["elements"] as? [[String: Any]] else {
            throw OSMError(file: path, reason: "not an Overpass answer: no \"elements\" array")
        }
        var builder = Builder(file: path, filters: filters, groupName: groupName)
        for (i, item) in elements.enumerated() {
            guard let type = item["type"] as? String, let kind: OSMElement.Kind = ["node": .node, "way": .way, "relation": .relation][type],
                  let id = (item["id"] as? NSNumber)?.int64Value else {
                builder.set.rejected.append(PlaceRejection(file: path, entry: "element \(i)", reason: "no type and id"))
                continue
            }
            var e = OSMElement(kind: kind, id: id)
            e.tags = ((item["tags"] as? [String: Any]) ?? [:]).compactMap { k, v in (v as? String).map { (k, $0) } }.sorted { $0.0 < $1.0 }
            guard let group = builder.group(e) else { continue }
            let point = kind == .node ? item : item["center"] as? [String: Any]
            guard let lat = (point?["lat"] as? NSNumber)?.doubleValue, let lon = (point?["lon"] as? NSNumber)?.doubleValue else {
                builder.reject(e, kind == .node ? "a node without lat and lon" : "no center: ask Overpass for `out center`")
                continue
            }
            builder.add(e, group: group, latitude: lat, longitude: lon)
        }
        return builder.set
    }

    /// The places and rejections as they are found.
    struct Builder {
        let file: String
        let filters: [OSMFilter]
        let groupName: String?
        var set = PlaceSet()

        func group(_ e: OSMElement) -> String? {
            for filter in filters {
                if let value = filter.match(e.tags) { return groupName ?? value }
            }
            return nil
        }

        mutating func add(_ e: OSMElement, group: String, latitude: Double, longitude: Double) {
            let type = ["node", "way", "relation"][e.kind.rawValue]
            let filter = filters.first { $0.match(e.tags) != nil }
            let value = filter.flatMap { e.tag($0.key) } ?? ""
            let name = e.tag("name") ?? e.tag("brand") ?? Self.kindName(value) ?? "\(type) \(e.id)"
            let matched = filter.map { "\($0.key)=\(value)" }
            do {
                let coordinate = try Coordinate(latitude: latitude, longitude: longitude)
                if !set.groups.contains(group) { set.groups.append(group) }
                set.places.append(Place(id: "\(type)/\(e.id)", name: name, subtitle: matched, coordinate: coordinate, group: group))
            } catch {
                reject(e, error.description)
            }
        }

        /// The name of a place without `name` or `brand`: the value of the
        /// tag it was kept for, its kind (`cafe`, `fast food`: an underscore
        /// read as a space); nil for a blank value.
        static func kindName(_ value: String) -> String? {
            let kind = value.replacingOccurrences(of: "_", with: " ").trimmingCharacters(in: .whitespaces)
            return kind.isEmpty ? nil : kind
        }

        mutating func reject(_ e: OSMElement, _ reason: String) {
            set.rejected.append(PlaceRejection(file: file, entry: "\(["node", "way", "relation"][e.kind.rawValue])/\(e.id)", reason: reason))
        }
    }
}
