import Foundation
import Geodesy
import Places
import PlacesGeoPackage
import PlacesOSM
import PlacesPostGIS
import Streets

/// Opens any address source Stroll reads, by path: an OpenStreetMap extract
/// (`.osm.pbf`, `.osm`: `Streets`' `AddressIndex.load(osm:)`), a GeoPackage
/// point layer (`FILE.gpkg` or `FILE.gpkg#LAYER`) or a PostGIS table of
/// points (`postgresql://USER@HOST/DATABASE?table=TABLE[&geometry=COLUMN]`,
/// read as `PlacesPostGIS` reads places: SRID 4326).
///
/// A GeoPackage layer's or a PostGIS table's columns are taken by name, the first present of
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
        if GeoPackagePlaces.isGeoPackage(source) { return try loadGeoPackage(source) }
        if PostGISSource.isPostGIS(source) { return try loadPostGIS(source) }
        guard OSMPlaces.isExtract(source) else {
            throw PlaceSources.Failure(kind: .usage, message: "error: \(source): addresses come from an OpenStreetMap extract (.osm.pbf, .osm), a GeoPackage (.gpkg, .gpkg#LAYER) or a PostGIS table (postgresql://USER@HOST/DATABASE?table=TABLE)")
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

    static func loadGeoPackage(_ source: String) throws(PlaceSources.Failure) -> AddressIndex {
        let read: (layer: String, columns: [String], features: [GeoPackageFeature], rejected: [PlaceRejection])
        do {
            read = try GeoPackagePlaces.features(source)
        } catch {
            throw PlaceSources.Failure(kind: error.kind, message: "error: \(error.description)")
        }
        return try addresses(source: source, layer: "layer \"\(read.layer)\"", prefix: read.layer, columns: read.columns,
                             rows: read.features.map { ($0.fid, "feature \($0.fid)", $0.attributes, $0.coordinate) }, rejected: read.rejected)
    }

    static func loadPostGIS(_ source: String) throws(PlaceSources.Failure) -> AddressIndex {
        let postgis: PostGISSource
        let read: (table: String, columns: [String], features: [PostGISFeature], rejected: [PlaceRejection])
        do {
            postgis = try PostGISSource(source)
            read = try PostGISPlaces.features(postgis)
        } catch {
            throw PlaceSources.Failure(kind: error.kind, message: "error: \(error.description)")
        }
        let prefix = postgis.table.map { String($0.split(separator: ".").last ?? Substring($0)) } ?? "addresses"
        return try addresses(source: postgis.redacted, layer: read.table, prefix: prefix, columns: read.columns,
                             rows: read.features.map { ($0.row, "row \($0.row)", $0.attributes, $0.coordinate) }, rejected: read.rejected)
    }

    /// The addresses of rows whose columns are taken by name (``columns``):
    /// a GeoPackage layer's features or a PostGIS table's rows. `layer` names
    /// the rows' table in messages, `prefix` starts the id of an address
    /// without `osm_id` (`prefix/ROW`).
    static func addresses(source: String, layer: String, prefix: String, columns names: [String],
                          rows: [(id: Int64, entry: String, attributes: [String: String], coordinate: Coordinate)],
                          rejected read: [PlaceRejection]) throws(PlaceSources.Failure) -> AddressIndex {
        let byLowercase = Dictionary(names.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var chosen: [Field: [String]] = [:]
        for (field, names) in columns { chosen[field] = names.compactMap { byLowercase[$0] } }
        let otherTags = byLowercase["other_tags"]
        let osmID = byLowercase["osm_id"]
        guard chosen[.street]?.isEmpty == false || otherTags != nil else {
            throw PlaceSources.Failure(kind: .usage, message: "error: \(source): \(layer) has no street column (addr:street, street, addr:place; columns: \(names.joined(separator: ", ")))")
        }
        var addresses: [Address] = []
        var rejected = read
        for row in rows {
            let tags = otherTags.flatMap { row.attributes[$0] }.map(hstore) ?? [:]
            func value(_ field: Field) -> String? {
                let fromColumns = (chosen[field] ?? []).lazy.compactMap { row.attributes[$0]?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
                if let fromColumns { return fromColumns }
                let keys = (columns.first { $0.field == field }?.names ?? []).filter { $0.hasPrefix("addr:") || $0 == "name" }
                return keys.lazy.compactMap { tags[$0]?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
            }
            guard let street = value(.street) else {
                rejected.append(PlaceRejection(file: source, entry: row.entry, reason: "no street: not an address"))
                continue
            }
            let country = value(.country).flatMap { $0.count == 2 && $0.allSatisfy(\.isLetter) ? $0.uppercased() : nil }
            let osm = osmID.flatMap { row.attributes[$0] }.flatMap { Int64($0) }
            let id = osm.map { "node/\($0)" } ?? "\(prefix)/\(row.id)"
            addresses.append(Address(id: id, sequence: osm ?? row.id, name: value(.name), houseNumber: value(.houseNumber), street: street,
                                     city: value(.city), suburb: value(.suburb), postcode: value(.postcode), state: value(.state),
                                     countryCode: country, coordinate: row.coordinate))
        }
        guard !addresses.isEmpty else {
            let first = rejected.first.map { "; \(rejected.count) rejected, the first \($0.entry): \($0.reason)" } ?? ""
            throw PlaceSources.Failure(kind: .badData, message: "error: \(source): no addresses in \(layer): none has a street\(first)")
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
