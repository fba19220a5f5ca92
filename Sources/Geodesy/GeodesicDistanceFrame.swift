import Foundation

/// Fast geodesic distances from one reference point to many others.
///
/// With the target's Earth-centred (ECEF) position precomputed, the distance
/// is `s = 2R·asin(c/2R)`: `c` is the straight chord between the points and
/// `1/R = cos²α/M + sin²α/N` the Euler radius of curvature in the chord's
/// direction `α` (from its east and north components), with `M`, `N` the
/// WGS84 radii of curvature at the reference latitude. Up to
/// ``exactRange`` (20 km) this agrees with Karney's geodesic within 1e-6 m
/// (the test suite checks 20 000 random pairs; the observed error is about
/// 3e-7 m); beyond it ``distance(to:)`` falls back to Karney's method.
///
/// A ranking that must be exact compares these distances and refines any
/// pair closer than ``tolerance`` with Karney's method.
public struct GeodesicDistanceFrame: Sendable {
    /// Distances up to this many metres use the chord formula.
    /// (Inlinable, so that loops over millions of places in other modules test it without a call.)
    @inlinable public static var exactRange: Double { 20_000 }
    /// The chord formula's error bound within ``exactRange``, metres.
    @inlinable public static var tolerance: Double { 1e-6 }

    /// A tighter bound by distance, metres: the series' error grows with the
    /// cube of the distance, and below 5 km what is left is the rounding of
    /// ECEF coordinates (about 1e-9 m each). Observed worst over 40 000 random
    /// pairs at latitudes up to 85°: 6.3e-9 m to 5 km, 4.9e-8 m to 10 km,
    /// 4.6e-7 m to 20 km; the bounds are 3 to 4 times those (the test suite
    /// checks them band by band).
    @inlinable @inline(__always)
    public static func tolerance(atDistance d: Double) -> Double {
        d <= 5000 ? 2e-8 : (d <= 10_000 ? 2e-7 : tolerance)
    }

    public let origin: Coordinate
    public let originECEF: SIMD3<Double>
    @usableFromInline let east: SIMD3<Double>
    @usableFromInline let north: SIMD3<Double>
    @usableFromInline let inverseM: Double
    @usableFromInline let inverseN: Double
    private let geodesic: Geodesic

    public init(origin: Coordinate, geodesic: Geodesic = .wgs84) {
        self.origin = origin
        self.geodesic = geodesic
        let e = geodesic.ellipsoid
        originECEF = e.ecef(origin)
        let (sphi, cphi) = GeoMath.sincosd(origin.latitude)
        let (slam, clam) = GeoMath.sincosd(origin.longitude)
        east = SIMD3(-slam, clam, 0)
        north = SIMD3(-sphi * clam, -sphi * slam, cphi)
        inverseM = 1 / e.meridionalRadius(atLatitude: origin.latitude)
        inverseN = 1 / e.primeVerticalRadius(atLatitude: origin.latitude)
    }

    /// Chord-formula distance to a point given by its ECEF position; valid within ``exactRange``.
    /// (Inlinable: loops over thousands of places in other modules compute it without a call.)
    @inlinable @inline(__always)
    public func chordDistance(toECEF p: SIMD3<Double>) -> Double {
        let c = p - originECEF
        let chord2 = (c * c).sum()
        guard chord2 > 0 else { return 0 }
        let ce = (c * east).sum(), cn = (c * north).sum()
        let horizontal2 = ce * ce + cn * cn
        let inverseR = horizontal2 > 0 ? (cn * cn * inverseM + ce * ce * inverseN) / horizontal2 : inverseM
        let r = 1 / inverseR
        return 2 * r * asin(min(1, chord2.squareRoot() * inverseR / 2))
    }

    /// ``chordDistance(toECEF:)`` for a frame kept in a variable, read where it
    /// lies: Swift passes a struct this large to a method by a pointer to a
    /// copy of it, made at every call, while a `mutating` method gets the
    /// variable's own address. Nothing in the frame changes.
    public mutating func chordDistanceInPlace(toECEF p: SIMD3<Double>) -> Double {
        chordDistance(toECEF: p)
    }

    /// Geodesic distance to `c`: the chord formula within ``exactRange``, Karney beyond.
    public func distance(to c: Coordinate) -> Double {
        let d = chordDistance(toECEF: geodesic.ellipsoid.ecef(c))
        return d <= Self.exactRange ? d : geodesic.distance(origin, c)
    }
}
