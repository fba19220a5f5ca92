import Foundation
import Geodesy
import Traces

/// The readers of plain place files: CoffeeShop13's property list, JSON,
/// CSV, GeoJSON and KML/KMZ (the format from the file's extension).
extension PlaceSet {
    /// Loads places from the CoffeeShop13 property list, JSON, CSV (docs/CLI.md),
    /// GeoJSON `Point` features (`.geojson`, or `.json` holding a FeatureCollection)
    /// or KML `Point` placemarks (`.kml` or zipped `.kmz`: the placemark's name, its
    /// description as plain text for the subtitle, the file's name as group).
    public static func load(_ path: String) throws(PlaceFileError) -> PlaceSet {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw PlaceFileError(file: path, reason: isDirectory.boolValue ? "is a directory" : "no such file", unreadable: true)
        }
        return try load(data: try contents(path), name: path)
    }

    /// Loads places from bytes; `name` stands for the file (its extension picks the format).
    public static func load(data: Data, name: String) throws(PlaceFileError) -> PlaceSet {
        let stem = ((name as NSString).lastPathComponent as NSString).deletingPathExtension
        var set: PlaceSet
        switch (name as NSString).pathExtension.lowercased() {
        case "plist":
            set = try loadPropertyList(data, file: name)
        case "csv":
            set = try loadCSV(data, file: name, defaultGroup: stem)
        case "kml", "kmz":
            set = try loadKML(data, file: name, group: stem)
        case "json", "":
            set = try loadJSON(data, file: name, defaultGroup: stem)
        case let ext:
            do {
                set = try loadJSON(data, file: name, defaultGroup: stem)
            } catch {
                let trace = ["gpx", "tcx", "nmea", "plt", "gz", "fit"].contains(ext) ? " (a .\(ext) file is a trace: give it as the walk to replay)" : ""
                throw PlaceFileError(file: name, reason: "not a file of places that Stroll reads\(trace); places come from the CoffeeShop13 "
                                     + "property list (.plist), JSON (.json), CSV (.csv), GeoJSON (.geojson), KML (.kml, .kmz), "
                                     + "OpenStreetMap (.osm.pbf, .osm, Overpass JSON), GeoPackage (.gpkg) or PostGIS (postgresql://…)",
                                     unreadable: false)
            }
        }
        set.rejectDuplicateIDs(file: name)
        return set
    }

    private static func contents(_ path: String) throws(PlaceFileError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PlaceFileError(file: path, reason: "cannot be read", unreadable: true)
        }
        return data
    }

    /// The CoffeeShop13 list as it shipped: an array of two unlabelled groups,
    /// Liverpool then Cupertino; each entry `name`, `comments`, `latitude`, `longitude`.
    static func loadPropertyList(_ data: Data, file path: String) throws(PlaceFileError) -> PlaceSet {
        let root: Any
        do {
            // The Swift decoder, not PropertyListSerialization: on Linux the latter leaks its error objects.
            root = try PropertyListDecoder().decode(PlistValue.self, from: data).any
        } catch {
            throw PlaceFileError(file: path, reason: "not a property list: \(ErrorWords.reason(error))", unreadable: false)
        }
        guard let groups = root as? [Any] else {
            throw PlaceFileError(file: path, reason: "the property list is not an array of groups", unreadable: false)
        }
        let names = ["liverpool", "cupertino"]
        var set = PlaceSet()
        for (g, group) in groups.enumerated() {
            let groupName = g < names.count ? names[g] : "group-\(g)"
            set.groups.append(groupName)
            guard let entries = group as? [Any] else {
                set.rejected.append(PlaceRejection(file: path, entry: "group \(groupName)", reason: "is not an array of places"))
                continue
            }
            for (i, entry) in entries.enumerated() {
                let label = "group \(groupName) entry \(i)"
                switch place(entry as? [String: Any], defaultID: "\(groupName)-\(i)", group: groupName, subtitleKeys: ["comments", "subtitle"]) {
                case .success(let p): set.places.append(p)
                case .failure(let reason): set.rejected.append(PlaceRejection(file: path, entry: label, reason: reason.message))
                }
            }
        }
        return set
    }

    static func loadJSON(_ data: Data, file path: String, defaultGroup: String) throws(PlaceFileError) -> PlaceSet {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw PlaceFileError(file: path, reason: "not JSON: \(ErrorWords.reason(error))", unreadable: false)
        }
        var set = PlaceSet()
        var indexInGroup: [String: Int] = [:]
        func add(_ entry: Any, label: String, group explicitGroup: String?) {
            let dict = entry as? [String: Any]
            let group = explicitGroup ?? (dict?["group"] as? String) ?? defaultGroup
            let index = indexInGroup[group, default: 0]
            indexInGroup[group] = index + 1
            if !set.groups.contains(group) { set.groups.append(group) }
            switch place(dict, defaultID: "\(group)-\(index)", group: group, subtitleKeys: ["subtitle", "comments"]) {
            case .success(let p): set.places.append(p)
            case .failure(let reason): set.rejected.append(PlaceRejection(file: path, entry: label, reason: reason.message))
            }
        }
        if let object = root as? [String: Any], let type = object["type"] as? String, type == "FeatureCollection" || type == "Feature" {
            // GeoJSON: Point features; name, description (or subtitle), group and id from the properties.
            let features = type == "Feature" ? [object] : object["features"] as? [[String: Any]] ?? []
            for (i, feature) in features.enumerated() {
                let properties = feature["properties"] as? [String: Any] ?? [:]
                let geometry = feature["geometry"] as? [String: Any]
                guard geometry?["type"] as? String == "Point", let c = geometry?["coordinates"] as? [Any], c.count >= 2 else {
                    set.rejected.append(PlaceRejection(file: path, entry: "feature \(i)", reason: "is not a Point feature"))
                    continue
                }
                var entry = properties
                entry["latitude"] = c[1]
                entry["longitude"] = c[0]
                if entry["subtitle"] == nil { entry["subtitle"] = properties["description"] }
                if entry["id"] == nil { entry["id"] = feature["id"] }
                add(entry, label: "feature \(i)", group: nil)
            }
        } else if let array = root as? [Any] {
            for (i, entry) in array.enumerated() { add(entry, label: "entry \(i)", group: nil) }
        } else if let object = root as? [String: Any], let groups = object["groups"] as? [String: Any] {
            for name in groups.keys.sorted() {
                guard let entries = groups[name] as? [Any] else {
                    set.rejected.append(PlaceRejection(file: path, entry: "group \(name)", reason: "is not an array of places"))
                    continue
                }
                for (i, entry) in entries.enumerated() { add(entry, label: "group \(name) entry \(i)", group: name) }
            }
        } else {
            throw PlaceFileError(file: path, reason: "expected an array of places or {\"groups\": {NAME: [...]}}", unreadable: false)
        }
        return set
    }

    /// KML `Point` placemarks, read by the KML trace reader: each is a place of the group `group`.
    static func loadKML(_ data: Data, file path: String, group: String) throws(PlaceFileError) -> PlaceSet {
        let trace: Trace
        do {
            trace = try TraceReader.read(bytes: data, name: path, format: .kml)
        } catch {
            throw PlaceFileError(file: path, reason: error.description, unreadable: false)
        }
        var set = PlaceSet(groups: [group])
        for (i, point) in trace.waypoints.enumerated() {
            guard let name = point.name, !name.isEmpty else {
                set.rejected.append(PlaceRejection(file: path, entry: "line \(point.line)", reason: "a Point placemark with no name"))
                continue
            }
            set.places.append(Place(id: "\(group)-\(i)", name: name, subtitle: point.description, coordinate: point.coordinate, group: group))
        }
        for r in trace.rejected { set.rejected.append(PlaceRejection(file: path, entry: "line \(r.line)", reason: r.reason)) }
        return set
    }

    static func loadCSV(_ data: Data, file path: String, defaultGroup: String) throws(PlaceFileError) -> PlaceSet {
        let table: CSVTable
        do {
            table = try CSVTable.read(data: data, name: path)
        } catch {
            throw PlaceFileError(file: path, reason: error.reason, unreadable: error.kind == .unreadable)
        }
        let header = table.header.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard header.contains("name"), header.contains("latitude"), header.contains("longitude") else {
            throw PlaceFileError(file: path, reason: "the header must name name, latitude and longitude (and may name id, subtitle, group)", unreadable: false)
        }
        var set = PlaceSet()
        var indexInGroup: [String: Int] = [:]
        for row in table.rows {
            var dict: [String: Any] = [:]
            for (k, key) in header.enumerated() where k < row.fields.count && !row.fields[k].isEmpty {
                dict[key] = key == "latitude" || key == "longitude" ? (Double(row.fields[k].trimmingCharacters(in: .whitespaces)) ?? row.fields[k]) as Any : row.fields[k]
            }
            let group = (dict["group"] as? String) ?? defaultGroup
            let index = indexInGroup[group, default: 0]
            indexInGroup[group] = index + 1
            if !set.groups.contains(group) { set.groups.append(group) }
            switch place(dict, defaultID: "\(group)-\(index)", group: group, subtitleKeys: ["subtitle"]) {
            case .success(let p): set.places.append(p)
            case .failure(let reason): set.rejected.append(PlaceRejection(file: path, entry: "line \(row.line)", reason: reason.message))
            }
        }
        return set
    }

    struct Reason: Error {
        let message: String
    }

    private static func place(_ dict: [String: Any]?, defaultID: String, group: String, subtitleKeys: [String]) -> Result<Place, Reason> {
        guard let dict else { return .failure(Reason(message: "is not an object with name, latitude and longitude")) }
        guard let name = dict["name"] as? String, !name.isEmpty else { return .failure(Reason(message: "has no name")) }
        guard let lat = number(dict["latitude"]) else { return .failure(Reason(message: "\(name): latitude \(describe(dict["latitude"])) is not a number")) }
        guard let lon = number(dict["longitude"]) else { return .failure(Reason(message: "\(name): longitude \(describe(dict["longitude"])) is not a number")) }
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: lat, longitude: lon)
        } catch {
            return .failure(Reason(message: "\(name): \(error.description)"))
        }
        let subtitle = subtitleKeys.lazy.compactMap { dict[$0] as? String }.first
        let id = (dict["id"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? (dict["id"] as? NSNumber).map { "\($0)" } ?? defaultID
        return .success(Place(id: id, name: name, subtitle: subtitle, coordinate: coordinate, group: group))
    }

    private static func number(_ value: Any?) -> Double? {
        if let n = value as? NSNumber, !(value is Bool) { return n.doubleValue.isFinite ? n.doubleValue : nil }
        if let d = value as? Double { return d.isFinite ? d : nil }
        return nil
    }

    private static func describe(_ value: Any?) -> String {
        guard let value else { return "(missing)" }
        return "\"\(value)\""
    }
}

/// Any property-list value, decoded without knowing its shape in advance, so
/// that one bad entry is rejected on its own rather than failing the file.
private enum PlistValue: Decodable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([PlistValue])
    case dictionary([String: PlistValue])
    case other

    init(from decoder: any Decoder) throws {
        if var items = try? decoder.unkeyedContainer() {
            var values: [PlistValue] = []
            while !items.isAtEnd { values.append(try items.decode(PlistValue.self)) }
            self = .array(values)
            return
        }
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var values: [String: PlistValue] = [:]
            for key in keyed.allKeys { values[key.stringValue] = try keyed.decode(PlistValue.self, forKey: key) }
            self = .dictionary(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? single.decode(Double.self) {
            self = .number(d)
        } else if let s = try? single.decode(String.self) {
            self = .string(s)
        } else {
            self = .other
        }
    }

    /// As Foundation's property-list objects: numbers as NSNumber, strings, arrays, dictionaries.
    var any: Any {
        switch self {
        case .string(let s): return s
        case .number(let d): return NSNumber(value: d)
        case .bool(let b): return b
        case .array(let a): return a.map(\.any)
        case .dictionary(let d): return d.mapValues(\.any)
        case .other: return NSNull()
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
