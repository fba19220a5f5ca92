import Foundation
import Geodesy
@testable import PlacesGeoPackage
import Proximity
import Testing

@Suite("GeoPackage: places read from point layers and written as them, and bad input")
struct GeoPackageTests {
    func temporary(_ name: String = "places.gpkg") -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stroll-gpkg-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    static let places: [Place] = {
        let rows: [(String, String, String?, Double, Double, String)] = [
            ("leaf", "Leaf on Bold Street", "Tea bar, 65-67 Bold St", 53.4022315, -2.9792161, "cafes"),
            ("bean", "Bean \"There\", Ltd", nil, 53.40641, -2.97655, "cafes"),
            ("ashton", "Ashton Building", "Lecture theatre", 53.406575, -2.966117, "theatres"),
            ("south", "Far south", nil, -33.8567844, 151.213108, "theatres"),
        ]
        return rows.compactMap { r in
            (try? Coordinate(latitude: r.3, longitude: r.4)).map { Place(id: r.0, name: r.1, subtitle: r.2, coordinate: $0, group: r.5) }
        }
    }()

    @Test("places written as a point layer read back to the same places, every digit of every coordinate")
    func roundTrip() throws {
        let path = temporary()
        try GeoPackageWriter.write(Self.places, to: path)
        let (set, reading) = try GeoPackagePlaces.load(path)
        #expect(set.places == Self.places)
        #expect(set.groups == ["cafes", "theatres"] && set.rejected.isEmpty)
        #expect(reading.layer == "places" && reading.columns.name == "name" && reading.columns.group == "group" && reading.columns.id == "id" && reading.columns.subtitle == "subtitle")
        #expect(reading.guessed.isEmpty, "columns called name and group are the convention, not a guess")
        // The file is a GeoPackage by its header: application id GPKG, version 1.3.
        let db = try SQLite(path: path, mode: .readOnly)
        var ids: [Int64] = []
        try db.rows("PRAGMA application_id") { ids.append($0.int(0)) }
        try db.rows("PRAGMA user_version") { ids.append($0.int(0)) }
        #expect(ids == [0x4750_4B47, 10300])
        // The layer's extent is recorded in gpkg_contents.
        var extent: [Double] = []
        try db.rows("SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = 'places'") { r in extent = (0..<4).map { r.double($0) } }
        #expect(extent == [-2.9792161, -33.8567844, 151.213108, 53.406575])
    }

    @Test("a file with several layers needs FILE.gpkg#LAYER; a missing layer or column is a usage error naming what there is")
    func layers() throws {
        let path = temporary()
        let writer = try GeoPackageWriter(path: path)
        try writer.addPlaces(Array(Self.places.prefix(2)), layer: "cafes")
        try writer.addPlaces(Array(Self.places.suffix(2)), layer: "theatres")
        try writer.finish()
        #expect(try GeoPackagePlaces.layers(path) == ["cafes", "theatres"])
        #expect(throws: GeoPackageError(file: path, reason: "2 feature layers (cafes, theatres): name one as FILE.gpkg#LAYER", kind: .usage)) {
            try GeoPackagePlaces.load(path)
        }
        #expect(try GeoPackagePlaces.load(path + "#theatres").0.places.map(\.id) == ["ashton", "south"])
        #expect(throws: GeoPackageError(file: path + "#bars", reason: "no feature layer \"bars\" (layers: cafes, theatres)", kind: .usage)) {
            try GeoPackagePlaces.load(path + "#bars")
        }
        let e = #expect(throws: GeoPackageError.self) { try GeoPackagePlaces.load(path + "#cafes", nameColumn: "title") }
        #expect(e?.kind == .usage && e?.reason.contains("columns: fid, geom, id, name, subtitle, group") == true, "\(String(describing: e))")
        // A chosen column: the subtitle as the name, no guess to report.
        let (set, reading) = try GeoPackagePlaces.load(path + "#cafes", nameColumn: "subtitle", groupColumn: "name")
        #expect(set.places.first?.name == "Tea bar, 65-67 Bold St" && set.places.first?.group == "Leaf on Bold Street")
        #expect(set.places.last?.name == "cafes 2", "a NULL name falls back to the layer and feature id")
        #expect(reading.guessed.isEmpty)
    }

    @Test("columns guessed from their names: title and kind; without an id column the id is LAYER/FID, without a group the layer's name")
    func guessed() throws {
        let path = temporary()
        let writer = try GeoPackageWriter(path: path)
        try writer.addPointLayer("shops", columns: [("Title", .text), ("kind", .text)], description: "")
        try writer.insert("shops", at: Self.places[0].coordinate, [.text("Leaf"), .text("cafe")])
        try writer.insert("shops", at: Self.places[1].coordinate, [.text("News"), .null])
        try writer.finish()
        let (set, reading) = try GeoPackagePlaces.load(path)
        #expect(set.places.map(\.id) == ["shops/1", "shops/2"] && set.places.map(\.name) == ["Leaf", "News"])
        #expect(set.places.map(\.group) == ["cafe", "shops"])
        #expect(reading.description.contains("guessed: name \"Title\", group \"kind\""))
    }

    @Test("a layer in another SRS is refused, the SRS named and how to reproject; an SRS id missing from the table too")
    func srs() throws {
        let path = temporary()
        try GeoPackageWriter.write(Self.places, to: path)
        let db = try SQLite(path: path, mode: .create)
        try db.execute("""
            INSERT INTO gpkg_spatial_ref_sys VALUES ('OSGB36 / British National Grid', 27700, 'EPSG', 27700, 'PROJCS["OSGB36 / British National Grid"]', NULL);
            UPDATE gpkg_geometry_columns SET srs_id = 27700; UPDATE gpkg_contents SET srs_id = 27700;
            """)
        #expect(throws: GeoPackageError(file: path, reason: "the layer is in SRS 27700 (EPSG:27700, OSGB36 / British National Grid); places are read in EPSG:4326 (WGS 84) only: reproject with ogr2ogr -t_srs EPSG:4326", kind: .badData)) {
            try GeoPackagePlaces.load(path)
        }
        try db.execute("UPDATE gpkg_geometry_columns SET srs_id = 99; UPDATE gpkg_contents SET srs_id = 99;")
        #expect(throws: GeoPackageError(file: path, reason: "the layer's SRS id 99 is not in gpkg_spatial_ref_sys", kind: .badData)) {
            try GeoPackagePlaces.load(path)
        }
    }

    /// A GeoPackage blob by hand: header flags, SRS id in either byte order, an envelope, then the WKB.
    static func blob(flags: UInt8, srs: Int32 = 4326, envelope: Int = 0, wkb: [UInt8]) -> [UInt8] {
        var b: [UInt8] = [0x47, 0x50, 0, flags]
        let big = flags & 1 == 0
        withUnsafeBytes(of: big ? srs.bigEndian : srs.littleEndian) { b += $0 }
        b += [UInt8](repeating: 0, count: envelope)
        return b + wkb
    }

    static func wkbPoint(x: Double, y: Double, big: Bool) -> [UInt8] {
        var b: [UInt8] = big ? [0, 0, 0, 0, 1] : [1, 1, 0, 0, 0]
        withUnsafeBytes(of: big ? x.bitPattern.bigEndian : x.bitPattern.littleEndian) { b += $0 }
        withUnsafeBytes(of: big ? y.bitPattern.bigEndian : y.bitPattern.littleEndian) { b += $0 }
        return b
    }

    @Test("geometry blobs: big-endian with an envelope reads; not GeoPackage, cut short, another SRS, not a point, empty, NULL: each skipped with its reason")
    func blobs() throws {
        let path = temporary()
        let writer = try GeoPackageWriter(path: path)
        try writer.addPointLayer("p", columns: [("name", .text)], description: "")
        try writer.finish()
        let db = try SQLite(path: path, mode: .create)
        let insert = try db.prepare("INSERT INTO p (geom, name) VALUES (?, ?)")
        let line: [UInt8] = [1, 2, 0, 0, 0, 2, 0, 0, 0] + [Double](repeating: 1, count: 4).flatMap { d in withUnsafeBytes(of: d.bitPattern.littleEndian) { Array($0) } }
        let rows: [(SQLite.Value, String)] = [
            (.blob(Self.blob(flags: 0b0000_0010, envelope: 32, wkb: Self.wkbPoint(x: -2.98, y: 53.4, big: true))), "big-endian, envelope"),
            (.blob(Array("not a geometry".utf8)), "text"),
            (.blob(Self.blob(flags: 1, wkb: Array(Self.wkbPoint(x: 1, y: 2, big: false).prefix(3)))), "short"),
            (.blob(Self.blob(flags: 1, srs: 3857, wkb: Self.wkbPoint(x: 1, y: 2, big: false))), "srs"),
            (.blob(Self.blob(flags: 1, wkb: line)), "line"),
            (.blob(Self.blob(flags: 0b0001_0001, wkb: Self.wkbPoint(x: .nan, y: .nan, big: false))), "empty"),
            (.null, "null"),
            (.blob(Self.blob(flags: 0b0000_1011, wkb: Self.wkbPoint(x: 1, y: 2, big: false))), "envelope 5"),
            (.blob(Self.blob(flags: 1, wkb: Self.wkbPoint(x: 200, y: 2, big: false))), "off the Earth"),
            (.blob(Self.blob(flags: 1, wkb: [1, 1, 0, 0, 0, 9, 9])), "bad wkb"),
        ]
        for (geometry, name) in rows { try insert.run([geometry, .text(name)]) }
        let (set, _) = try GeoPackagePlaces.load(path)
        #expect(set.places.map(\.name) == ["big-endian, envelope"])
        #expect(set.places.first?.coordinate.latitude == 53.4 && set.places.first?.coordinate.longitude == -2.98)
        let reasons = set.rejected.map(\.reason)
        #expect(set.rejected.map(\.entry) == (2...10).map { "feature \($0)" })
        #expect(reasons[0] == "the geometry is not a GeoPackage geometry (no \"GP\" header)")
        #expect(reasons[1] == "the geometry is cut short (11 bytes)")
        #expect(reasons[2] == "the geometry's SRS id 3857 is not the layer's 4326")
        #expect(reasons[3] == "a LineString, not a point")
        #expect(reasons[4] == "an empty geometry")
        #expect(reasons[5] == "no geometry (NULL)")
        #expect(reasons[6] == "GeoPackage envelope indicator 5 is not defined")
        #expect(reasons[7] == "longitude 200.0, latitude 2.0 is not a position on the Earth")
        #expect(reasons[8].hasPrefix("the geometry's WKB cannot be read"))
    }

    @Test("not a GeoPackage: a text file, an SQLite database without its tables, a layer without a geometry column, a missing file")
    func notGeoPackage() throws {
        let text = temporary("notes.gpkg")
        try Data("hello, not a database\n".utf8).write(to: URL(fileURLWithPath: text))
        let e = #expect(throws: GeoPackageError.self) { try GeoPackagePlaces.load(text) }
        #expect(e?.kind == .badData && e?.reason.hasPrefix("not a GeoPackage") == true, "\(String(describing: e))")
        let plain = temporary("plain.gpkg")
        try SQLite(path: plain, mode: .create).execute("CREATE TABLE t (x)")
        let p = #expect(throws: GeoPackageError.self) { try GeoPackagePlaces.load(plain) }
        #expect(p?.kind == .badData && p?.reason.contains("gpkg_contents") == true, "\(String(describing: p))")
        // A feature layer whose geometry column is not registered.
        let headless = temporary("headless.gpkg")
        try GeoPackageWriter.write(Self.places, to: headless)
        try SQLite(path: headless, mode: .create).execute("DELETE FROM gpkg_geometry_columns")
        #expect(throws: GeoPackageError(file: headless, reason: "layer \"places\" has no geometry column in gpkg_geometry_columns", kind: .badData)) {
            try GeoPackagePlaces.load(headless)
        }
        #expect(throws: GeoPackageError(file: "/nonexistent/x.gpkg", reason: "no such file", kind: .unreadable)) {
            try GeoPackagePlaces.load("/nonexistent/x.gpkg")
        }
    }

    @Test("a writer that does not finish leaves nothing behind, and the destination untouched")
    func atomic() throws {
        let path = temporary()
        try GeoPackageWriter.write(Self.places, to: path)
        do {
            let writer = try GeoPackageWriter(path: path)
            try writer.addPlaces([Self.places[0]])
            #expect(throws: GeoPackageError.self) { try writer.insert("nope", at: Self.places[0].coordinate, []) }
        }
        #expect(try GeoPackagePlaces.load(path).0.places.count == 4)
        let left = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(left == ["places.gpkg"])
    }

    @Test("FILE.gpkg#LAYER splits at the last # after .gpkg; other sources are not GeoPackages")
    func sources() {
        #expect(GeoPackagePlaces.split("a/b.gpkg#cafes") == ("a/b.gpkg", "cafes"))
        #expect(GeoPackagePlaces.split("a#b.gpkg") == ("a#b.gpkg", nil))
        #expect(GeoPackagePlaces.isGeoPackage("x.GPKG#l") && !GeoPackagePlaces.isGeoPackage("x.json"))
    }
}
