import Foundation

/// Points along one geodesic from a start and an azimuth (Karney's direct
/// problem with the per-line coefficients computed once). Finding a position
/// costs a few trigonometric calls and allocates nothing, so a replay can
/// interpolate many fixes along a leg cheaply.
public struct GeodesicLine: Sendable {
    public let start: Coordinate
    /// Azimuth at the start, degrees.
    public let azimuth: Double
    private let f: Double, f1: Double, b: Double
    private let salp0: Double, calp0: Double, ssig1: Double, csig1: Double, somg1: Double, comg1: Double, k2: Double
    private let a1m1: Double, b11: Double, stau1: Double, ctau1: Double, a3c: Double, b31: Double
    /// `b * (1 + a1m1)`, and the start's longitude in [-180, 180]: the same for every position.
    private let tauScale: Double, lon1: Double
    private var c1a = SIMD8<Double>(), c1pa = SIMD8<Double>(), c3a = SIMD8<Double>()

    public init(_ geodesic: borrowing Geodesic = .wgs84, start: Coordinate, azimuth: Double) {
        self.start = start
        self.azimuth = azimuth
        f = geodesic.ellipsoid.flattening
        f1 = geodesic.f1
        b = geodesic.b
        let (salp1, calp1) = GeoMath.sincosd(GeoMath.angRound(azimuth))
        var (sbet1, cbet1) = GeoMath.sincosd(GeoMath.angRound(start.latitude))
        sbet1 *= f1
        (sbet1, cbet1) = GeoMath.norm(sbet1, cbet1)
        cbet1 = max(Geodesic.tiny, cbet1)
        salp0 = salp1 * cbet1
        calp0 = hypot(calp1, salp1 * sbet1)
        somg1 = salp0 * sbet1
        comg1 = sbet1 != 0 || calp1 != 0 ? cbet1 * calp1 : 1
        (ssig1, csig1) = GeoMath.norm(sbet1, comg1)
        k2 = GeoMath.sq(calp0) * geodesic.ep2
        let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        a1m1 = Geodesic.a1m1f(eps)
        tauScale = b * (1 + a1m1)
        lon1 = GeoMath.angNormalize(start.longitude)
        var c1 = SIMD8<Double>(), c1p = SIMD8<Double>(), c3 = SIMD8<Double>()
        Self.fill(&c1, count: 7) { Geodesic.evenSeries(Geodesic.c1Coeff, eps, $0) }
        Self.fill(&c1p, count: 7) { Geodesic.evenSeries(Geodesic.c1pCoeff, eps, $0) }
        Self.fill(&c3, count: 6) { geodesic.c3f(eps, $0) }
        c1a = c1
        c1pa = c1p
        c3a = c3
        let b11 = Self.series(true, ssig1, csig1, c1, count: 7)
        self.b11 = b11
        let sb11 = sin(b11), cb11 = cos(b11)
        stau1 = ssig1 * cb11 + csig1 * sb11
        ctau1 = csig1 * cb11 - ssig1 * sb11
        a3c = -f * salp0 * geodesic.a3f(eps)
        b31 = Self.series(true, ssig1, csig1, c3, count: 6)
    }

    private static func fill(_ v: inout SIMD8<Double>, count: Int, _ body: (UnsafeMutableBufferPointer<Double>) -> Void) {
        withUnsafeMutableBytes(of: &v) { raw in
            let all = raw.bindMemory(to: Double.self)
            body(UnsafeMutableBufferPointer(rebasing: all[0..<count]))
        }
    }

    private static func series(_ sinp: Bool, _ sinx: Double, _ cosx: Double, _ c: SIMD8<Double>, count: Int) -> Double {
        var c = c
        return withUnsafeMutableBytes(of: &c) { raw in
            let all = raw.bindMemory(to: Double.self)
            return Geodesic.sinCosSeries(sinp, sinx, cosx, UnsafeMutableBufferPointer(rebasing: all[0..<count]))
        }
    }

    /// The point `distance` metres along the line, with the forward azimuth there.
    public func position(at distance: Double) -> Geodesic.Direct {
        direct(distance)
    }

    /// ``position(at:)`` for a line kept in a variable, read where it lies.
    /// Swift passes a struct this large (368 bytes) to a method by a pointer
    /// to a copy of it, made at every call; a `mutating` method gets the
    /// variable's own address instead. Nothing in the line changes.
    public mutating func positionInPlace(at distance: Double) -> Geodesic.Direct {
        direct(distance)
    }

    @inline(__always)
    private func direct(_ distance: Double) -> Geodesic.Direct {
        var tau12 = distance / tauScale
        if !tau12.isFinite { tau12 = .nan }
        let s = sin(tau12), c = cos(tau12)
        var b12 = -Self.series(true, stau1 * c + ctau1 * s, ctau1 * c - stau1 * s, c1pa, count: 7)
        var sig12 = tau12 - (b12 - b11)
        var ssig12 = sin(sig12), csig12 = cos(sig12)
        if abs(f) > 0.01 {
            let ssig2 = ssig1 * csig12 + csig1 * ssig12
            let csig2 = csig1 * csig12 - ssig1 * ssig12
            b12 = Self.series(true, ssig2, csig2, c1a, count: 7)
            let serr = (1 + a1m1) * (sig12 + (b12 - b11)) - distance / b
            sig12 -= serr / (1 + k2 * GeoMath.sq(ssig2)).squareRoot()
            ssig12 = sin(sig12)
            csig12 = cos(sig12)
        }
        let ssig2 = ssig1 * csig12 + csig1 * ssig12
        var csig2 = csig1 * csig12 - ssig1 * ssig12
        let sbet2 = calp0 * ssig2
        var cbet2 = hypot(salp0, calp0 * csig2)
        if cbet2 == 0 {
            cbet2 = Geodesic.tiny
            csig2 = Geodesic.tiny
        }
        let salp2 = salp0, calp2 = calp0 * csig2
        let somg2 = salp0 * ssig2, comg2 = csig2
        let omg12 = atan2(somg2 * comg1 - comg2 * somg1, comg2 * comg1 + somg2 * somg1)
        let lam12 = omg12 + a3c * (sig12 + (Self.series(true, ssig2, csig2, c3a, count: 6) - b31))
        let lon12 = lam12 * 180 / .pi
        let lon2 = GeoMath.angNormalize(lon1 + GeoMath.angNormalize(lon12))
        let lat2 = GeoMath.atan2d(sbet2, f1 * cbet2)
        return Geodesic.Direct(coordinate: Coordinate(computedLatitude: lat2, longitude: lon2), azimuth2: GeoMath.atan2d(salp2, calp2))
    }
}
