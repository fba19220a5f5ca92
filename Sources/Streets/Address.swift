import Foundation
import Geodesy

/// One address from OpenStreetMap: a node or way tagged with `addr:street`
/// (or `addr:place`, for a number that belongs to a square or hamlet rather
/// than a street), and the `addr:*` tags and `name` beside it.
public struct Address: Equatable, Sendable {
    /// The element's id as OpenStreetMap names it: `node/ID` or `way/ID`.
    public var id: String
    /// `name`: a building's or a business's own name.
    public var name: String?
    /// `addr:housenumber` as written (`12`, `12bis`, `3-5`).
    public var houseNumber: String?
    /// `addr:street`, else `addr:place`.
    public var street: String
    /// `addr:city`.
    public var city: String?
    /// `addr:suburb`.
    public var suburb: String?
    /// `addr:postcode`.
    public var postcode: String?
    /// `addr:state`, else `addr:province`.
    public var state: String?
    /// `addr:country` when it is a two-letter code (OpenStreetMap's convention, ISO 3166-1 alpha-2), upper-cased.
    public var countryCode: String?
    /// A node's position; a way's centroid (see ``AddressIndex``).
    public var coordinate: Coordinate
    /// Node before way, then by id: the order of results that are otherwise equal.
    let order: ElementOrder

    /// An address of the element `kind`/`number` (`kind` `node` or `way`).
    public init(kind: ElementKind, number: Int64, name: String? = nil, houseNumber: String? = nil, street: String, city: String? = nil,
                suburb: String? = nil, postcode: String? = nil, state: String? = nil, countryCode: String? = nil, coordinate: Coordinate) {
        id = "\(kind.rawValue)/\(number)"
        self.name = name
        self.houseNumber = houseNumber
        self.street = street
        self.city = city
        self.suburb = suburb
        self.postcode = postcode
        self.state = state
        self.countryCode = countryCode
        self.coordinate = coordinate
        order = ElementOrder(kind: kind, number: number)
    }

    /// The kind of element an address stands on.
    public enum ElementKind: String, Sendable {
        /// A node: an entrance, a shop, a house drawn as a point.
        case node
        /// A way: mostly a building's outline.
        case way
    }

    /// What a placemark is called: the element's `name`, else ``streetLine``.
    public var title: String { name ?? streetLine }

    /// The English name of the country `countryCode` names (`Monaco` for
    /// `MC`), from Foundation's locale data; `nil` without a code.
    public var countryName: String? {
        countryCode.flatMap { Locale(identifier: "en_US_POSIX").localizedString(forRegionCode: $0) }
    }

    /// How a postal address starts: the house number, then the street
    /// (`12 Avenue de la Costa`), or the street alone.
    public var streetLine: String {
        houseNumber.map { "\($0) \(street)" } ?? street
    }
}

/// Node before way, then by id.
struct ElementOrder: Comparable, Hashable, Sendable {
    var kind: Address.ElementKind
    var number: Int64

    static func < (a: ElementOrder, b: ElementOrder) -> Bool {
        if a.kind != b.kind { return a.kind == .node }
        return a.number < b.number
    }
}
