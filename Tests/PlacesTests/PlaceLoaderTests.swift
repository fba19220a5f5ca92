import Foundation
import Testing
import TestSupport
import Places

func temporary(_ text: String, name: String) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-places-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let p = dir.appendingPathComponent(name).path
    try Data(text.utf8).write(to: URL(fileURLWithPath: p))
    return p
}

@Suite("Place loaders")
struct PlaceLoaderTests {
    @Test("the CoffeeShop13 property list loads as it shipped")
    func plist() throws {
        let set = try PlaceSet.load(path("Fixtures/CityCycleRideLocations.plist"))
        #expect(set.groups == ["liverpool", "cupertino"])
        #expect(set.places.filter { $0.group == "liverpool" }.count == 15)
        #expect(set.places.filter { $0.group == "cupertino" }.count == 24)
        #expect(set.rejected.isEmpty)
        let leaf = try #require(set.places.first { $0.id == "liverpool-4" })
        #expect(leaf.name == "Leaf" && leaf.subtitle == "Fantastic Tea, but the coffee is also good")
        #expect(leaf.coordinate.latitude == 53.403198 && leaf.coordinate.longitude == -2.978942)
        #expect(set.places.contains { $0.group == "cupertino" && ($0.subtitle ?? "").contains("\n") }, "comments with newlines survive")
    }

    @Test("JSON: an array with groups, or {groups: {...}}; missing ids and groups are filled in")
    func json() throws {
        let a = try temporary(#"[{"name": "A", "latitude": 53.4, "longitude": -2.9}, {"id": "x", "name": "B", "latitude": 53.41, "longitude": -2.91, "group": "g"}]"#, name: "cafes.json")
        let set = try PlaceSet.load(a)
        #expect(set.places.map(\.id) == ["cafes-0", "x"])
        #expect(set.places.map(\.group) == ["cafes", "g"])
        let b = try temporary(#"{"groups": {"north": [{"name": "N", "latitude": 53.5, "longitude": -2.9}], "south": [{"name": "S", "latitude": 53.3, "longitude": -2.9}]}}"#, name: "g.json")
        let grouped = try PlaceSet.load(b)
        #expect(grouped.places.map(\.id) == ["north-0", "south-0"])
        let theatres = try PlaceSet.load(path("Fixtures/lecture-theatres.json"))
        #expect(theatres.groups == ["lecture-theatres"] && theatres.places.count >= 8)
    }

    @Test("CSV with the contract's header; id, subtitle and group may be absent")
    func csv() throws {
        let p = try temporary("name,latitude,longitude\nLeaf,53.403198,-2.978942\n\"Tabac, Bold St\",53.401892,-2.97628\n", name: "bold.csv")
        let set = try PlaceSet.load(p)
        #expect(set.places.map(\.id) == ["bold-0", "bold-1"])
        #expect(set.places[1].name == "Tabac, Bold St")
    }

    @Test("bad entries are rejected with file, entry and reason; the rest load")
    func rejections() throws {
        let p = try temporary(#"[{"name": "Good", "latitude": 53.4, "longitude": -2.9}, {"name": "NoLat", "longitude": -2.9}, {"name": "Far", "latitude": 91.38, "longitude": 0}, {"latitude": 1, "longitude": 2}, "text", {"name": "Str", "latitude": "undefined", "longitude": 1}]"#, name: "bad.json")
        let set = try PlaceSet.load(p)
        #expect(set.places.map(\.name) == ["Good"])
        #expect(set.rejected.map(\.entry) == ["entry 1", "entry 2", "entry 3", "entry 4", "entry 5"])
        #expect(set.rejected[0].reason == "NoLat: latitude (missing) is not a number")
        #expect(set.rejected[1].reason == "Far: latitude 91.38 is outside [-90, 90]")
        #expect(set.rejected[4].reason == "Str: latitude \"undefined\" is not a number")
        #expect(set.rejected.allSatisfy { $0.file == p })
        let csv = try temporary("name,latitude,longitude\nA,53.4,-2.9\nB,,-2.9\nC,nan,1\n", name: "c.csv")
        let c = try PlaceSet.load(csv)
        #expect(c.places.count == 1 && c.rejected.map(\.entry) == ["line 3", "line 4"])
    }

    @Test("a repeated id is rejected, within a file and across files; the first place keeps it")
    func duplicateIDs() throws {
        let a = try temporary(#"[{"id": "x", "name": "First", "latitude": 53.4, "longitude": -2.9}, {"id": "x", "name": "Second", "latitude": 53.5, "longitude": -2.9}]"#, name: "a.json")
        let set = try PlaceSet.load(a)
        #expect(set.places.map(\.name) == ["First"])
        #expect(set.rejected.map(\.reason) == ["Second: duplicate id x; the first place with it is kept"])
        var merged = set
        merged.merge(try PlaceSet.load(a))
        #expect(merged.places.count == 1 && merged.rejected.count == 3)
    }

    @Test("missing and malformed files are errors")
    func fileErrors() throws {
        #expect(throws: PlaceFileError.self) { try PlaceSet.load("/nonexistent/places.json") }
        let p = try temporary("{not json", name: "x.json")
        do {
            _ = try PlaceSet.load(p)
            Issue.record("accepted")
        } catch {
            #expect(!error.unreadable && error.reason.hasPrefix("not JSON"))
        }
    }
}

@Suite("Places from GeoJSON and KML")
struct GeoPlaceLoaderTests {
    @Test("GeoJSON Point features: name, description as subtitle, group from a property or the file; other shapes rejected, counted")
    func geojson() throws {
        let text = """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","id":"leaf","properties":{"name":"Leaf","description":"Bold Street"},"geometry":{"type":"Point","coordinates":[-2.9803,53.4002]}},
         {"type":"Feature","properties":{"name":"Ashton","group":"lecture-theatres"},"geometry":{"type":"Point","coordinates":[-2.966531,53.406566]}},
         {"type":"Feature","properties":{"name":"Campus"},"geometry":{"type":"Polygon","coordinates":[[[-2.97,53.40],[-2.96,53.40],[-2.96,53.41],[-2.97,53.40]]]}},
         {"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[-2.9,53.4]}}]}
        """
        let set = try PlaceSet.load(data: Data(text.utf8), name: "cafes.geojson")
        #expect(set.places.map(\.id) == ["leaf", "lecture-theatres-0"])
        #expect(set.places.first?.subtitle == "Bold Street" && set.places.first?.group == "cafes")
        #expect(set.rejected.count == 2)
    }

    @Test("KML Point placemarks: the placemark's name, the file's name as group")
    func kml() throws {
        let set = try PlaceSet.load(fixture("real-traces/togeojson/point.kml"))
        #expect(set.places.count == 1 && set.groups == ["point"])
        #expect(set.places.first?.id == "point-0" && !(set.places.first?.name.isEmpty ?? true))
    }

    @Test("KML and KMZ placemarks: the description, HTML as Google Earth writes it, is the subtitle as one line of text")
    func kmlDescriptions() async throws {
        let kml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>Coffee</name>
        <Placemark><name>Leaf</name><description><![CDATA[<b>Tea &amp; coffee</b><br>65&nbsp;Bold Street]]></description>
          <Point><coordinates>-2.9792,53.4016</coordinates></Point></Placemark>
        <Placemark><name>Bold Street Coffee</name><description>Espresso bar</description>
          <Point><coordinates>-2.9785,53.4019,0</coordinates></Point></Placemark>
        <Placemark><name>No words</name><Point><coordinates>-2.98,53.40</coordinates></Point></Placemark>
        </Document></kml>
        """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cafes-\(UUID().uuidString).kml").path
        try Data(kml.utf8).write(to: URL(fileURLWithPath: file))
        let plain = try PlaceSet.load(file)
        #expect(plain.places.map(\.subtitle) == ["Tea & coffee 65 Bold Street", "Espresso bar", nil])
        let kmz = try await makeZip([("doc.kml", file)])
        let zipped = try PlaceSet.load(kmz)
        #expect(zipped.places.map(\.name) == plain.places.map(\.name) && zipped.places.map(\.subtitle) == plain.places.map(\.subtitle))
        #expect(zipped.places.map(\.coordinate) == plain.places.map(\.coordinate))
    }
}

@Suite("docs/Places.md lists the bundled places as the files give them")
struct BundledPlacesPageTests {
    /// The page's rows: (group, id, name), in order.
    static func rows(_ page: String) -> [(group: String, id: String, name: String)] {
        var group = ""
        var rows: [(group: String, id: String, name: String)] = []
        for line in page.split(separator: "\n") {
            if line.hasPrefix("## `") { group = String(line.dropFirst(4).prefix { $0 != "`" }) }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2 else { continue }
            rows.append((group, cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[1]))
        }
        return rows
    }

    static func bundled() throws -> [(group: String, id: String, name: String)] {
        var expected: [(group: String, id: String, name: String)] = []
        for file in ["Fixtures/CityCycleRideLocations.plist", "Fixtures/lecture-theatres.json"] {
            expected += try PlaceSet.load(path(file)).places.map { ($0.group, $0.id, $0.name) }
        }
        return expected
    }

    /// Where the page and the files disagree.
    static func mismatches(_ page: String, _ expected: [(group: String, id: String, name: String)]) -> [String] {
        let rows = Self.rows(page)
        var found = rows.count == expected.count ? [] : ["the page lists \(rows.count) places, the files hold \(expected.count)"]
        for (row, place) in zip(rows, expected) where row.group != place.group || row.id != place.id || row.name != place.name {
            found.append("page \(row), file \(place)")
        }
        return found
    }

    @Test("every group, id and name of the bundled files, in file order, and nothing else")
    func page() throws {
        let page = try String(contentsOfFile: path("docs/Places.md"), encoding: .utf8)
        #expect(Self.mismatches(page, try Self.bundled()) == [])
        #expect(Self.rows(page).count == 48)
    }

    @Test("the check finds a renamed place and a missing row")
    func renamed() throws {
        let page = try String(contentsOfFile: path("docs/Places.md"), encoding: .utf8)
        let places = try Self.bundled()
        #expect(Self.mismatches(page.replacingOccurrences(of: "| `liverpool-4` | Leaf |", with: "| `liverpool-4` | Leaves |"), places).count == 1)
        #expect(!Self.mismatches(page.replacingOccurrences(of: "| `liverpool-4` | Leaf |\n", with: ""), places).isEmpty)
    }
}
