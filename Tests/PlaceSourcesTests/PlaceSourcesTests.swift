import Foundation
import Places
import PlacesGeoPackage
import PlacesOSM
import PlaceSources
import Testing
import TestSupport

@Suite("Any place source by path or URI, without the command line")
struct PlaceSourcesTests {
    @Test("a plain file, an OpenStreetMap extract with a filter, a GeoPackage layer: the same places as each reader gives")
    func sources() throws {
        let plist = try PlaceSources.load(fixture("CityCycleRideLocations.plist"))
        #expect(plist.places == (try PlaceSet.load(fixture("CityCycleRideLocations.plist"))))
        #expect(plist.places.groups == ["liverpool", "cupertino"] && plist.notes.isEmpty)

        let filter = try #require(OSMFilter(parsing: "amenity=cafe"))
        let monaco = try PlaceSources.load(fixture("osm/monaco-latest.osm.pbf"), options: .init(osmFilters: [filter]))
        #expect(monaco.places == (try OSMPlaces.load(fixture("osm/monaco-latest.osm.pbf"), filters: [filter])))
        #expect(monaco.places.places.count > 10 && monaco.places.groups == ["cafe"])

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let gpkg = dir.appendingPathComponent("theatres.gpkg").path
        let theatres = try PlaceSet.load(fixture("lecture-theatres.json"))
        try GeoPackageWriter.write(theatres.places, layer: "theatres", to: gpkg)
        let read = try PlaceSources.load(gpkg + "#theatres")
        #expect(read.places.places.map(\.id) == theatres.places.map(\.id))
        #expect(read.places.places.map(\.coordinate) == theatres.places.map(\.coordinate))
    }

    @Test("failures keep their kind: a missing file is missing input, an OSM source without a filter a usage error, a bad URI too")
    func failures() {
        let missing = #expect(throws: PlaceSources.Failure.self) { try PlaceSources.load("/nonexistent/places.json") }
        #expect(missing?.kind == .unreadable && missing?.message.contains("/nonexistent/places.json") == true)
        let unfiltered = #expect(throws: PlaceSources.Failure.self) { try PlaceSources.load(fixture("osm/monaco-latest.osm.pbf")) }
        #expect(unfiltered?.kind == .usage && unfiltered?.message.contains("--osm-filter") == true)
        let uri = #expect(throws: PlaceSources.Failure.self) { try PlaceSources.load("postgresql://ann:secret@h:99999/db?table=t") }
        #expect(uri?.kind == .usage && uri?.message.contains("secret") == false)
    }

    @Test("every place format written reads back as the same places; the format is told by the name; statistics count groups, bounds and skips")
    func writeAndCount() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-write-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try PlaceSources.load(fixture("CityCycleRideLocations.plist")).places
        for format in PlaceSources.OutputFormat.allCases {
            let name = dir.appendingPathComponent("places.\(format.rawValue)").path + (format == .gpkg ? "#stations" : "")
            #expect(PlaceSources.OutputFormat(fileName: name) == format)
            let written = try PlaceSources.write(source.places, as: format, to: name)
            #expect(written == (format == .gpkg ? String(name.dropLast("#stations".count)) : name))
            let back = try PlaceSources.load(name).places
            #expect(back.places.map(\.id) == source.places.map(\.id), "\(format)")
            #expect(back.places.map(\.coordinate) == source.places.map(\.coordinate), "\(format)")
            #expect(back.places.map(\.group) == source.places.map(\.group), "\(format)")
        }
        #expect(PlaceSources.OutputFormat(fileName: "places.txt") == nil)
        let unwritable = #expect(throws: PlaceSources.Failure.self) { try PlaceSources.write(source.places, as: .csv, to: "/nonexistent/dir/p.csv") }
        #expect(unwritable?.message.contains("/nonexistent/dir/p.csv") == true)

        let stats = PlaceStatistics(source)
        #expect(stats.count == source.places.count)
        #expect(stats.groups.map(\.name) == ["liverpool", "cupertino"])
        #expect(stats.groups.map(\.count).reduce(0, +) == stats.count)
        let lats = source.places.map(\.coordinate.latitude)
        #expect(stats.bounds?.minLatitude == lats.min() && stats.bounds?.maxLatitude == lats.max())
        let empty = PlaceStatistics(PlaceSet())
        #expect(empty.bounds == nil && empty.json.text.contains("\"bounds\":null"))
    }

    @Test("the groups a replay ranks: those chosen (an unknown one is an error naming the set's groups), else the defaults the set has, else all")
    func groups() throws {
        let set = try PlaceSources.load(fixture("CityCycleRideLocations.plist")).places
        #expect(try set.groups(chosen: ["cupertino"]) == ["cupertino"])
        #expect(try set.groups(chosen: [], defaults: ["liverpool", "lecture-theatres"]) == ["liverpool"])
        #expect(try set.groups(chosen: []) == set.groups)
        let unknown = #expect(throws: PlaceSet.UnknownGroup.self) { try set.groups(chosen: ["paris"]) }
        #expect(unknown?.description == "unknown group \"paris\"; the groups are: liverpool, cupertino")
    }
}
