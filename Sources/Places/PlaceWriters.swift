import Traces

/// Places written as the files Stroll reads back and GIS tools open: CSV with
/// the header `id,name,subtitle,latitude,longitude,group` (one quoting rule,
/// ``Traces/CSVField``), a JSON array of `{id, name, subtitle, latitude, longitude,
/// group}`, or a GeoJSON FeatureCollection of points. Coordinates are written
/// with the shortest digits that read back to the same doubles, so a place
/// file written and read again holds the very same coordinates.
public enum PlaceWriter {
    public static let csvHeader = "id,name,subtitle,latitude,longitude,group"

    public static func csv(_ places: some Sequence<Place>) -> String {
        var text = csvHeader + "\n"
        for p in places {
            text += "\(CSVField.quoted(p.id)),\(CSVField.quoted(p.name)),\(CSVField.quoted(p.subtitle ?? "")),"
            text += "\(p.coordinate.latitude),\(p.coordinate.longitude),\(CSVField.quoted(p.group))\n"
        }
        return text
    }

    public static func json(_ places: some Sequence<Place>) -> String {
        JSON.array(places.map { p in
            .object([("id", .string(p.id)), ("name", .string(p.name)), ("subtitle", .optional(p.subtitle)),
                     ("latitude", .number(p.coordinate.latitude)), ("longitude", .number(p.coordinate.longitude)), ("group", .string(p.group))])
        }).text + "\n"
    }

    public static func geoJSON(_ places: some Sequence<Place>) -> String {
        JSON.object([("type", .string("FeatureCollection")), ("features", .array(places.map { p in
            .object([("type", .string("Feature")), ("id", .string(p.id)),
                     ("geometry", .object([("type", .string("Point")), ("coordinates", .array([.number(p.coordinate.longitude), .number(p.coordinate.latitude)]))])),
                     ("properties", .object([("id", .string(p.id)), ("name", .string(p.name)), ("subtitle", .optional(p.subtitle)), ("group", .string(p.group))]))])
        }))]).text + "\n"
    }
}
