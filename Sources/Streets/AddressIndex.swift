import Foundation
import Geodesy
import Places
import PlacesOSM

/// The addresses of an OpenStreetMap extract, for reverse geocoding (the
/// nearest address to a coordinate, ``nearest(to:within:)``) and forward
/// geocoding (the addresses an address string names, ``search(_:)``).
///
/// An address is a node or a way with `addr:street` or `addr:place`; its
/// `addr:housenumber`, `addr:city`, `addr:suburb`, `addr:postcode`,
/// `addr:state` (else `addr:province`), `addr:country` and `name` come with
/// it. A node stands where it is; a way (a building's outline, mostly)
/// stands at its centroid, as `stroll places` places a way: GEOS's centroid
/// of its polygon (closed) or line (open) in longitude and latitude. An
/// element with `addr:housenumber` and no street or place is not an address
/// (nothing to name it by). Relations are not read: each one with an
/// address is a rejection in ``rejected``, as is a way with nodes missing
/// from the extract. docs/Geocoding.md has the rules and the measured times.
public struct AddressIndex: Sendable {
    /// The addresses, nodes in file order then ways in file order.
    public let addresses: [Address]
    /// What had an address and could not be indexed, with why.
    public let rejected: [PlaceRejection]
    /// The indices of `addresses` by latitude, for the reverse lookup's band.
    let byLatitude: [Int]
    /// Each address's tokens, for the forward lookup.
    let tokens: [AddressTokens]
    /// The addresses whose street's or name's first token is the key.
    let byFirstToken: [String: [Int]]

    /// An index of the given addresses (`rejected` carried along as the
    /// source's own account of what it left out).
    public init(addresses: [Address], rejected: [PlaceRejection] = []) {
        self.addresses = addresses
        self.rejected = rejected
        byLatitude = addresses.indices.sorted {
            (addresses[$0].coordinate.latitude, addresses[$0].order) < (addresses[$1].coordinate.latitude, addresses[$1].order)
        }
        tokens = addresses.map(AddressTokens.init)
        var first: [String: [Int]] = [:]
        for (i, t) in tokens.enumerated() {
            for key in Set([t.street.first, t.name.first].compactMap { $0 }) { first[key, default: []].append(i) }
        }
        byFirstToken = first
    }

    /// The addresses of an `.osm.pbf` or `.osm` XML extract. Throws when the
    /// file cannot be read, and when it holds no address at all (an
    /// extract without `addr:*` data answers nothing, which is a mistake
    /// worth saying rather than an empty index).
    public static func load(osm path: String) throws(OSMError) -> AddressIndex {
        let read = try OSMPlaces.features(in: path) { tags in tags["addr:street"] != nil || tags["addr:place"] != nil }
        var addresses: [Address] = []
        addresses.reserveCapacity(read.features.count)
        for feature in read.features {
            let tags = feature.tags
            func tag(_ key: String) -> String? {
                guard let value = tags[key]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
                return value
            }
            guard let street = tag("addr:street") ?? tag("addr:place") else { continue }
            let country = tag("addr:country").flatMap { $0.count == 2 && $0.allSatisfy(\.isLetter) ? $0.uppercased() : nil }
            addresses.append(Address(kind: feature.kind == .node ? .node : .way, number: feature.id, name: tag("name"),
                                     houseNumber: tag("addr:housenumber"), street: street, city: tag("addr:city"), suburb: tag("addr:suburb"),
                                     postcode: tag("addr:postcode"), state: tag("addr:state") ?? tag("addr:province"), countryCode: country,
                                     coordinate: feature.coordinate))
        }
        guard !addresses.isEmpty else {
            throw OSMError(file: path, reason: "no addresses: no node or way has addr:street or addr:place (\(read.rejected.count) relations or ways left out)")
        }
        return AddressIndex(addresses: addresses, rejected: read.rejected)
    }
}
