import Foundation
import Geodesy
import Testing

/// What iOS's `CLLocation.distance(from:)` returns, as published: openradar
/// 34557241 reports 307 123.6866843 m on an iPhone from (51.1269942,
/// 16.851781) to (52.232855, 20.9211114). The WGS84 geodesic there is
/// 307 123.6872386 m (GeographicLib), 0.55 mm from iOS's figure; a haversine
/// on the mean sphere is 848 m off.
@Suite("iOS's CLLocation.distance(from:) as published (openradar 34557241)")
struct IOSDistanceTests {
    @Test("the geodesic distance is within a millimetre of the iPhone's, where a sphere is hundreds of metres off")
    func openradar34557241() throws {
        let from = try Coordinate(latitude: 51.1269942, longitude: 16.851781)
        let to = try Coordinate(latitude: 52.232855, longitude: 20.9211114)
        let iPhone = 307_123.6866843
        let stroll = Geodesic.wgs84.distance(from, to)
        #expect(abs(stroll - iPhone) < 0.001, "\(stroll) m against the iPhone's \(iPhone) m")
        // The same pair on a sphere of the mean radius (haversine), as many location libraries compute it.
        let r = 6_371_008.8, rad = Double.pi / 180
        let dLat = (to.latitude - from.latitude) * rad, dLon = (to.longitude - from.longitude) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(from.latitude * rad) * cos(to.latitude * rad) * sin(dLon / 2) * sin(dLon / 2)
        let sphere = 2 * r * asin(h.squareRoot())
        #expect(abs(sphere - iPhone) > 100, "a sphere gives \(sphere) m")
    }
}
