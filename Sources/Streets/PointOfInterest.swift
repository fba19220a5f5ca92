import Foundation
import Geodesy

/// A named place of an OpenStreetMap extract that a local search can find:
/// a shop, a cafe, a museum, a bus stop.
public struct PointOfInterest: Sendable, Equatable {
    /// Whether the place is an OpenStreetMap node or a way.
    public enum Element: String, Sendable, Equatable, Comparable {
        /// A node: the place stands where it is.
        case node
        /// A way (a building, a park): the place stands at its middle node.
        case way

        /// Nodes before ways.
        public static func < (a: Element, b: Element) -> Bool { a == .node && b == .way }
    }

    /// Node or way.
    public var element: Element
    /// The element's OpenStreetMap id.
    public var id: Int64
    /// The `name` tag.
    public var name: String
    /// Where the place stands: a node's location, a way's middle node's.
    public var coordinate: Coordinate
    /// The category its tags give (``PointOfInterestCategory/init(tags:)``), if any.
    public var category: PointOfInterestCategory?
    /// The `phone` tag, else `contact:phone`.
    public var phone: String?
    /// The `website` tag, else `contact:website`, else `url`.
    public var website: String?

    /// A place with these properties.
    public init(element: Element, id: Int64, name: String, coordinate: Coordinate, category: PointOfInterestCategory?,
                phone: String? = nil, website: String? = nil) {
        self.element = element
        self.id = id
        self.name = name
        self.coordinate = coordinate
        self.category = category
        self.phone = phone
        self.website = website
    }

    /// The id as OpenStreetMap writes it: `node/123`, `way/45`.
    public var osmID: String { "\(element.rawValue)/\(id)" }

    /// The keys whose presence makes a named element a point of interest even
    /// when the category table does not map its value (`tourism=attraction`).
    public static let keys: Set<String> = ["amenity", "shop", "tourism", "leisure", "office", "craft", "healthcare", "historic"]

    /// The name a place with `tags` has, when its tags make it a point of
    /// interest: a `name` that is not blank, and a category or one of ``keys``.
    static func name(_ tags: [String: String]) -> (name: String, category: PointOfInterestCategory?)? {
        guard let name = tags["name"]?.trimmingCharacters(in: .whitespaces), !name.isEmpty else { return nil }
        let category = PointOfInterestCategory(tags: tags)
        guard category != nil || tags.keys.contains(where: keys.contains) else { return nil }
        return (name, category)
    }
}
