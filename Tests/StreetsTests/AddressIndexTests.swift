import Foundation
import Geodesy
import PlacesOSM
import Streets
import Testing
import TestSupport

/// A small extract: two numbered houses on one street (one a node, one a
/// closed way), a named shop on another, a house number without a street,
/// an address on a relation, and a way whose nodes are missing.
let streetsXML = """
<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6">
  <node id="1" lat="43.7400000" lon="7.4200000">
    <tag k="addr:housenumber" v="12"/><tag k="addr:street" v="Rue de l'Église"/>
    <tag k="addr:city" v="Monaco"/><tag k="addr:postcode" v="98000"/><tag k="addr:country" v="mc"/>
  </node>
  <node id="2" lat="43.7410000" lon="7.4210000">
    <tag k="name" v="Café du Port"/><tag k="addr:street" v="Quai Albert Ier"/><tag k="addr:city" v="Monaco"/>
  </node>
  <node id="3" lat="43.7420000" lon="7.4220000"><tag k="addr:housenumber" v="7"/></node>
  <node id="10" lat="43.7400000" lon="7.4203000"/>
  <node id="11" lat="43.7400000" lon="7.4205000"/>
  <node id="12" lat="43.7402000" lon="7.4205000"/>
  <node id="13" lat="43.7402000" lon="7.4203000"/>
  <way id="100">
    <nd ref="10"/><nd ref="11"/><nd ref="12"/><nd ref="13"/><nd ref="10"/>
    <tag k="building" v="yes"/><tag k="addr:housenumber" v="14"/><tag k="addr:street" v="Rue de l'Église"/><tag k="addr:city" v="Monaco"/>
  </way>
  <way id="101"><nd ref="10"/><nd ref="99"/><tag k="addr:street" v="Rue Grimaldi"/></way>
  <relation id="200"><member type="way" ref="100" role="outer"/><tag k="type" v="multipolygon"/><tag k="addr:street" v="Rue Grimaldi"/></relation>
</osm>
"""

func temporaryFile(_ text: String, suffix: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("streets-\(UUID().uuidString)\(suffix)").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite struct AddressIndexTests {
    let index: AddressIndex

    init() throws {
        let path = try temporaryFile(streetsXML, suffix: ".osm")
        defer { try? FileManager.default.removeItem(atPath: path) }
        index = try AddressIndex.load(osm: path)
    }

    @Test func readsNodesAndWaysWithTheirTags() throws {
        #expect(index.addresses.map(\.id) == ["node/1", "node/2", "way/100"])
        let house = try #require(index.addresses.first)
        #expect(house.houseNumber == "12" && house.street == "Rue de l'Église" && house.city == "Monaco" && house.postcode == "98000")
        #expect(house.countryCode == "MC" && house.countryName == "Monaco")
        #expect(house.streetLine == "12 Rue de l'Église")
        let way = index.addresses[2]
        // The centroid of the square: its middle.
        #expect(abs(way.coordinate.latitude - 43.7401) < 1e-9 && abs(way.coordinate.longitude - 7.4204) < 1e-9)
        #expect(index.rejected.map(\.entry) == ["relation/200", "way/101"])
    }

    @Test func tokensFoldCaseAndAccents() {
        #expect(AddressText.tokens("Rue de l'ÉGLISE, 98000") == ["rue", "de", "l", "eglise", "98000"])
        #expect(AddressText.tokens("  ,; ") == [])
    }

    @Test func forwardMatchesHouseNumberStreetAndLocality() throws {
        #expect(index.search("12 rue de l'eglise").map(\.id) == ["node/1"])
        #expect(index.search("Rue de l'Église 12, 98000 Monaco MC").map(\.id) == ["node/1"])
        #expect(index.search("14 Rue de l Eglise").map(\.id) == ["way/100"])
        // The street alone: every house on it, by number.
        #expect(index.search("rue de l'église").map(\.id) == ["node/1", "way/100"])
        #expect(index.search("café du port").map(\.id) == ["node/2"])
        #expect(index.search("Quai Albert Ier, Monaco").map(\.id) == ["node/2"])
        // A number or a town the address does not have.
        #expect(index.search("13 rue de l'eglise").isEmpty)
        #expect(index.search("12 rue de l'eglise, Nice").isEmpty)
        #expect(index.search("").isEmpty)
        // A hint: what lies within 20 m of the way's centre first.
        let way = try Coordinate(latitude: 43.7401, longitude: 7.4204)
        #expect(index.search("rue de l'église", preferringWithin: 20, of: way).map(\.id) == ["way/100", "node/1"])
        #expect(index.search("rue de l'église", preferringWithin: 1, of: try Coordinate(latitude: 0, longitude: 0)).map(\.id) == ["node/1", "way/100"])
    }

    @Test func reverseFindsTheNearestWithinTheRadius() throws {
        let near = try Coordinate(latitude: 43.74001, longitude: 7.42001)
        let found = try #require(index.nearest(to: near))
        #expect(found.address.id == "node/1")
        let expected = Geodesic.wgs84.inverse(near, index.addresses[0].coordinate).distance
        #expect(found.distance == expected)
        #expect(index.nearest(to: try Coordinate(latitude: 43.7401, longitude: 7.42041))?.address.id == "way/100")
        // 1 km away: nothing within 100 m, the shop within 2 km.
        let far = try Coordinate(latitude: 43.75, longitude: 7.4210)
        #expect(index.nearest(to: far) == nil)
        #expect(index.nearest(to: far, within: 2000)?.address.id == "node/2")
    }

    @Test func reverseAgreesWithMeasuringEveryAddress() throws {
        let monaco = try AddressIndex.load(osm: fixture("osm/monaco-latest.osm.pbf"))
        var random = SplitMix64(seed: 46)
        for _ in 0..<500 {
            let point = try Coordinate(latitude: random.uniform(43.72, 43.755), longitude: random.uniform(7.40, 7.44))
            let brute = monaco.addresses.map { (Geodesic.wgs84.inverse(point, $0.coordinate).distance, $0.id) }.filter { $0.0 <= 250 }.min { $0.0 < $1.0 }
            #expect(monaco.nearest(to: point, within: 250)?.address.id == brute?.1)
        }
    }

    @Test func anExtractWithoutAddressesIsAnError() throws {
        let path = try temporaryFile("<osm version=\"0.6\"><node id=\"1\" lat=\"1\" lon=\"2\"><tag k=\"amenity\" v=\"cafe\"/></node></osm>", suffix: ".osm")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: OSMError.self) { try AddressIndex.load(osm: path) }
        #expect(throws: OSMError.self) { try AddressIndex.load(osm: path + ".missing") }
    }
}

@Suite("Time zones of countries with one")
struct CountryTimeZonesTests {
    @Test("zone.tab's lines: a country with one zone gives it, one with several none; comments and short lines are skipped")
    func table() {
        let text = "# comment\nMC\t+4342+00723\tEurope/Monaco\nUS\t+404251-0740023\tAmerica/New_York\tEastern (most areas)\n"
            + "US\t+341308-1181434\tAmerica/Los_Angeles\tPacific\nGB\t+513030-0000731\tEurope/London\nbad line\n"
        #expect(CountryTimeZones.zones(inZoneTab: text) == ["MC": "Europe/Monaco", "GB": "Europe/London"])
    }

    @Test("the machine's table (tzdata): Monaco and the United Kingdom have one zone, the United States several")
    func machine() throws {
        try #require(FileManager.default.fileExists(atPath: CountryTimeZones.path), "tzdata is not installed")
        #expect(CountryTimeZones.identifier(country: "MC") == "Europe/Monaco")
        #expect(CountryTimeZones.identifier(country: "gb") == "Europe/London")
        #expect(CountryTimeZones.identifier(country: "US") == nil)
        #expect(CountryTimeZones.identifier(country: "ZZ") == nil)
    }
}
