import Foundation

/// Geodesics on an ellipsoid of revolution by Karney's method.
///
/// C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 43–55 (2013),
/// doi:10.1007/s00190-012-0578-z; transcribed from GeographicLib's reference
/// implementation (series to order 6). Accuracy on WGS84: distances to about
/// 15 nm, azimuths to about 1e-12°, for every pair of points including
/// coincident, antipodal, polar and equatorial ones. The test suite checks
/// this against thousands of cases generated independently with
/// GeographicLib (`Tests/GeodesyTests/Reference`).
///
/// iOS `CLLocation.distance(from:)` agrees with this to the millimetre, so it
/// is the contract for every distance Stroll reports.
public struct Geodesic: Sendable {
    /// The inverse problem's answer: the shortest path from point 1 to point 2.
    public struct Inverse: Sendable, Equatable {
        /// Distance in metres.
        public var distance: Double
        /// Forward azimuth at point 1, degrees clockwise from north in [-180, 180].
        public var azimuth1: Double
        /// Forward azimuth at point 2 (GeodSolve's `azi2`), degrees.
        public var azimuth2: Double
        /// Arc length on the auxiliary sphere, degrees.
        public var arc: Double
    }

    /// The direct problem's answer: where a path of given start, azimuth and length ends.
    public struct Direct: Sendable, Equatable {
        public var coordinate: Coordinate
        /// Forward azimuth at the end point, degrees.
        public var azimuth2: Double
    }

    public static let wgs84 = Geodesic(Ellipsoid.wgs84)

    public let ellipsoid: Ellipsoid
    let f1: Double, e2: Double, ep2: Double, n: Double, b: Double, etol2: Double
    private let a3x: [Double]
    private let c3x: [Double]

    static let order = 6
    private static let nC3x = (order * (order - 1)) / 2
    private static let maxit1 = 20
    private static let maxit2 = maxit1 + Double.significandBitCount + 1 + 10
    static let tiny = Double.leastNormalMagnitude.squareRoot()
    private static let tol0 = Double.ulpOfOne
    private static let tol1 = 200 * tol0
    private static let tol2 = tol0.squareRoot()
    private static let tolb = tol0
    private static let xthresh = 1000 * tol2

    public init(_ ellipsoid: Ellipsoid) {
        self.ellipsoid = ellipsoid
        let f = ellipsoid.flattening
        f1 = 1 - f
        e2 = f * (2 - f)
        ep2 = e2 / GeoMath.sq(f1)
        n = f / (2 - f)
        b = ellipsoid.semiMajorAxis * f1
        etol2 = 0.1 * Self.tol2 / (max(0.001, abs(f)) * min(1.0, 1 - f / 2) / 2).squareRoot()
        a3x = Self.a3Coefficients(n)
        c3x = Self.c3Coefficients(n)
    }

    // MARK: Public problems

    /// Solves the inverse problem between two coordinates.
    public func inverse(_ p1: Coordinate, _ p2: Coordinate) -> Inverse {
        inverse(latitude1: p1.latitude, longitude1: p1.longitude, latitude2: p2.latitude, longitude2: p2.longitude)
    }

    /// Distance in metres between two coordinates along the geodesic.
    public func distance(_ p1: Coordinate, _ p2: Coordinate) -> Double {
        inverse(p1, p2).distance
    }

    /// Solves the inverse problem for raw degrees (latitudes outside [-90, 90] give NaN).
    public func inverse(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Inverse {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * (Self.order + 1)) { buffer in
            genInverse(latitude1, longitude1, latitude2, longitude2, buffer)
        }
    }

    /// Solves the direct problem: the point `distance` metres from `start` along azimuth `azimuth`.
    public func direct(from start: Coordinate, azimuth: Double, distance: Double) -> Direct {
        GeodesicLine(self, start: start, azimuth: azimuth).position(at: distance)
    }

    // MARK: Series (GeographicLib's coefficient tables)

    static func sinCosSeries(_ sinp: Bool, _ sinx: Double, _ cosx: Double, _ c: UnsafeMutableBufferPointer<Double>) -> Double {
        var k = c.count
        var n = k - (sinp ? 1 : 0)
        let ar = 2 * (cosx - sinx) * (cosx + sinx)
        var y0 = 0.0, y1 = 0.0
        if n & 1 != 0 {
            k -= 1
            y0 = c[k]
        }
        n /= 2
        while n > 0 {
            n -= 1
            k -= 1
            y1 = ar * y0 - y1 + c[k]
            k -= 1
            y0 = ar * y1 - y0 + c[k]
        }
        return sinp ? 2 * sinx * cosx * y0 : cosx * (y0 - y1)
    }

    private static func astroid(_ x: Double, _ y: Double) -> Double {
        let p = GeoMath.sq(x), q = GeoMath.sq(y)
        let r = (p + q - 1) / 6
        guard !(q == 0 && r <= 0) else { return 0 }
        let s = p * q / 4
        let r2 = GeoMath.sq(r), r3 = r * r2
        let disc = s * (s + 2 * r3)
        var u = r
        if disc >= 0 {
            var t3 = s + r3
            t3 += t3 < 0 ? -disc.squareRoot() : disc.squareRoot()
            let t = cbrt(t3)
            u += t + (t != 0 ? r2 / t : 0)
        } else {
            let ang = atan2((-disc).squareRoot(), -(s + r3))
            u += 2 * r * cos(ang / 3)
        }
        let v = (GeoMath.sq(u) + q).squareRoot()
        let uv = u < 0 ? q / (v - u) : u + v
        let w = (uv - q) / (2 * v)
        return uv / ((uv + GeoMath.sq(w)).squareRoot() + w)
    }

    private static let a1Coeff: [Double] = [1, 4, 64, 0, 256]
    static func a1m1f(_ eps: Double) -> Double {
        let m = order / 2
        let t = GeoMath.polyval(m, a1Coeff, 0, GeoMath.sq(eps)) / a1Coeff[m + 1]
        return (t + eps) / (1 - eps)
    }

    static let c1Coeff: [Double] = [-1, 6, -16, 32, -9, 64, -128, 2048, 9, -16, 768, 3, -5, 512, -7, 1280, -7, 2048]
    static let c1pCoeff: [Double] = [205, -432, 768, 1536, 4005, -4736, 3840, 12288, -225, 116, 384, -7173, 2695, 7680, 3467, 7680, 38081, 61440]
    private static let c2Coeff: [Double] = [1, 2, 16, 32, 35, 64, 384, 2048, 15, 80, 768, 7, 35, 512, 63, 1280, 77, 2048]

    static func evenSeries(_ coeff: [Double], _ eps: Double, _ c: UnsafeMutableBufferPointer<Double>) {
        let eps2 = GeoMath.sq(eps)
        var d = eps
        var o = 0
        for l in 1...order {
            let m = (order - l) / 2
            c[l] = d * GeoMath.polyval(m, coeff, o, eps2) / coeff[o + m + 1]
            o += m + 2
            d *= eps
        }
    }

    private static let a2Coeff: [Double] = [-11, -28, -192, 0, 256]
    private static func a2m1f(_ eps: Double) -> Double {
        let m = order / 2
        let t = GeoMath.polyval(m, a2Coeff, 0, GeoMath.sq(eps)) / a2Coeff[m + 1]
        return (t - eps) / (1 + eps)
    }

    private static func a3Coefficients(_ n: Double) -> [Double] {
        let coeff: [Double] = [-3, 128, -2, -3, 64, -1, -3, -1, 16, 3, -1, -2, 8, 1, -1, 2, 1, 1]
        var out = [Double](repeating: 0, count: order)
        var o = 0, k = 0
        for j in stride(from: order - 1, through: 0, by: -1) {
            let m = min(order - j - 1, j)
            out[k] = GeoMath.polyval(m, coeff, o, n) / coeff[o + m + 1]
            k += 1
            o += m + 2
        }
        return out
    }

    private static func c3Coefficients(_ n: Double) -> [Double] {
        let coeff: [Double] = [
            3, 128, 2, 5, 128, -1, 3, 3, 64, -1, 0, 1, 8, -1, 1, 4, 5, 256, 1, 3, 128, -3, -2, 3, 64, 1, -3, 2, 32,
            7, 512, -10, 9, 384, 5, -9, 5, 192, 7, 512, -14, 7, 512, 21, 2560,
        ]
        var out = [Double](repeating: 0, count: nC3x)
        var o = 0, k = 0
        for l in 1..<order {
            for j in stride(from: order - 1, through: l, by: -1) {
                let m = min(order - j - 1, j)
                out[k] = GeoMath.polyval(m, coeff, o, n) / coeff[o + m + 1]
                k += 1
                o += m + 2
            }
        }
        return out
    }

    func a3f(_ eps: Double) -> Double {
        GeoMath.polyval(Self.order - 1, a3x, 0, eps)
    }

    func c3f(_ eps: Double, _ c: UnsafeMutableBufferPointer<Double>) {
        var mult = 1.0
        var o = 0
        for l in 1..<Self.order {
            let m = Self.order - l - 1
            mult *= eps
            c[l] = mult * GeoMath.polyval(m, c3x, o, eps)
            o += m + 1
        }
    }

    // MARK: Inverse problem

    /// Distance (`s12b`) and reduced length (`m12b`, `m0`) in units of b.
    private func lengths(
        _ eps: Double, _ sig12: Double,
        _ ssig1: Double, _ csig1: Double, _ dn1: Double,
        _ ssig2: Double, _ csig2: Double, _ dn2: Double,
        distance: Bool, reduced: Bool,
        _ c1a: UnsafeMutableBufferPointer<Double>, _ c2a: UnsafeMutableBufferPointer<Double>
    ) -> (s12b: Double, m12b: Double, m0: Double) {
        var s12b = Double.nan, m12b = Double.nan, m0 = Double.nan
        var a1 = Self.a1m1f(eps)
        Self.evenSeries(Self.c1Coeff, eps, c1a)
        var a2 = 0.0, m0x = 0.0
        if reduced {
            a2 = Self.a2m1f(eps)
            Self.evenSeries(Self.c2Coeff, eps, c2a)
            m0x = a1 - a2
            a2 = 1 + a2
        }
        a1 = 1 + a1
        var j12 = 0.0
        if distance {
            let b1 = Self.sinCosSeries(true, ssig2, csig2, c1a) - Self.sinCosSeries(true, ssig1, csig1, c1a)
            s12b = a1 * (sig12 + b1)
            if reduced {
                let b2 = Self.sinCosSeries(true, ssig2, csig2, c2a) - Self.sinCosSeries(true, ssig1, csig1, c2a)
                j12 = m0x * sig12 + (a1 * b1 - a2 * b2)
            }
        } else if reduced {
            for l in 1...Self.order { c2a[l] = a1 * c1a[l] - a2 * c2a[l] }
            j12 = m0x * sig12 + (Self.sinCosSeries(true, ssig2, csig2, c2a) - Self.sinCosSeries(true, ssig1, csig1, c2a))
        }
        if reduced {
            m0 = m0x
            m12b = dn2 * (csig1 * ssig2) - dn1 * (ssig1 * csig2) - csig1 * csig2 * j12
        }
        return (s12b, m12b, m0)
    }

    private struct Start {
        var sig12 = -1.0, salp1 = 0.0, calp1 = 0.0, salp2 = Double.nan, calp2 = Double.nan, dnm = Double.nan
    }

    private func inverseStart(
        _ sbet1: Double, _ cbet1: Double, _ dn1: Double,
        _ sbet2: Double, _ cbet2: Double, _ dn2: Double,
        _ lam12: Double, _ slam12: Double, _ clam12: Double,
        _ c1a: UnsafeMutableBufferPointer<Double>, _ c2a: UnsafeMutableBufferPointer<Double>
    ) -> Start {
        var r = Start()
        let f = ellipsoid.flattening
        let sbet12 = sbet2 * cbet1 - cbet2 * sbet1
        let cbet12 = cbet2 * cbet1 + sbet2 * sbet1
        var sbet12a = sbet2 * cbet1
        sbet12a += cbet2 * sbet1
        let shortline = cbet12 >= 0 && sbet12 < 0.5 && cbet2 * lam12 < 0.5
        var somg12: Double, comg12: Double
        if shortline {
            var sbetm2 = GeoMath.sq(sbet1 + sbet2)
            sbetm2 /= sbetm2 + GeoMath.sq(cbet1 + cbet2)
            r.dnm = (1 + ep2 * sbetm2).squareRoot()
            let omg12 = lam12 / (f1 * r.dnm)
            somg12 = sin(omg12)
            comg12 = cos(omg12)
        } else {
            somg12 = slam12
            comg12 = clam12
        }
        r.salp1 = cbet2 * somg12
        r.calp1 = comg12 >= 0
            ? sbet12 + cbet2 * sbet1 * GeoMath.sq(somg12) / (1 + comg12)
            : sbet12a - cbet2 * sbet1 * GeoMath.sq(somg12) / (1 - comg12)
        let ssig12 = hypot(r.salp1, r.calp1)
        let csig12 = sbet1 * sbet2 + cbet1 * cbet2 * comg12
        if shortline && ssig12 < etol2 {
            r.salp2 = cbet1 * somg12
            r.calp2 = sbet12 - cbet1 * sbet2 * (comg12 >= 0 ? GeoMath.sq(somg12) / (1 + comg12) : 1 - comg12)
            (r.salp2, r.calp2) = GeoMath.norm(r.salp2, r.calp2)
            r.sig12 = atan2(ssig12, csig12)
        } else if abs(n) >= 0.1 || csig12 >= 0 || ssig12 >= 6 * abs(n) * .pi * GeoMath.sq(cbet1) {
            // Zeroth-order spherical approximation is good enough.
        } else {
            let lam12x = atan2(-slam12, -clam12)
            var x: Double, y: Double, lamscale: Double, betscale: Double
            if f >= 0 {
                let k2 = GeoMath.sq(sbet1) * ep2
                let eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
                lamscale = f * cbet1 * a3f(eps) * .pi
                betscale = lamscale * cbet1
                x = lam12x / lamscale
                y = sbet12a / betscale
            } else {
                let cbet12a = cbet2 * cbet1 - sbet2 * sbet1
                let bet12a = atan2(sbet12a, cbet12a)
                let l = lengths(n, .pi + bet12a, sbet1, -cbet1, dn1, sbet2, cbet2, dn2, distance: false, reduced: true, c1a, c2a)
                x = -1 + l.m12b / (cbet1 * cbet2 * l.m0 * .pi)
                betscale = x < -0.01 ? sbet12a / x : -f * GeoMath.sq(cbet1) * .pi
                lamscale = betscale / cbet1
                y = lam12x / lamscale
            }
            if y > -Self.tol1 && x > -1 - Self.xthresh {
                if f >= 0 {
                    r.salp1 = min(1.0, -x)
                    r.calp1 = -(1 - GeoMath.sq(r.salp1)).squareRoot()
                } else {
                    r.calp1 = max(x > -Self.tol1 ? 0.0 : -1.0, x)
                    r.salp1 = (1 - GeoMath.sq(r.calp1)).squareRoot()
                }
            } else {
                let k = Self.astroid(x, y)
                let omg12a = lamscale * (f >= 0 ? -x * k / (1 + k) : -y * (1 + k) / k)
                somg12 = sin(omg12a)
                comg12 = -cos(omg12a)
                r.salp1 = cbet2 * somg12
                r.calp1 = sbet12a - cbet2 * sbet1 * GeoMath.sq(somg12) / (1 - comg12)
            }
        }
        if !(r.salp1 <= 0) {
            (r.salp1, r.calp1) = GeoMath.norm(r.salp1, r.calp1)
        } else {
            r.salp1 = 1
            r.calp1 = 0
        }
        return r
    }

    private struct Lambda {
        var lam12 = 0.0, salp2 = 0.0, calp2 = 0.0, sig12 = 0.0
        var ssig1 = 0.0, csig1 = 0.0, ssig2 = 0.0, csig2 = 0.0, eps = 0.0, dlam12 = Double.nan
    }

    private func lambda12(
        _ sbet1: Double, _ cbet1: Double, _ dn1: Double,
        _ sbet2: Double, _ cbet2: Double, _ dn2: Double,
        _ salp1: Double, _ calp1In: Double, _ slam120: Double, _ clam120: Double, diffp: Bool,
        _ c1a: UnsafeMutableBufferPointer<Double>, _ c2a: UnsafeMutableBufferPointer<Double>,
        _ c3a: UnsafeMutableBufferPointer<Double>
    ) -> Lambda {
        var r = Lambda()
        var calp1 = calp1In
        if sbet1 == 0 && calp1 == 0 { calp1 = -Self.tiny }
        let salp0 = salp1 * cbet1
        let calp0 = hypot(calp1, salp1 * sbet1)
        let somg1 = salp0 * sbet1
        let comg1 = calp1 * cbet1
        (r.ssig1, r.csig1) = GeoMath.norm(sbet1, comg1)
        r.salp2 = cbet2 != cbet1 ? salp0 / cbet2 : salp1
        if cbet2 != cbet1 || abs(sbet2) != -sbet1 {
            let t = cbet1 < -sbet1 ? (cbet2 - cbet1) * (cbet1 + cbet2) : (sbet1 - sbet2) * (sbet1 + sbet2)
            r.calp2 = (GeoMath.sq(calp1 * cbet1) + t).squareRoot() / cbet2
        } else {
            r.calp2 = abs(calp1)
        }
        let somg2 = salp0 * sbet2
        let comg2 = r.calp2 * cbet2
        (r.ssig2, r.csig2) = GeoMath.norm(sbet2, comg2)
        r.sig12 = atan2(max(0.0, r.csig1 * r.ssig2 - r.ssig1 * r.csig2) + 0.0, r.csig1 * r.csig2 + r.ssig1 * r.ssig2)
        let somg12 = max(0.0, comg1 * somg2 - somg1 * comg2) + 0.0
        let comg12 = comg1 * comg2 + somg1 * somg2
        let eta = atan2(somg12 * clam120 - comg12 * slam120, comg12 * clam120 + somg12 * slam120)
        let k2 = GeoMath.sq(calp0) * ep2
        r.eps = k2 / (2 * (1 + (1 + k2).squareRoot()) + k2)
        c3f(r.eps, c3a)
        let b312 = Self.sinCosSeries(true, r.ssig2, r.csig2, c3a) - Self.sinCosSeries(true, r.ssig1, r.csig1, c3a)
        let domg12 = -ellipsoid.flattening * a3f(r.eps) * salp0 * (r.sig12 + b312)
        r.lam12 = eta + domg12
        if diffp {
            if r.calp2 == 0 {
                r.dlam12 = -2 * f1 * dn1 / sbet1
            } else {
                let l = lengths(r.eps, r.sig12, r.ssig1, r.csig1, dn1, r.ssig2, r.csig2, dn2, distance: false, reduced: true, c1a, c2a)
                r.dlam12 = l.m12b * f1 / (r.calp2 * cbet2)
            }
        }
        return r
    }

    private func genInverse(_ lat1In: Double, _ lon1: Double, _ lat2In: Double, _ lon2: Double, _ buffer: UnsafeMutableBufferPointer<Double>) -> Inverse {
        let k = Self.order + 1
        let c1a = UnsafeMutableBufferPointer(rebasing: buffer[0..<k])
        let c2a = UnsafeMutableBufferPointer(rebasing: buffer[k..<(2 * k)])
        let c3a = UnsafeMutableBufferPointer(rebasing: buffer[(2 * k)..<(3 * k - 1)])
        let a = ellipsoid.semiMajorAxis, f = ellipsoid.flattening

        var (lon12, lon12s) = GeoMath.angDiff(lon1, lon2)
        var lonsign: Double = lon12.sign == .minus ? -1 : 1
        lon12 *= lonsign
        lon12s *= lonsign
        let lam12 = lon12 * .pi / 180
        let (slam12, clam12) = GeoMath.sincosde(lon12, lon12s)
        lon12s = (180 - lon12) - lon12s

        var lat1 = GeoMath.angRound(GeoMath.latFix(lat1In))
        var lat2 = GeoMath.angRound(GeoMath.latFix(lat2In))
        let swapp: Double = abs(lat1) < abs(lat2) || lat2.isNaN ? -1 : 1
        if swapp < 0 {
            lonsign *= -1
            swap(&lat1, &lat2)
        }
        let latsign: Double = (-lat1).sign == .minus ? -1 : 1
        lat1 *= latsign
        lat2 *= latsign

        var (sbet1, cbet1) = GeoMath.sincosd(lat1)
        sbet1 *= f1
        (sbet1, cbet1) = GeoMath.norm(sbet1, cbet1)
        cbet1 = max(Self.tiny, cbet1)
        var (sbet2, cbet2) = GeoMath.sincosd(lat2)
        sbet2 *= f1
        (sbet2, cbet2) = GeoMath.norm(sbet2, cbet2)
        cbet2 = max(Self.tiny, cbet2)

        if cbet1 < -sbet1 {
            if cbet2 == cbet1 { sbet2 = sbet2.sign == .minus ? -abs(sbet1) : abs(sbet1) }
        } else if abs(sbet2) == -sbet1 {
            cbet2 = cbet1
        }
        let dn1 = (1 + ep2 * GeoMath.sq(sbet1)).squareRoot()
        let dn2 = (1 + ep2 * GeoMath.sq(sbet2)).squareRoot()

        var a12 = Double.nan, s12x = Double.nan, m12x = Double.nan
        var salp1 = 0.0, calp1 = 0.0, salp2 = 0.0, calp2 = 0.0
        var meridian = lat1 == -90 || slam12 == 0

        if meridian {
            calp1 = clam12
            salp1 = slam12
            calp2 = 1
            salp2 = 0
            let ssig1 = sbet1, csig1 = calp1 * cbet1
            let ssig2 = sbet2, csig2 = calp2 * cbet2
            var sig12 = atan2(max(0.0, csig1 * ssig2 - ssig1 * csig2) + 0.0, csig1 * csig2 + ssig1 * ssig2)
            let l = lengths(n, sig12, ssig1, csig1, dn1, ssig2, csig2, dn2, distance: true, reduced: true, c1a, c2a)
            s12x = l.s12b
            m12x = l.m12b
            if sig12 < Self.tol2 || m12x >= 0 {
                if sig12 < 3 * Self.tiny || (sig12 < Self.tol0 && (s12x < 0 || m12x < 0)) {
                    sig12 = 0
                    m12x = 0
                    s12x = 0
                }
                m12x *= b
                s12x *= b
                a12 = sig12 * 180 / .pi
            } else {
                meridian = false
            }
        }

        if !meridian && sbet1 == 0 && (f <= 0 || lon12s >= f * 180) {
            calp1 = 0
            calp2 = 0
            salp1 = 1
            salp2 = 1
            s12x = a * lam12
            a12 = lon12 / f1
        } else if !meridian {
            let start = inverseStart(sbet1, cbet1, dn1, sbet2, cbet2, dn2, lam12, slam12, clam12, c1a, c2a)
            salp1 = start.salp1
            calp1 = start.calp1
            if start.sig12 >= 0 {
                salp2 = start.salp2
                calp2 = start.calp2
                s12x = start.sig12 * b * start.dnm
                a12 = start.sig12 * 180 / .pi
            } else {
                var numit = 0
                var tripn = false, tripb = false
                var salp1a = Self.tiny, calp1a = 1.0
                var salp1b = Self.tiny, calp1b = -1.0
                var lam: Lambda
                while true {
                    lam = lambda12(sbet1, cbet1, dn1, sbet2, cbet2, dn2, salp1, calp1, slam12, clam12,
                                   diffp: numit < Self.maxit1, c1a, c2a, c3a)
                    let v = lam.lam12
                    if tripb || !(abs(v) >= (tripn ? 8 : 1) * Self.tol0) || numit == Self.maxit2 { break }
                    if v > 0 && (numit > Self.maxit1 || calp1 / salp1 > calp1b / salp1b) {
                        salp1b = salp1
                        calp1b = calp1
                    } else if v < 0 && (numit > Self.maxit1 || calp1 / salp1 < calp1a / salp1a) {
                        salp1a = salp1
                        calp1a = calp1
                    }
                    numit += 1
                    if numit < Self.maxit1 && lam.dlam12 > 0 {
                        let dalp1 = -v / lam.dlam12
                        if abs(dalp1) < .pi {
                            let sdalp1 = sin(dalp1), cdalp1 = cos(dalp1)
                            let nsalp1 = salp1 * cdalp1 + calp1 * sdalp1
                            if nsalp1 > 0 {
                                calp1 = calp1 * cdalp1 - salp1 * sdalp1
                                salp1 = nsalp1
                                (salp1, calp1) = GeoMath.norm(salp1, calp1)
                                tripn = abs(v) <= 16 * Self.tol0
                                continue
                            }
                        }
                    }
                    salp1 = (salp1a + salp1b) / 2
                    calp1 = (calp1a + calp1b) / 2
                    (salp1, calp1) = GeoMath.norm(salp1, calp1)
                    tripn = false
                    tripb = abs(salp1a - salp1) + (calp1a - calp1) < Self.tolb
                        || abs(salp1 - salp1b) + (calp1 - calp1b) < Self.tolb
                }
                salp2 = lam.salp2
                calp2 = lam.calp2
                let l = lengths(lam.eps, lam.sig12, lam.ssig1, lam.csig1, dn1, lam.ssig2, lam.csig2, dn2,
                                distance: true, reduced: false, c1a, c2a)
                s12x = l.s12b * b
                a12 = lam.sig12 * 180 / .pi
            }
        }

        let s12 = 0.0 + s12x
        if swapp < 0 {
            swap(&salp1, &salp2)
            swap(&calp1, &calp2)
        }
        salp1 *= swapp * lonsign
        calp1 *= swapp * latsign
        salp2 *= swapp * lonsign
        calp2 *= swapp * latsign
        return Inverse(distance: s12, azimuth1: GeoMath.atan2d(salp1, calp1), azimuth2: GeoMath.atan2d(salp2, calp2), arc: a12)
    }
}
