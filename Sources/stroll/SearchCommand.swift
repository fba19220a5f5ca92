import ArgumentParser
import Foundation
import Geodesy
import Streets
import Traces

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "The named points of interest of an OpenStreetMap extract that match words, categories and an area.",
        discussion: """
        The search MKLocalSearch answers (docs/Search.md): QUERY's words, without case or \
        diacritics, each the start of a word of the place's name or a word of its category \
        ("cafe", "coffee"); every --category kept (MapKit's names: cafe, restaurant, \
        publicTransport…); within --radius metres of --near, or inside the --span \
        (DLAT,DLON degrees) around it. Ordered by geodesic distance from --near, then name, \
        then element and id; without --near, by name. --json prints a list of objects: osm \
        (node/ID or way/ID), name, category (null without one), lat, lon, distance_m (null \
        without --near), phone, website. No result: an empty list, exit 0.

        Exit codes: 64 for bad options; 65 for a coordinate out of range or a file that is not \
        an extract; 66 when the extract is missing.

        Examples:
          stroll search --osm Fixtures/osm/monaco-latest.osm.pbf \\
              --near 43.7394,7.4270 --radius 500 cafe
          stroll search --osm Fixtures/osm/monaco-latest.osm.pbf \\
              --category cafe --json
        """
    )

    @Argument(help: ArgumentHelp("The words to look for (none: every place the other options keep).", valueName: "QUERY"))
    var query: [String] = []

    @Option(help: ArgumentHelp("The OpenStreetMap extract (.osm.pbf or .osm) to search.", valueName: "FILE"))
    var osm: String?

    @Option(help: ArgumentHelp("Keep the places of this category (MapKit's name); repeatable.", valueName: "NAME"))
    var category: [String] = []

    @Option(help: ArgumentHelp("The centre of the area searched and of the order.", valueName: "LAT,LON"))
    var near: String?

    @Option(help: ArgumentHelp("Keep the places within this many metres of --near.", valueName: "M"))
    var radius: Double?

    @Option(help: ArgumentHelp("Keep the places inside this span of latitude and longitude around --near.", valueName: "DLAT,DLON"))
    var span: String?

    @Flag(help: "Print a JSON list: osm, name, category, lat, lon, distance_m, phone, website.")
    var json = false

    func validate() throws {
        guard osm != nil else { throw ValidationError("a search needs --osm FILE, the OpenStreetMap extract to search") }
        for name in category where PointOfInterestCategory(name: name) == nil {
            throw ValidationError("--category \(name) is not one of MapKit's: \(PointOfInterestCategory.allCases.map(\.name).joined(separator: ", "))")
        }
        if radius != nil || span != nil, near == nil { throw ValidationError("--radius and --span need --near") }
        if radius != nil, span != nil { throw ValidationError("--radius and --span cannot be given together") }
        if let radius, !(radius >= 0 && radius.isFinite) { throw ValidationError("--radius must be a distance in metres") }
        if let near, Self.pair(near) == nil { throw ValidationError("--near \(near) is not LAT,LON") }
        if let span, !(Self.pair(span).map { $0.0 > 0 && $0.1 > 0 } ?? false) {
            throw ValidationError("--span \(span) is not DLAT,DLON in degrees, both more than 0")
        }
    }

    static func pair(_ text: String) -> (Double, Double)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let a = Double(parts[0]), let b = Double(parts[1]), a.isFinite, b.isFinite else { return nil }
        return (a, b)
    }

    func area() throws -> SearchArea {
        guard let near, let (latitude, longitude) = Self.pair(near) else { return .everywhere }
        let center: Coordinate
        do {
            center = try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            throw failure("error: --near \(near): \(error.description)", StrollExit.badInput)
        }
        if let radius { return .circle(center: center, radius: radius) }
        if let span, let (dLat, dLon) = Self.pair(span) { return .region(center: center, latitudeDelta: dLat, longitudeDelta: dLon) }
        return .region(center: center, latitudeDelta: 180, longitudeDelta: 360)
    }

    func run() throws {
        let area = try area()
        let places: PointsOfInterest
        do {
            places = try PointsOfInterest.load(osm ?? "")
        } catch {
            throw failure("error: \(error.description)", error.kind == .unreadable ? StrollExit.missingInput : StrollExit.badInput)
        }
        let categories = Set(category.compactMap(PointOfInterestCategory.init(name:)))
        let found = places.search(query.joined(separator: " "), categories: categories.isEmpty ? .includingAll : .including(categories), in: area)
        if json {
            print(JSON.array(found.map { f in
                JSON.object([
                    ("osm", .string(f.place.osmID)), ("name", .string(f.place.name)), ("category", .optional(f.place.category?.name)),
                    ("lat", .number(f.place.coordinate.latitude)), ("lon", .number(f.place.coordinate.longitude)),
                    ("distance_m", .optional(f.distance)), ("phone", .optional(f.place.phone)), ("website", .optional(f.place.website)),
                ])
            }).text)
        } else {
            for f in found {
                let distance = f.distance.map { String(format: "%8.1f m  ", $0) } ?? ""
                print("\(distance)\(f.place.name)  \(f.place.category?.name ?? "-")  \(f.place.osmID)")
            }
        }
    }
}
