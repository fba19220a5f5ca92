import Foundation
import Places
import PlacesGeoPackage
import PlacesOSM
import Streets

/// Opens any address source Stroll reads, by path: an OpenStreetMap extract
/// (`.osm.pbf`, `.osm`: `Streets`' `AddressIndex.load(osm:)`) or a GeoPackage
/// point layer (`FILE.gpkg` or `FILE.gpkg#LAYER`).
///
/// A GeoPackage layer's columns are taken by name, the first present of
/// each list (case-insensitive): the street from `addr:street`,
/// `addr_street`, `street`, `addr:place`, `addr_place`; the house number
/// from `addr:housenumber`, `addr_housenumber`, `housenumber`,
/// `house_number`, `number`; the city from `addr:city`, `addr_city`, `city`;
/// the suburb from `addr:suburb`, `addr_suburb`, `suburb`; the postcode from
/// `addr:postcode`, `addr_postcode`, `postcode`, `postal_code`; the state from
/// `addr:state`, `addr_state`, `state`, `addr:province`, `province`; the
/// country code from `addr:country`, `addr_country`, `country`; the name from
/// `name`. Where a layer has GDAL's `other_tags` column (what `ogr2ogr` writes
/// from an OpenStreetMap extract: `"key"=>"value"` pairs), the `addr:*` tags
/// in it fill what the columns leave empty, and its `osm_id` names the
/// address `node/ID`. A feature without a street is not an address; a layer
/// with no street column at all, and one with no address, is an error.
public enum AddressSources {
    /// The addresses of `source`.
    public static func load(_ source: String) throws(PlaceSources.Failure) -> AddressIndex {
        if GeoPackagePlaces.isGeoPackage(source) {
            do {
                return try loadGeoPackage(source)
            } catch {
                throw PlaceSources.Failure(kind: error.kind, message: "error: \(error.description)")
            }
        }
        guard OSMPlaces.isExtract(source) else {
            throw PlaceSources.Failure(kind: .usage, message: "error: \(source): addresses come from an OpenStreetMap extract (.osm.pbf, .osm) or a GeoPackage (.gpkg, .gpkg#LAYER)")
        }
        do {
            return try AddressIndex.load(osm: source)
        } catch {
            throw PlaceSources.Failure(kind: error.unreadable ? .unreadable : .badData, message: "error: \(error.description)")
        }
    }

    /// The column names each address field is read from, first present first.
    static let columns: [(field: Field, names: [String])] = [
        (.street, ["addr:street", "addr_street", "street", "addr:place", "addr_place"]),
        (.houseNumber, ["addr:housenumber", "addr_housenumber", "housenumber", "house_number", "number"]),
        (.city, ["addr:city", "addr_city", "city"]),
        (.suburb, ["addr:suburb", "addr_suburb", "suburb"]),
        (.postcode, ["addr:postcode", "addr_postcode", "postcode", "postal_code"]),
        (.state, ["addr:state", "addr_state", "state", "addr:province", "province"]),
        (.country, ["addr:country", "addr_country", "country"]),
        (.name, ["name"]),
    ]

    enum Field: Hashable {
        case street, houseNumber, city, suburb, postcode, state, country, name
    }

    static func loadGeoPackage(_ source: String) throws(GeoPackageError) -> AddressIndex {
        let read = try GeoPackagePlaces.features(source)
        let byLowercase = Dictionary(read.columns.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var chosen: [Field: [String]] = [:]
        for (field, names) in columns { chosen[field] = names.compactMap { byLowercase[$0] } }
        let otherTags = byLowercase["other_tags"]
        let osmID = byLowercase["osm_id"]
        guard chosen[.street]?.isEmpty == false || otherTags != nil else {
            throw GeoPackageError(file: source, reason: "layer \"\(read.layer)\" has no street column (addr:street, street, addr:place; columns: \(read.columns.joined(separator: ", ")))", kind: .usage)
        }
        var addresses: [Address] = []
        var rejected = read.rejected
        for feature in read.features {
            let tags = otherTags.flatMap { feature.attributes[$0] }.map(hstore) ?? [:]
            func value(_ field: Field) -> String? {
                let fromColumns = (chosen[field] ?? []).lazy.compactMap { feature.attributes[$0]?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
                if let fromColumns { return fromColumns }
                let keys = (columns.first { $0.field == field }?.names ?? []).filter { $0.hasPrefix("addr:") || $0 == "name" }
                return keys.lazy.compactMap { tags[$0]?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
            }
            guard let street = value(.street) else {
                rejected.append(PlaceRejection(file: source, entry: "feature \(feature.fid)", reason: "no street: not an address"))
                continue
            }
            let country = value(.country).flatMap { $0.count == 2 && $0.allSatisfy(\.isLetter) ? $0.uppercased() : nil }
            let osm = osmID.flatMap { feature.attributes[$0] }.flatMap { Int64($0) }
            let id = osm.map { "node/\($0)" } ?? "\(read.layer)/\(feature.fid)"
            addresses.append(Address(id: id, sequence: osm ?? feature.fid, name: value(.name), houseNumber: value(.houseNumber), street: street,
                                     city: value(.city), suburb: value(.suburb), postcode: value(.postcode), state: value(.state),
                                     countryCode: country, coordinate: feature.coordinate))
        }
        guard !addresses.isEmpty else {
            throw GeoPackageError(file: source, reason: "no addresses: no feature of layer \"\(read.layer)\" has a street", kind: .badData)
        }
        return AddressIndex(addresses: addresses, rejected: rejected)
    }

    /// GDAL's `other_tags`: `"key"=>"value","key2"=>"value2"`, `\"` and `\\` escaped.
    static func hstore(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var strings: [String] = []
        var current = ""
        var inside = false, escaped = false
        for ch in text {
            if inside {
                if escaped {
                    current.append(ch)
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == "\"" {
                    inside = false
                    strings.append(current)
                    current = ""
                    if strings.count == 2 {
                        result[strings[0]] = result[strings[0]] ?? strings[1]
                        strings = []
                    }
                } else {
                    current.append(ch)
                }
            } else if ch == "\"" {
                inside = true
            }
        }
        return result
    }
}
