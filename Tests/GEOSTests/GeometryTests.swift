import Geodesy
import Testing
@testable import GEOS

@Suite("Geometry over GEOS")
struct GeometryTests {
    @Test("WKT reads and writes, and a GEOS parse failure is a Swift error with GEOS's message")
    func wkt() throws {
        let context = try GEOSContext()
        let g = try Geometry(wkt: "POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))", in: context)
        #expect(g.wkt == "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")
        #expect(try g.area() == 100)
        #expect(g.envelope == Envelope(minX: 0, minY: 0, maxX: 10, maxY: 10))
        let result = Result { () throws(SpatialError) -> Geometry in try Geometry(wkt: "POLYGON((0 0, 10", in: context) }
        guard case .failure(let error) = result, case .geos(let message) = error else {
            Issue.record("bad WKT was accepted")
            return
        }
        #expect(message.hasPrefix("read WKT: "))
        #expect(message.count > "read WKT: ".count)
    }

    @Test("constructors refuse what cannot be a geometry")
    func refusals() throws {
        let context = try GEOSContext()
        #expect(throws: SpatialError.self) { try Geometry.point(x: .nan, y: 0, in: context) }
        #expect(throws: SpatialError.self) { try Geometry.lineString([PlanePoint(x: 0, y: 0)], in: context) }
        #expect(throws: SpatialError.self) { try Geometry.polygon(shell: [PlanePoint(x: 0, y: 0), PlanePoint(x: 1, y: 0)], in: context) }
        #expect(throws: SpatialError.self) {
            try Geometry.polygon(shell: [PlanePoint(x: 0, y: 0), PlanePoint(x: 1, y: 0), PlanePoint(x: 1, y: .infinity)], in: context)
        }
    }

    @Test("distance, buffer and prepared containment")
    func measures() throws {
        let context = try GEOSContext()
        let a = try Geometry.point(x: 0, y: 0, in: context)
        let line = try Geometry.lineString([PlanePoint(x: 3, y: -5), PlanePoint(x: 3, y: 5)], in: context)
        #expect(try a.distance(to: line) == 3)
        let disc = try a.buffer(25, quadrantSegments: 32)
        // A 128-gon inscribed in the circle: area short by about (2π/128)²/6 of πr².
        #expect(abs(try disc.area() - .pi * 625) / (.pi * 625) < 0.001)
        let prepared = try disc.prepared()
        #expect(try prepared.contains(x: 24, y: 0))
        #expect(try !prepared.contains(x: 26, y: 0))
        #expect(try prepared.intersects(line))
        #expect(try disc.contains(a))
    }

    @Test("a polygon on the ground is built in the local metric plane")
    func groundPolygon() throws {
        let context = try GEOSContext()
        let origin = try Coordinate(latitude: 53.4055, longitude: -2.9660)
        let projection = LocalProjection(origin: origin)
        // A 200 m square around the origin, made from its corners' coordinates.
        let corners = [(-100.0, -100.0), (100.0, -100.0), (100.0, 100.0), (-100.0, 100.0)].map { projection.unproject(x: $0.0, y: $0.1) }
        let square = try Geometry.polygon(coordinates: corners, projection: projection, in: context)
        #expect(abs(try square.area() - 40_000) < 1e-3)
        #expect(try square.prepared().contains(x: 0, y: 0))
    }
}
