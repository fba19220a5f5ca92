import Testing
import TestSupport
@testable import Geodesy

@Suite("Local metric projection")
struct LocalProjectionTests {
    let origin = try! Coordinate(latitude: 53.4055, longitude: -2.9660)

    @Test("project then unproject returns the point to within a micrometre")
    func roundTrip() throws {
        let projection = LocalProjection(origin: origin)
        for (dx, dy) in [(0.0, 0.0), (120.0, -45.0), (-3000.0, 2500.0), (9000.0, 9000.0)] {
            let c = projection.unproject(x: dx, y: dy)
            let p = projection.project(c)
            #expect(abs(p.x - dx) < 1e-6 && abs(p.y - dy) < 1e-6)
        }
    }

    @Test("distances between projected points obey the stated bound (r/R)^2/6 within 10 km")
    func distanceBound() throws {
        let projection = LocalProjection(origin: origin)
        var generator = SplitMix64(seed: 7)
        let r = 10_000.0
        let bound = (r / 6_371_000) * (r / 6_371_000) / 6
        for _ in 0..<2000 {
            let a = projection.unproject(x: generator.uniform(-r / 1.5, r / 1.5), y: generator.uniform(-r / 1.5, r / 1.5))
            let b = projection.unproject(x: generator.uniform(-r / 1.5, r / 1.5), y: generator.uniform(-r / 1.5, r / 1.5))
            let pa = projection.project(a), pb = projection.project(b)
            let plane = ((pa.x - pb.x) * (pa.x - pb.x) + (pa.y - pb.y) * (pa.y - pb.y)).squareRoot()
            let geodesic = Geodesic.wgs84.distance(a, b)
            #expect(abs(plane - geodesic) <= bound * geodesic + 1e-6, "\(a) \(b): \(plane) vs \(geodesic)")
        }
    }
}

