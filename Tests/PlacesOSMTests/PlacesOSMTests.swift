import Foundation
import PlacesOSM
import Proximity
import Testing
import TestSupport

/// Protobuf wire format, written by hand for crafted PBF files.
enum Wire {
    static func varint(_ v: UInt64) -> [UInt8] {
        var v = v, out: [UInt8] = []
        repeat {
            out.append(UInt8(v & 0x7F) | (v >= 0x80 ? 0x80 : 0))
            v >>= 7
        } while v > 0
        return out
    }

    static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    static func key(_ field: Int, _ type: Int) -> [UInt8] { varint(UInt64(field << 3 | type)) }
    static func bytes(_ field: Int, _ b: [UInt8]) -> [UInt8] { key(field, 2) + varint(UInt64(b.count)) + b }
    static func string(_ field: Int, _ s: String) -> [UInt8] { bytes(field, Array(s.utf8)) }
    static func int(_ field: Int, _ v: UInt64) -> [UInt8] { key(field, 0) + varint(v) }
    static func packedSigned(_ field: Int, _ values: [Int64]) -> [UInt8] { bytes(field, values.flatMap { varint(zigzag($0)) }) }
    static func packed(_ field: Int, _ values: [UInt64]) -> [UInt8] { bytes(field, values.flatMap { varint($0) }) }

    /// A file blob: the 4-byte length, the BlobHeader, the Blob (raw unless `zlib` is given).
    static func blob(_ type: String, raw: [UInt8]? = nil, zlib: [UInt8]? = nil, rawSize: Int? = nil, declaredSize: Int? = nil) -> [UInt8] {
        var body: [UInt8] = []
        if let raw { body = bytes(1, raw) }
        if let zlib { body = int(2, UInt64(rawSize ?? 0)) + bytes(3, zlib) }
        let header = string(1, type) + int(3, UInt64(declaredSize ?? body.count))
        let n = UInt32(header.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + header + body
    }

    static let osmHeader = blob("OSMHeader", raw: string(4, "OsmSchema-V0.6") + string(4, "DenseNodes"))

    /// A primitive block: a string table and one group.
    static func block(strings: [String], group: [UInt8]) -> [UInt8] {
        bytes(1, strings.flatMap { string(1, $0) }) + bytes(2, group)
    }
}

@Suite("Places from OpenStreetMap: PBF, XML and Overpass JSON, and bad input")
struct PlacesOSMTests {
    static let monaco = fixture("osm/monaco-latest.osm.pbf")

    func file(_ bytes: [UInt8], _ suffix: String) throws -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-osm-\(UUID().uuidString)\(suffix)").path
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    func error(_ body: () throws(OSMError) -> PlaceSet) -> OSMError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("Monaco's cafés and restaurants: a group per value, ids node/ID and way/ID, names from name, else brand, else the kind")
    func monaco() throws {
        let set = try OSMPlaces.load(Self.monaco, filters: [try #require(OSMFilter(parsing: "amenity=cafe,restaurant"))])
        #expect(set.groups == ["restaurant", "cafe"] || set.groups == ["cafe", "restaurant"])
        #expect(set.places.filter { $0.group == "cafe" }.count == 19 && set.places.filter { $0.group == "restaurant" }.count == 78)
        #expect(Set(set.places.map(\.id)).count == set.places.count)
        #expect(set.places.allSatisfy { ($0.id.hasPrefix("node/") || $0.id.hasPrefix("way/")) && !$0.name.isEmpty && $0.subtitle?.hasPrefix("amenity=") == true })
        #expect(set.places.allSatisfy { (43.72...43.76).contains($0.coordinate.latitude) && (7.40...7.45).contains($0.coordinate.longitude) })
        // An unnamed place is named by its kind, never by its type and id; its id stays node/ID.
        let unnamed = try #require(set.places.first { $0.id == "node/1712696781" })
        #expect(unnamed.name == "cafe" && unnamed.subtitle == "amenity=cafe")
        #expect(!set.places.contains { $0.name.wholeMatch(of: /(node|way|relation) [0-9]+/) != nil })
        // One name for everything: --group-name.
        let one = try OSMPlaces.load(Self.monaco, filters: [try #require(OSMFilter(parsing: "amenity=cafe,restaurant"))], groupName: "food")
        #expect(one.groups == ["food"] && one.places.count == 97)
        #expect(one.places.first { $0.id == "node/1712696781" }?.name == "cafe")
        #expect(OSMFilter(parsing: "amenity=") == nil && OSMFilter(parsing: "=cafe") == nil && OSMFilter(parsing: "tourism")?.values == [])
    }

    @Test("a PBF cut short inside a blob: the file, the blob's offset and truncated")
    func truncated() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.monaco)))
        let cut = try file(Array(bytes.prefix(200_000)), ".osm.pbf")
        let e = error { () throws(OSMError) in try OSMPlaces.load(cut, filters: [OSMFilter(key: "amenity")]) }
        #expect(e?.file == cut && e?.location.hasPrefix("blob at byte ") == true && e?.reason.contains("truncated") == true, "\(String(describing: e))")
    }

    @Test("a blob over the format's 32 MiB limit is refused from its header, before it is read")
    func oversized() throws {
        let p = try file(Wire.osmHeader + Wire.blob("OSMData", raw: [0], declaredSize: 40 << 20), ".osm.pbf")
        let e = error { () throws(OSMError) in try OSMPlaces.load(p, filters: [OSMFilter(key: "amenity")]) }
        #expect(e?.reason.contains("over the format's 32 MiB limit") == true, "\(String(describing: e))")
    }

    @Test("a zlib stream that is not one, and one that claims more than 32 MiB inflated")
    func badZlib() throws {
        let garbage = try file(Wire.osmHeader + Wire.blob("OSMData", zlib: [0x78, 0x9C, 0xFF, 0x00, 0x13, 0x37], rawSize: 100), ".osm.pbf")
        let e = error { () throws(OSMError) in try OSMPlaces.load(garbage, filters: [OSMFilter(key: "amenity")]) }
        #expect(e?.reason.contains("zlib") == true, "\(String(describing: e))")
        let bomb = try file(Wire.osmHeader + Wire.blob("OSMData", zlib: [0x78, 0x9C], rawSize: 1 << 30), ".osm.pbf")
        let b = error { () throws(OSMError) in try OSMPlaces.load(bomb, filters: [OSMFilter(key: "amenity")]) }
        #expect(b?.reason.contains("32 MiB") == true, "\(String(describing: b))")
    }

    @Test("delta-coded ids and coordinates that overflow are errors, not wrapped numbers")
    func overflow() throws {
        let dense = Wire.packedSigned(1, [Int64.max, 1]) + Wire.packedSigned(8, [0, 0]) + Wire.packedSigned(9, [0, 0])
        let ids = try file(Wire.osmHeader + Wire.blob("OSMData", raw: Wire.block(strings: [""], group: Wire.bytes(2, dense))), ".osm.pbf")
        let e = error { () throws(OSMError) in try OSMPlaces.load(ids, filters: [OSMFilter(key: "amenity")]) }
        #expect(e?.reason.contains("overflow") == true, "\(String(describing: e))")
        let far = Wire.packedSigned(1, [1]) + Wire.packedSigned(8, [Int64.max / 200]) + Wire.packedSigned(9, [0])
        let lat = try file(Wire.osmHeader + Wire.blob("OSMData", raw: Wire.block(strings: [""], group: Wire.bytes(2, far))), ".osm.pbf")
        let l = error { () throws(OSMError) in try OSMPlaces.load(lat, filters: [OSMFilter(key: "amenity")]) }
        #expect(l?.reason.contains("coordinate out of range") == true, "\(String(describing: l))")
    }

    @Test("a file that is not a PBF, and data before the header")
    func notPBF() throws {
        let text = try file(Array("id,name,latitude,longitude\n".utf8), ".osm.pbf")
        #expect(error { () throws(OSMError) in try OSMPlaces.load(text, filters: [OSMFilter(key: "amenity")]) }?.reason.contains("not a PBF file") == true)
        let headless = try file(Wire.blob("OSMData", raw: Wire.block(strings: [""], group: [])), ".osm.pbf")
        #expect(error { () throws(OSMError) in try OSMPlaces.load(headless, filters: [OSMFilter(key: "amenity")]) }?.reason.contains("OSMHeader") == true)
        let missing = error { () throws(OSMError) in try OSMPlaces.load("/nonexistent/x.osm.pbf", filters: [OSMFilter(key: "amenity")]) }
        #expect(missing?.unreadable == true)
        #expect(error { () throws(OSMError) in try OSMPlaces.load(Self.monaco, filters: []) }?.reason.contains("--osm-filter") == true)
    }

    static let xml = """
    <?xml version="1.0" encoding="UTF-8"?>
    <osm version="0.6" generator="test">
      <node id="1" lat="53.4050" lon="-2.9700"><tag k="amenity" v="cafe"/><tag k="name" v="Bold Street Coffee"/></node>
      <node id="2" lat="53.4060" lon="-2.9700"/>
      <node id="3" lat="53.4060" lon="-2.9680"/>
      <node id="4" lat="53.4050" lon="-2.9680"/>
      <node id="5" lat="53.4070" lon="-2.9650"><tag k="amenity" v="cafe"/><tag k="brand" v="Costa"/></node>
      <way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="amenity" v="university"/></way>
      <way id="11"><nd ref="2"/><nd ref="99"/><nd ref="3"/><nd ref="2"/><tag k="amenity" v="cafe"/></way>
      <node id="6" lat="53.4080" lon="-2.9600"><tag k="amenity" v="cafe"/></node>
    </osm>
    """

    @Test("OSM XML: nodes where they are, a closed way at its centroid, a way with nodes missing skipped with the reason, names from name, brand, or the kind (the matched value)")
    func osmXML() throws {
        let p = try file(Array(Self.xml.utf8), ".osm")
        let set = try OSMPlaces.load(p, filters: [try #require(OSMFilter(parsing: "amenity=cafe,university"))])
        #expect(set.places.map(\.id) == ["node/1", "node/5", "node/6", "way/10"])
        #expect(set.places.map(\.name) == ["Bold Street Coffee", "Costa", "cafe", "university"])
        #expect(set.places.map(\.subtitle) == ["amenity=cafe", "amenity=cafe", "amenity=cafe", "amenity=university"])
        let way = try #require(set.places.last)
        #expect(abs(way.coordinate.latitude - 53.4055) < 1e-12 && abs(way.coordinate.longitude + 2.969) < 1e-12 && way.group == "university")
        #expect(set.rejected.map(\.entry) == ["way/11"] && set.rejected[0].reason == "1 of its 4 nodes are not in the extract")
    }

    @Test("an unnamed place's kind reads an underscore as a space; a blank value leaves the type and id")
    func kindNames() throws {
        let xml = """
        <osm version="0.6">
          <node id="7" lat="43.73" lon="7.42"><tag k="amenity" v="fast_food"/></node>
          <node id="8" lat="43.73" lon="7.42"><tag k="amenity" v="ice_cream"/><tag k="name" v="Gelato"/></node>
          <node id="9" lat="43.73" lon="7.42"><tag k="amenity" v=" "/></node>
        </osm>
        """
        let set = try OSMPlaces.load(try file(Array(xml.utf8), ".osm"), filters: [OSMFilter(key: "amenity")])
        #expect(set.places.map(\.name) == ["fast food", "Gelato", "node 9"])
        #expect(set.places.prefix(2).map(\.group) == ["fast_food", "ice_cream"])
    }

    @Test("OSM XML with a DTD (a billion laughs) is refused before any entity is expanded")
    func billionLaughs() throws {
        let laughs = """
        <?xml version="1.0"?>
        <!DOCTYPE osm [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
        <osm version="0.6"><node id="1" lat="1" lon="1"><tag k="amenity" v="&lol3;"/></node></osm>
        """
        let p = try file(Array(laughs.utf8), ".osm")
        let e = error { () throws(OSMError) in try OSMPlaces.load(p, filters: [OSMFilter(key: "amenity")]) }
        #expect(e != nil && e?.location.hasPrefix("line ") == true, "\(String(describing: e))")
        let bad = try file(Array(#"<osm><node id="x" lat="1" lon="1"/></osm>"#.utf8), ".osm")
        #expect(error { () throws(OSMError) in try OSMPlaces.load(bad, filters: [OSMFilter(key: "amenity")]) }?.reason.contains("valid id") == true)
    }

    @Test("Overpass JSON with out center: nodes at lat/lon, ways at their center; an element without one is skipped with the reason")
    func overpass() throws {
        let json = """
        {"version": 0.6, "generator": "Overpass API 0.7.62", "osm3s": {"timestamp_osm_base": "2026-11-01T00:00:00Z"},
         "elements": [
          {"type": "node", "id": 101, "lat": 53.4049, "lon": -2.9781, "tags": {"amenity": "cafe", "name": "Leaf"}},
          {"type": "way", "id": 202, "center": {"lat": 53.4062, "lon": -2.9661}, "tags": {"amenity": "restaurant"}},
          {"type": "relation", "id": 303, "tags": {"amenity": "cafe", "name": "No centre"}},
          {"type": "node", "id": 104, "lat": 53.40, "lon": -2.97, "tags": {"shop": "books"}}
         ]}
        """
        let data = Data(json.utf8)
        #expect(OSMPlaces.isOverpass(data))
        let set = try OSMPlaces.loadOverpass(data, file: "answer.json", filters: [try #require(OSMFilter(parsing: "amenity=cafe,restaurant"))])
        #expect(set.places.map(\.id) == ["node/101", "way/202"] && set.places[1].coordinate.latitude == 53.4062)
        #expect(set.rejected.map(\.entry) == ["relation/303"] && set.rejected[0].reason.contains("out center"))
    }
}
