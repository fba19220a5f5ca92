import Testing
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

/// A small seeded generator for tests (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo..<hi, using: &self) }
}
