import Geodesy

/// RankingIndex's distance maths: the walker's frame, the chord series, Karney's method where it decides, and keys and millimetres by blocks.
extension RankingIndex {
    /// A frame for the walker: ECEF position, local east and north, inverse radii of curvature.
    @usableFromInline
    struct Walker: Sendable {
        @usableFromInline let coordinate: Coordinate
        @usableFromInline let wx: Double, wy: Double, wz: Double
        @usableFromInline let nx: Double, ny: Double, nz: Double
        /// The series' coefficients, from the inverse radii of curvature `1/M`, `1/N`:
        /// `c²/(24N²)` and `2(1/N)(1/M − 1/N)/24`.
        @usableFromInline let a: Double, b: Double

        init(_ c: Coordinate, ellipsoid: Ellipsoid) {
            coordinate = c
            let (sphi, cphi) = Self.sinCos(degrees: c.latitude)
            let (slam, clam) = Self.sinCos(degrees: c.longitude)
            // ECEF from the same sines and cosines.
            // The square root and the division side by side (N = a·√w²/w²), and the
            // ellipsoid's own divisions waiting for neither.
            let e2 = ellipsoid.eccentricitySquared, semiMajor = ellipsoid.semiMajorAxis
            let w2 = 1 - e2 * sphi * sphi
            let root = w2.squareRoot()
            let nWalker = semiMajor / w2 * root
            wx = nWalker * cphi * clam
            wy = nWalker * cphi * slam
            wz = nWalker * (1 - e2) * sphi
            nx = -sphi * clam
            ny = -sphi * slam
            nz = cphi
            let invN = root * (1 / semiMajor)
            let invM = w2 * invN * (1 / (1 - e2))
            a = invN * invN * (1.0 / 24)
            b = invN * (invM - invN) * (2.0 / 24)
        }

        /// Sine and cosine of `x` degrees (|x| ≤ 180), within an ulp of the
        /// true values: `x` less the nearest multiple of 90° (exact), in radians,
        /// then fdlibm's kernels on [−π/4, π/4] (`__kernel_sin`, `__kernel_cos`,
        /// under an ulp there), the quadrant turned by swapping and negating.
        /// Both from one reduction, in two independent chains of multiplications and additions,
        /// in place of four libm calls on every update (an ulp here moves the
        /// walker by under 1e-9 m).
        @inlinable @inline(__always)
        static func sinCos(degrees x: Double) -> (sin: Double, cos: Double) {
            let bias = RankingIndex.roundingBias
            let biased = x * (1.0 / 90) + bias
            let quadrant = biased.bitPattern & 3     // the nearest multiple of 90°, modulo 4
            let r = (x - 90 * (biased - bias)) * (Double.pi / 180)
            let z = r * r
            let sr = 8.33333333332248946124e-03 + z * (-1.98412698298579493134e-04 + z * (2.75573137070700676789e-06
                + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)))
            let s = r + z * r * (-1.66666666666666324348e-01 + z * sr)
            let cr = z * (4.16666666666666019037e-02 + z * (-1.38888888888741095749e-03 + z * (2.48015872894767294178e-05
                + z * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))))
            let hz = 0.5 * z, w = 1 - hz
            let c = w + (((1 - w) - hz) + z * cr)
            switch quadrant {
            case 1: return (c, -s)
            case 2: return (-s, -c)
            case 3: return (-c, s)
            default: return (s, c)
            }
        }

        /// The chord series `s = c·(1 + c²/(24R²))` with the direction's radius of curvature
        /// expanded to first order in `1/M − 1/N` (a few parts in a thousand), so that no
        /// division is needed: `c²/R² ≈ c²/N² + 2(1/N)(1/M − 1/N)·c_north²`. The dropped
        /// terms are under 1e-8 m at 10 km; the whole stays within the tolerance up to 20 km (tested).
        @inlinable @inline(__always)
        func distance(_ px: Double, _ py: Double, _ pz: Double) -> Double {
            let dx = px - wx, dy = py - wy, dz = pz - wz
            let c2 = dx * dx + dy * dy + dz * dz
            let cn = dx * nx + dy * ny + dz * nz
            return c2.squareRoot() * (1 + c2 * a + b * cn * cn)
        }
    }

    /// Series distances are computed this many at a time (per thread): 1 KB,
    /// which `withUnsafeTemporaryAllocation` always places on the stack (a
    /// larger block went to the heap, one allocation per update).
    @usableFromInline static let block = 128
    /// Added to a non-negative double below 2⁵¹ and taken away again, it rounds
    /// the double to the nearest whole number (ties to even), and the sum's low
    /// bits are that whole number: rounding without a conversion that can trap.
    @usableFromInline static let roundingBias = 6_755_399_441_055_744.0    // 1.5 · 2⁵²

    /// Keys for the places in `range` (tie positions): millimetres above the
    /// place's index; the largest millimetre is returned.
    ///
    /// Blocks of ``block`` places: first the chord series for the whole block
    /// in straight-line arithmetic the compiler turns into vector
    /// instructions, then the keys, the millimetre rounded through
    /// ``roundingBias`` and ``needsKarney(_:_:)`` tested without a branch; a
    /// block where some place needs Karney's method is gone over again for
    /// those places alone. Where the test passes, the nearest millimetre (ties
    /// to even) is the one `Int64(mm + 0.5)` gives, since `mm` is then not
    /// within the tolerance of a half. With `counts`, the radix sort's first
    /// two digits are counted block by block (`counts`: two rows of ``buckets``).
    /// Without `placeInKey`, the keys' low halves are zero and the tie indices
    /// are read only for Karney's method (``millimetreSlice(_:_:_:_:_:_:_:counts:exact:)``).
    ///
    /// Unsafe pointers, unchecked: callers pass buffers of ``count`` places
    /// and a range inside them.
    @inline(__always)
    static func rankSlice(_ w: Walker, _ range: Range<Int>, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
                          _ back: UnsafePointer<UInt32>, _ ks: UnsafeMutablePointer<UInt64>,
                          counts: UnsafeMutablePointer<UInt32>? = nil, exact: (Int) -> Double) -> UInt64 {
        // One block of series distances, on the stack.
        withUnsafeTemporaryAllocation(of: Double.self, capacity: block) { buffer in
            guard let ds = buffer.baseAddress else { return 0 }
            return rankSlice(w, range, xs, ys, zs, back, ks, ds, counts: counts, exact: exact)
        }
    }

    /// ``rankSlice(_:_:_:_:_:_:_:counts:exact:)`` with the block's distances in `ds`
    /// (``block`` of them).
    @inline(__always)
    static func rankSlice(_ w: Walker, _ range: Range<Int>, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
                          _ back: UnsafePointer<UInt32>, _ ks: UnsafeMutablePointer<UInt64>, _ ds: UnsafeMutablePointer<Double>,
                          counts: UnsafeMutablePointer<UInt32>? = nil, placeInKey: Bool = true, exact: (Int) -> Double) -> UInt64 {
        let wx = w.wx, wy = w.wy, wz = w.wz, nx = w.nx, ny = w.ny, nz = w.nz
        let a = w.a, b = w.b
        let bias = roundingBias
        var maxMM: UInt64 = 0
        var start = range.lowerBound
        while start < range.upperBound {
            let length = min(range.upperBound - start, block)
            let bx = xs + start, by = ys + start, bz = zs + start, bk = ks + start, bp = back + start
            for i in 0..<length {
                let dx = bx[i] - wx, dy = by[i] - wy, dz = bz[i] - wz
                let c2 = dx * dx + dy * dy + dz * dz
                let cn = dx * nx + dy * ny + dz * nz
                ds[i] = c2.squareRoot() * (1 + c2 * a + b * cn * cn)
            }
            // Flags and the largest key as integers, so that this loop too runs four places at a
            // time (a floating-point maximum would keep it to one: its order of operations is fixed).
            var karneyNeeded: UInt64 = 0
            var largestKey: UInt64 = 0
            for i in 0..<length {
                let d = ds[i]
                let mm = d * 1000
                let biased = mm + bias
                let rounded = biased - bias
                let beyond: UInt64 = d > GeodesicDistanceFrame.exactRange ? 1 : 0
                let nearHalf: UInt64 = abs(mm - rounded) >= 0.5 - GeodesicDistanceFrame.tolerance(atDistance: d) * 1000 ? 1 : 0
                karneyNeeded |= beyond | nearHalf
                let key = (biased.bitPattern & 0xFFFF_FFFF) << 32 | (placeInKey ? UInt64(bp[i]) : 0)
                largestKey = max(largestKey, key)
                bk[i] = key
            }
            if karneyNeeded != 0 {
                largestKey = 0
                for i in 0..<length {
                    let place = bp[i]
                    var d = w.distance(bx[i], by[i], bz[i])
                    if Self.needsKarney(d, d * 1000) {
                        d = exact(Int(place))
                        ds[i] = d
                        let rounded = UInt64(bitPattern: Int64(min(d * 1000 + 0.5, 9e18)))
                        bk[i] = rounded << 32 | (placeInKey ? UInt64(place) : 0)
                        maxMM = max(maxMM, rounded)
                    } else {
                        largestKey = max(largestKey, bk[i])
                    }
                }
            }
            maxMM = max(maxMM, largestKey >> 32)
            if let c = counts {
                // The radix sort's first two digits, counted while the block is in the first-level cache.
                for i in 0..<length {
                    let mm = bk[i] >> 32
                    c[Int(truncatingIfNeeded: mm & digitMask)] &+= 1
                    c[buckets &+ Int(truncatingIfNeeded: (mm >> UInt64(digitBits)) & digitMask)] &+= 1
                }
            }
            start += length
        }
        return maxMM
    }

    /// Whether the series' distance `d` (`mm` in millimetres) cannot decide the
    /// millimetre it rounds to: near a half millimetre, within the series' error
    /// bound at that distance, or beyond the series' range.
    @inlinable @inline(__always)
    static func needsKarney(_ d: Double, _ mm: Double) -> Bool {
        d > GeodesicDistanceFrame.exactRange || abs(mm - (mm + roundingBias - roundingBias)) >= 0.5 - GeodesicDistanceFrame.tolerance(atDistance: d) * 1000
    }

    /// The distance to a place at ECEF (`px`, `py`, `pz`) and the millimetre it
    /// rounds to: the chord series, or Karney's method (`places[place]`) within
    /// the tolerance of a half millimetre and beyond 20 km.
    @inline(__always)
    static func rankingDistance(_ w: Walker, _ px: Double, _ py: Double, _ pz: Double, _ karney: Geodesic,
                                _ places: [Coordinate], _ place: Int) -> (distance: Double, millimetres: UInt64) {
        var d = w.distance(px, py, pz)
        var mm = d * 1000
        if needsKarney(d, mm) {
            d = karney.distance(w.coordinate, places[place])
            mm = d * 1000
        }
        return (d, UInt64(mm + 0.5))
    }

    /// The millimetres (32-bit) of the places in `range` (tie positions) for the sort in
    /// buckets, their second 12-bit digit counted into `counts` (one row of ``buckets``); the
    /// largest millimetre is returned (past 31 bits, the millimetres written are not used:
    /// ``sortBeyondKeyRange()``). Half the bytes of a key, and the tie indices not read: once
    /// two threads share it, this pass is bound by memory bandwidth, and the scatter into
    /// buckets reads each tie index beside its millimetre.
    /// Unsafe pointers, unchecked, as ``rankSlice(_:_:_:_:_:_:_:counts:exact:)``.
    @inline(__always)
    static func millimetreSlice(_ w: Walker, _ range: Range<Int>, _ xs: UnsafePointer<Double>, _ ys: UnsafePointer<Double>, _ zs: UnsafePointer<Double>,
                                _ back: UnsafePointer<UInt32>, _ mm: UnsafeMutablePointer<UInt32>,
                                counts: UnsafeMutablePointer<UInt32>, exact: (Int) -> Double) -> UInt64 {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: block) { distances in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: block) { blockKeys in
                guard let ds = distances.baseAddress, let kb = blockKeys.baseAddress else { return 0 }
                var maxMM: UInt64 = 0
                var start = range.lowerBound
                while start < range.upperBound {
                    let end = min(range.upperBound, start + block)
                    // rankSlice writes tie positions start..<end from its keys' address + start: here, the block's buffer.
                    maxMM = max(maxMM, rankSlice(w, start..<end, xs, ys, zs, back, kb - start, ds, placeInKey: false, exact: exact))
                    let out = mm + start
                    for i in 0..<(end - start) {
                        let m = kb[i] >> 32
                        out[i] = UInt32(truncatingIfNeeded: m)
                        counts[Int(truncatingIfNeeded: (m >> UInt64(digitBits)) & digitMask)] &+= 1
                    }
                    start = end
                }
                return maxMM
            }
        }
    }
}
