import Foundation

/// An OpenStreetMap node as an extract holds it: its id, location and tags.
public struct OSMNode: Sendable, Equatable {
    /// The node's OpenStreetMap id.
    public var id: Int64
    /// Degrees north, as the file stores it (seven decimals in a PBF).
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// The node's tags; the first value of a key given twice.
    public var tags: [String: String]

    /// A node at `latitude`, `longitude` with `tags`.
    public init(id: Int64, latitude: Double, longitude: Double, tags: [String: String] = [:]) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.tags = tags
    }
}

/// An OpenStreetMap way as an extract holds it: its id, tags and the ids of
/// its nodes in order.
public struct OSMWay: Sendable, Equatable {
    /// The way's OpenStreetMap id.
    public var id: Int64
    /// The way's tags; the first value of a key given twice.
    public var tags: [String: String]
    /// Node ids in the way's order (a closed way repeats its first).
    public var nodes: [Int64]

    /// A way through `nodes` with `tags`.
    public init(id: Int64, tags: [String: String], nodes: [Int64]) {
        self.id = id
        self.tags = tags
        self.nodes = nodes
    }
}

/// The elements of an OpenStreetMap extract (`.osm.pbf` or `.osm` XML, told
/// by the extension as ``OSMPlaces/isExtract(_:)`` tells it), streamed one at
/// a time in file order, in bounded memory: for readers that build their own
/// model of the extract, such as a street network.
public enum OSMExtract {
    /// Calls `visit` with every way of the file.
    public static func readWays(_ path: String, _ visit: (OSMWay) throws(OSMError) -> Void) throws(OSMError) {
        try read(path, kinds: [.way]) { (e: OSMElement) throws(OSMError) in
            try visit(OSMWay(id: e.id, tags: tagDictionary(e.tags), nodes: e.refs))
        }
    }

    /// Calls `visit` with every node of the file.
    public static func readNodes(_ path: String, _ visit: (OSMNode) throws(OSMError) -> Void) throws(OSMError) {
        try read(path, kinds: [.node]) { (e: OSMElement) throws(OSMError) in
            try visit(OSMNode(id: e.id, latitude: Double(e.latitude) / 1e9, longitude: Double(e.longitude) / 1e9, tags: tagDictionary(e.tags)))
        }
    }

    static func read(_ path: String, kinds: Set<OSMElement.Kind>, _ visit: (OSMElement) throws(OSMError) -> Void) throws(OSMError) {
        if path.lowercased().hasSuffix(".pbf") {
            try PBFReader.read(path, kinds: kinds, visit: visit)
        } else {
            try OSMXMLReader.read(path, kinds: kinds, visit: visit)
        }
    }

    private static func tagDictionary(_ tags: [(String, String)]) -> [String: String] {
        tags.isEmpty ? [:] : Dictionary(tags, uniquingKeysWith: { first, _ in first })
    }
}
