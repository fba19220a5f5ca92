import Foundation
import Geodesy
import PlacesGeoPackage
import PlaceSources
import Streets
import Testing
import TestSupport

@Suite("Addresses from an OpenStreetMap extract or a GeoPackage layer")
struct AddressSourcesTests {
    /// A GeoPackage of addresses: plain columns, GDAL's other_tags, a feature without a street.
    func addressLayer(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("addresses.gpkg").path
        let writer = try GeoPackageWriter(path: path)
        try writer.addPointLayer("addresses", columns: [("Street", .text), ("housenumber", .text), ("city", .text), ("name", .text), ("other_tags", .text)],
                                 description: "addresses")
        try writer.insert("addresses", at: try Coordinate(latitude: 43.74, longitude: 7.42),
                          [.text("Rue de l'Église"), .text("12"), .text("Monaco"), .null, .text("\"addr:postcode\"=>\"98000\",\"addr:country\"=>\"MC\"")])
        try writer.insert("addresses", at: try Coordinate(latitude: 43.741, longitude: 7.421),
                          [.null, .null, .null, .text("Café \"du\" Port"), .text("\"addr:street\"=>\"Quai \\\"Albert\\\" Ier\",\"addr:housenumber\"=>\"3\"")])
        try writer.insert("addresses", at: try Coordinate(latitude: 43.742, longitude: 7.422), [.null, .text("7"), .null, .null, .null])
        try writer.finish()
        return path
    }

    @Test("a GeoPackage layer: street, number and city by column, the rest from other_tags; a feature without a street rejected")
    func geoPackage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-addresses-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let index = try AddressSources.load(try addressLayer(in: dir))
        #expect(index.addresses.map(\.id) == ["addresses/1", "addresses/2"])
        let first = index.addresses[0]
        #expect(first.street == "Rue de l'Église" && first.houseNumber == "12" && first.city == "Monaco" && first.postcode == "98000" && first.countryCode == "MC")
        #expect(index.addresses[1].street == "Quai \"Albert\" Ier" && index.addresses[1].houseNumber == "3" && index.addresses[1].name == "Café \"du\" Port")
        #expect(index.rejected.map(\.entry) == ["feature 3"])
        #expect(index.search("12 rue de l'eglise, 98000").map(\.id) == ["addresses/1"])
        #expect(index.nearest(to: try Coordinate(latitude: 43.7411, longitude: 7.4211))?.address.id == "addresses/2")
    }

    @Test("the extract's addresses are AddressIndex.load(osm:)'s; a source that holds none, or is not one, is an error of its kind")
    func failures() throws {
        let monaco = try AddressSources.load(fixture("osm/monaco-latest.osm.pbf"))
        #expect(monaco.addresses == (try AddressIndex.load(osm: fixture("osm/monaco-latest.osm.pbf"))).addresses)
        #expect(throws: PlaceSources.Failure.self) { try AddressSources.load(fixture("lecture-theatres.json")) }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-addresses-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let theatres = dir.appendingPathComponent("theatres.gpkg").path
        try GeoPackageWriter.write([], layer: "theatres", to: theatres)
        do {
            _ = try AddressSources.load(theatres)
            Issue.record("a layer without a street column read as addresses")
        } catch {
            #expect(error.kind == .usage && error.message.contains("no street column"))
        }
        do {
            _ = try AddressSources.load(dir.appendingPathComponent("missing.gpkg").path)
            Issue.record("a missing GeoPackage read as addresses")
        } catch {
            #expect(error.kind == .unreadable)
        }
    }
}
