import Testing
import TestSupport
@testable import Geodesy

@Suite("Chord-formula distances against Karney")
struct GeodesicDistanceFrameTests {
    @Test("20 000 random pairs within 20 km agree within 1e-6 m")
    func cityScale() throws {
        var rng = SplitMix64(seed: 2013)
        var worst = 0.0
        for _ in 0..<20_000 {
            let origin = try Coordinate(latitude: rng.uniform(-80, 80), longitude: rng.uniform(-180, 180))
            let frame = GeodesicDistanceFrame(origin: origin)
            let target = Geodesic.wgs84.direct(from: origin, azimuth: rng.uniform(-180, 180), distance: rng.uniform(0, 20_000)).coordinate
            let exact = Geodesic.wgs84.distance(origin, target)
            let fast = frame.chordDistance(toECEF: Ellipsoid.wgs84.ecef(target))
            worst = max(worst, abs(fast - exact))
        }
        #expect(worst <= GeodesicDistanceFrame.tolerance, "worst error \(worst) m")
    }

    @Test("beyond 20 km distance(to:) is Karney's; coincident points are 0")
    func farAndNear() throws {
        let liverpool = try Coordinate(latitude: 53.4055, longitude: -2.966)
        let cupertino = try Coordinate(latitude: 37.3230, longitude: -122.0322)
        let frame = GeodesicDistanceFrame(origin: liverpool)
        #expect(frame.distance(to: cupertino) == Geodesic.wgs84.distance(liverpool, cupertino))
        #expect(frame.distance(to: liverpool) == 0)
    }
}
