import Foundation
import Geodesy
import Streets
import Testing

/// A hand-made extract of places: cafes by tag and by name, a way of
/// interest placed at its middle node, a place without a category, and
/// named elements that are not points of interest.
enum Square {
    static let xml = """
    <?xml version='1.0' encoding='UTF-8'?>
    <osm version="0.6">
      <node id="1" lat="50.0000" lon="8.0000"><tag k="amenity" v="cafe"/><tag k="name" v="Gerhard's Café"/><tag k="phone" v="+49 1"/><tag k="website" v="https://example.org/gerhard"/></node>
      <node id="2" lat="50.0010" lon="8.0000"><tag k="amenity" v="restaurant"/><tag k="name" v="Café de Paris"/></node>
      <node id="3" lat="50.0020" lon="8.0000"><tag k="amenity" v="cafe"/><tag k="shop" v="coffee"/><tag k="name" v="Bean There"/></node>
      <node id="4" lat="50.0000" lon="8.0020"><tag k="amenity" v="cafe"/></node>
      <node id="5" lat="50.0030" lon="8.0000"><tag k="tourism" v="attraction"/><tag k="name" v="Old Clock"/></node>
      <node id="6" lat="50.0040" lon="8.0000"><tag k="name" v="Cafe Street Sign"/></node>
      <node id="7" lat="50.0100" lon="8.0100"/>
      <node id="8" lat="50.0110" lon="8.0100"/>
      <node id="9" lat="50.0110" lon="8.0110"/>
      <node id="10" lat="50.0005" lon="8.0000"><tag k="shop" v="bakery"/><tag k="name" v="BÄCKEREI Müller"/></node>
      <node id="11" lat="50.0005" lon="8.0000"><tag k="amenity" v="atm"/><tag k="name" v="Bäckerei Müller"/></node>
      <way id="20"><nd ref="7"/><nd ref="8"/><nd ref="9"/><nd ref="7"/><tag k="leisure" v="park"/><tag k="name" v="Cafe Gardens"/></way>
      <way id="21"><nd ref="7"/><nd ref="99"/><nd ref="8"/><tag k="amenity" v="cafe"/><tag k="name" v="Lost Cafe"/></way>
    </osm>
    """

    static func load() throws -> PointsOfInterest {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-poi-\(UUID().uuidString).osm").path
        try xml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try PointsOfInterest.load(path)
    }
}

@Suite("Points of interest: the category table, the index and the search")
struct PointsOfInterestTests {
    @Test("categories from tags: the first key of the table that maps its value wins")
    func categories() {
        #expect(PointOfInterestCategory(tags: ["amenity": "cafe"]) == .cafe)
        #expect(PointOfInterestCategory(tags: ["amenity": "cafe", "shop": "coffee"]) == .cafe)
        #expect(PointOfInterestCategory(tags: ["shop": "shoes"]) == .store)
        #expect(PointOfInterestCategory(tags: ["shop": "bakery"]) == .bakery)
        #expect(PointOfInterestCategory(tags: ["amenity": "bench", "shop": "bakery"]) == .bakery)
        #expect(PointOfInterestCategory(tags: ["highway": "bus_stop"]) == .publicTransport)
        #expect(PointOfInterestCategory(tags: ["tourism": "attraction"]) == nil)
        #expect(PointOfInterestCategory.allCases.count == 40)
        #expect(PointOfInterestCategory(name: "publictransport") == .publicTransport)
        #expect(PointOfInterestCategory.publicTransport.words.isSuperset(of: ["public", "transport", "bus"]))
        #expect(PointOfInterestCategory.evCharger.words.isSuperset(of: ["ev", "charger"]))
        #expect(PointOfInterestCategory.atm.rawValue == "MKPOICategoryATM")
    }

    @Test("docs/Search.md's table is the code's: each category's tags and query words")
    func documentedTable() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/Search.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        var seen: [PointOfInterestCategory] = []
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, let category = PointOfInterestCategory(name: cells[0].replacingOccurrences(of: "`", with: "")) else { continue }
            seen.append(category)
            let tags = Set(cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") })
            #expect(tags == category.tags, "\(category.name)")
            #expect(Set(cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) == category.words, "\(category.name)")
        }
        #expect(seen == PointOfInterestCategory.allCases)
    }

    @Test("words without case or diacritics")
    func words() {
        #expect(SearchText.words("Gerhard's Café") == ["gerhard", "s", "cafe"])
        #expect(SearchText.words("  BÄCKEREI—Müller 24/7 ") == ["backerei", "muller", "24", "7"])
        #expect(SearchText.words("") == [])
    }

    @Test("the index: named places of interest, ways at their middle node, ways without it counted")
    func index() throws {
        let index = try Square.load()
        #expect(index.places.map(\.osmID) == ["node/1", "node/2", "node/3", "node/5", "node/10", "node/11", "way/20"])
        #expect(index.waysWithoutLocation == 1)
        let gardens = try #require(index.places.last)
        #expect(gardens.coordinate == (try Coordinate(latitude: 50.011, longitude: 8.011)))
        #expect(gardens.category == .park)
        let gerhard = index.places[0]
        #expect(gerhard.phone == "+49 1" && gerhard.website == "https://example.org/gerhard" && gerhard.category == .cafe)
        #expect(index.places[3].category == nil)
    }

    @Test("a query matches names by word starts and categories by their words; ordered by distance, name, element, id")
    func search() throws {
        let index = try Square.load()
        let here = try Coordinate(latitude: 50.0, longitude: 8.0)
        let near = SearchArea.circle(center: here, radius: 1000)
        #expect(index.search("cafe", in: near).map(\.place.id) == [1, 2, 3])
        #expect(index.search("CAFÉS", in: near).map(\.place.id) == [1, 3])
        #expect(index.search("coffee", in: near).map(\.place.id) == [1, 3])
        #expect(index.search("cafe").map(\.place.osmID) == ["node/3", "way/20", "node/2", "node/1"])
        #expect(index.search("café paris", in: near).map(\.place.id) == [2])
        #expect(index.search("gerh caf", in: near).map(\.place.id) == [1])
        #expect(index.search("tea", in: near).isEmpty)
        let found = index.search("backerei muller", in: near)
        #expect(found.map(\.place.id) == [10, 11])
        #expect(abs((found.first?.distance ?? 0) - Geodesic.wgs84.distance(here, try Coordinate(latitude: 50.0005, longitude: 8.0))) < 1e-9)
        #expect(index.search(nil, categories: .including([.cafe]), in: .circle(center: here, radius: 150)).map(\.place.id) == [1])
        #expect(index.search(nil, categories: .excluding([.cafe, .restaurant, .bakery, .atm]), in: near).map(\.place.id) == [5])
        #expect(index.search(nil, categories: .excludingAll).isEmpty)
        #expect(index.search("clock", categories: .including([.museum])).isEmpty)
        let box = SearchArea.region(center: here, latitudeDelta: 0.0021, longitudeDelta: 0.001)
        #expect(index.search(nil, in: box).map(\.place.id) == [1, 10, 11, 2])
    }

    @Test("a missing extract and a file that is not one")
    func errors() throws {
        #expect(throws: StreetError.self) { try PointsOfInterest.load("/nonexistent/extract.osm.pbf") }
        do {
            _ = try PointsOfInterest.load("/nonexistent/extract.osm.pbf")
        } catch {
            #expect(error.kind == .unreadable)
        }
    }
}
