import Foundation

/// Exact angle helpers after GeographicLib's `Math` class (C. F. F. Karney):
/// degree-based trigonometry that is exact at multiples of 90°, and
/// error-free sums, so that azimuths and distances keep full precision.
enum GeoMath {
    @inline(__always) static func sq(_ x: Double) -> Double { x * x }

    @inline(__always) static func norm(_ x: Double, _ y: Double) -> (Double, Double) {
        let r = hypot(x, y)
        return (x / r, y / r)
    }

    /// Error-free transformation of a sum: `s + t == u + v` exactly.
    @inline(__always) static func sum(_ u: Double, _ v: Double) -> (s: Double, t: Double) {
        let s = u + v
        var up = s - v
        var vpp = s - up
        up -= u
        vpp -= v
        let t = s == 0 ? s : 0.0 - (up + vpp)
        return (s, t)
    }

    static func polyval(_ n: Int, _ p: UnsafeBufferPointer<Double>, _ start: Int, _ x: Double) -> Double {
        var n = n
        var s = start
        var y = n < 0 ? 0 : p[s]
        while n > 0 {
            n -= 1
            s += 1
            y = y * x + p[s]
        }
        return y
    }

    static func polyval(_ n: Int, _ p: [Double], _ start: Int, _ x: Double) -> Double {
        p.withUnsafeBufferPointer { polyval(n, $0, start, x) }
    }

    /// Rounds tiny angles so that they underflow to zero cleanly.
    @inline(__always) static func angRound(_ x: Double) -> Double {
        let z = 1.0 / 16.0
        var y = abs(x)
        if y < z { y = z - (z - y) }
        return x.sign == .minus ? -y : y
    }

    /// `x` reduced to [-180, 180] (IEEE remainder by 360). An angle already
    /// within ±180° is its own remainder (±180 too: the tie goes to the even
    /// quotient, 0), so it is returned as it is, without the library call.
    @inline(__always) static func remainder360(_ x: Double) -> Double {
        if abs(x) <= 180 { return x }
        return x.isFinite ? Foundation.remainder(x, 360) : .nan
    }

    static func angNormalize(_ x: Double) -> Double {
        let y = remainder360(x)
        return abs(y) == 180 ? (x.sign == .minus ? -180 : 180) : y
    }

    @inline(__always) static func latFix(_ x: Double) -> Double { abs(x) > 90 ? .nan : x }

    /// `y - x` reduced to [-180, 180] accurately, with its rounding error.
    static func angDiff(_ x: Double, _ y: Double) -> (d: Double, t: Double) {
        var (d, t) = sum(remainder360(-x), remainder360(y))
        (d, t) = sum(remainder360(d), t)
        if d == 0 || abs(d) == 180 {
            let sign = t == 0 ? y - x : -t
            d = sign.sign == .minus ? -abs(d) : abs(d)
        }
        return (d, t)
    }

    @inline(__always) private static func quadrant(_ s: Double, _ c: Double, _ q: Int) -> (Double, Double) {
        switch q & 3 {
        case 1: return (c, -s)
        case 2: return (-s, -c)
        case 3: return (-c, s)
        default: return (s, c)
        }
    }

    /// Sine and cosine of `x` degrees, exact at multiples of 90°.
    static func sincosd(_ x: Double) -> (s: Double, c: Double) {
        // fmod(x, 360) is x itself when |x| < 360: no library call then.
        var r = abs(x) < 360 ? x : (x.isFinite ? fmod(x, 360) : .nan)
        let q = r.isNaN ? 0 : Int((r / 90).rounded(.toNearestOrEven))
        r -= 90 * Double(q)
        r *= .pi / 180
        var (s, c) = quadrant(sin(r), cos(r), q)
        c += 0.0
        if s == 0 { s = x.sign == .minus ? -0.0 : 0.0 }
        return (s, c)
    }

    /// Sine and cosine of `x + t` degrees, `x` in [-180, 180] and `t` its small correction.
    static func sincosde(_ x: Double, _ t: Double) -> (s: Double, c: Double) {
        let q = x.isFinite ? Int((x / 90).rounded(.toNearestOrEven)) : 0
        let r = angRound(x - 90 * Double(q) + t) * .pi / 180
        var (s, c) = quadrant(sin(r), cos(r), q)
        c += 0.0
        if s == 0 { s = x.sign == .minus ? -0.0 : 0.0 }
        return (s, c)
    }

    /// `atan2(y, x)` in degrees, exact for the axes.
    static func atan2d(_ y: Double, _ x: Double) -> Double {
        var x = x, y = y
        var q = 0
        if abs(y) > abs(x) {
            q = 2
            swap(&x, &y)
        }
        if x.sign == .minus {
            q += 1
            x = -x
        }
        let ang = atan2(y, x) * 180 / .pi
        switch q {
        case 1: return (y.sign == .minus ? -180.0 : 180.0) - ang
        case 2: return 90 - ang
        case 3: return -90 + ang
        default: return ang
        }
    }
}
