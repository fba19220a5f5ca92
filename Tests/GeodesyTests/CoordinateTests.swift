import Testing
@testable import Geodesy

@Suite("Coordinate validation and ellipsoid helpers")
struct CoordinateTests {
    @Test("refuses NaN, infinities and out-of-range values with a reason", arguments: [
        (Double.nan, 0.0, Coordinate.Invalid.latitudeNotFinite(.nan)),
        (0, .infinity, .longitudeNotFinite(.infinity)),
        (91.38, 0, .latitudeOutOfRange(91.38)),
        (0, 180.88, .longitudeOutOfRange(180.88)),
        (-90.0000001, 0, .latitudeOutOfRange(-90.0000001)),
    ])
    func refusesBadValues(latitude: Double, longitude: Double, expected: Coordinate.Invalid) {
        #expect(throws: Coordinate.Invalid.self) { try Coordinate(latitude: latitude, longitude: longitude) }
        do {
            _ = try Coordinate(latitude: latitude, longitude: longitude)
        } catch {
            #expect(error.description == expected.description)
        }
    }

    @Test("accepts the edges of the ranges")
    func acceptsEdges() throws {
        _ = try Coordinate(latitude: 90, longitude: 180)
        _ = try Coordinate(latitude: -90, longitude: -180)
    }

    @Test("computed longitudes are normalised to [-180, 180]")
    func normalises() {
        #expect(normalizedLongitude(181) == -179)
        #expect(normalizedLongitude(-540) == -180)
        #expect(normalizedLongitude(720.5) == 0.5)
        let c = Coordinate(computedLatitude: 10, longitude: 190)
        #expect(c.longitude == -170)
    }

    @Test("radii of curvature: equator and pole values of WGS84")
    func radii() {
        let e = Ellipsoid.wgs84
        #expect(abs(e.primeVerticalRadius(atLatitude: 0) - 6_378_137) < 1e-6)
        #expect(abs(e.meridionalRadius(atLatitude: 0) - 6_335_439.327) < 1e-3)
        #expect(abs(e.meridionalRadius(atLatitude: 90) - 6_399_593.626) < 1e-3)
        // One degree of latitude at 53.4° is the meridian arc, checked with Karney's inverse.
        let lat = 53.4
        let deg = e.degrees(metresNorthSouth: 1000, metresEastWest: 1000, atLatitude: lat)
        let north = Geodesic.wgs84.distance(try! Coordinate(latitude: lat - deg.latitudeDelta / 2, longitude: 0),
                                            try! Coordinate(latitude: lat + deg.latitudeDelta / 2, longitude: 0))
        #expect(abs(north - 1000) < 1e-3)
    }

    @Test("ECEF of known points")
    func ecef() throws {
        let e = Ellipsoid.wgs84
        let p = e.ecef(try Coordinate(latitude: 0, longitude: 90))
        #expect(abs(p.x) < 1e-9 && abs(p.y - 6_378_137) < 1e-9 && abs(p.z) < 1e-9)
        let n = e.ecef(try Coordinate(latitude: 90, longitude: 0))
        #expect(abs(n.z - 6_356_752.314245) < 1e-6)
    }
}
