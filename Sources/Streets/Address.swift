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
    /// Node before way, then by id (another source's features after both, by
    /// their sequence): the order of results that are otherwise equal.
    var order: ElementOrder

    /// An address of the OpenStreetMap element `kind`/`number`.
    public init(kind: ElementKind, number: Int64, name: String? = nil, houseNumber: String? = nil, street: String, city: String? = nil,
                suburb: String? = nil, postcode: String? = nil, state: String? = nil, countryCode: String? = nil, coordinate: Coordinate) {
        self.init(id: "\(kind.rawValue)/\(number)", sequence: number, name: name, houseNumber: houseNumber, street: street, city: city,
                  suburb: suburb, postcode: postcode, state: state, countryCode: countryCode, coordinate: coordinate)
        order = ElementOrder(rank: kind == .node ? 0 : 1, number: number)
    }

    /// An address of another source: `id` as the source names the feature
    /// (`addresses/17`, a GeoPackage layer's feature 17), `sequence` its place
    /// among results that are otherwise equal (the feature id).
    public init(id: String, sequence: Int64, name: String? = nil, houseNumber: String? = nil, street: String, city: String? = nil,
                suburb: String? = nil, postcode: String? = nil, state: String? = nil, countryCode: String? = nil, coordinate: Coordinate) {
        self.id = id
        self.name = name
        self.houseNumber = houseNumber
        self.street = street
        self.city = city
        self.suburb = suburb
        self.postcode = postcode
        self.state = state
        self.countryCode = countryCode
        self.coordinate = coordinate
        order = ElementOrder(rank: 2, number: sequence)
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

    /// The time zone identifier of the address's country when the country
    /// has one zone (``CountryTimeZones``); nil without a country code or
    /// for a country of several zones.
    public var timeZoneIdentifier: String? {
        countryCode.flatMap(CountryTimeZones.identifier(country:))
    }

    /// How a postal address starts: the house number, then the street
    /// (`12 Avenue de la Costa`), or the street alone.
    public var streetLine: String {
        houseNumber.map { "\($0) \(street)" } ?? street
    }
}

/// Node (rank 0) before way (1) before another source's feature (2), then by id.
struct ElementOrder: Comparable, Hashable, Sendable {
    var rank: Int
    var number: Int64

    static func < (a: ElementOrder, b: ElementOrder) -> Bool {
        (a.rank, a.number) < (b.rank, b.number)
    }
}
