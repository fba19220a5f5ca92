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
}
