import Foundation

/// The World Magnetic Model (NOAA/NCEI and the British Geological Survey,
/// public domain): the main field of the Earth as spherical harmonics of
/// degree 12 with a linear secular variation, valid five years from its
/// epoch. Stroll ships WMM-2020 (2020.0 to 2025.0) and WMM-2025 (2025.0 to
/// 2030.0), their coefficients as NOAA publishes them
/// (Sources/Geomagnetism/Coefficients/, docs/Heading.md).
///
/// ```swift
/// let field = try WorldMagneticModel.field(latitude: 53.41, longitude: -2.98, height: 0,
///                                          date: Date(timeIntervalSince1970: 1_714_552_800))
/// let declination = field.declination   // degrees east of true north
/// ```
///
/// The synthesis is NOAA's: the geodetic position (WGS84) turned geocentric,
/// Schmidt semi-normalised associated Legendre functions, the Gauss
/// coefficients moved to the date by their secular variation, the field
/// rotated back to the geodetic north, east and down. A date outside a
/// model's five years is an error (``GeomagnetismError/dateOutsideModel(decimalYear:validFrom:validUntil:)``),
/// never an extrapolation.
public struct WorldMagneticModel: Sendable {
    /// One spherical-harmonic term of the model file: degree `n`, order `m`,
    /// the Gauss coefficients `g` and `h` at the epoch (nT) and their secular
    /// variation `gDot` and `hDot` (nT a year).
    public struct Term: Sendable, Equatable {
        /// The degree, 1 to 12.
        public let n: Int
        /// The order, 0 to `n`.
        public let m: Int
        /// g(n, m) at the epoch, nT.
        public let g: Double
        /// h(n, m) at the epoch, nT (0 when `m` is 0).
        public let h: Double
        /// The yearly change of `g`, nT a year.
        public let gDot: Double
        /// The yearly change of `h`, nT a year.
        public let hDot: Double

        /// A term as the model file writes it.
        public init(n: Int, m: Int, g: Double, h: Double, gDot: Double, hDot: Double) {
            self.n = n
            self.m = m
            self.g = g
            self.h = h
            self.gDot = gDot
            self.hDot = hDot
        }
    }

    /// The model's name as its file gives it ("WMM-2025").
    public let name: String
    /// The epoch, a decimal year (2025.0).
    public let epoch: Double
    /// The release date of the coefficients, ISO 8601 (a day).
    public let released: String
    /// The first decimal year the model is valid for: its epoch.
    public var validFrom: Double { epoch }
    /// The last decimal year the model is valid for: five years after its epoch.
    public var validUntil: Double { epoch + 5 }
    /// The model's terms, as its file lists them.
    public let terms: [Term]
    /// The declination error model of the model's report: one standard
    /// deviation is `√(base² + (perHorizontalIntensity / H)²)` degrees, with H
    /// the horizontal intensity in nT.
    public let declinationError: (base: Double, perHorizontalIntensity: Double)
    /// The highest degree among ``terms``.
    public let degree: Int
    private let g: [Double]
    private let h: [Double]
    private let gDot: [Double]
    private let hDot: [Double]

    /// A model from its terms; a term with `m > n` or a degree above 12 is left out.
    public init(name: String, epoch: Double, released: String, declinationError: (base: Double, perHorizontalIntensity: Double), terms: [Term]) {
        self.name = name
        self.epoch = epoch
        self.released = released
        self.declinationError = declinationError
        let kept = terms.filter { $0.n >= 1 && $0.n <= 12 && $0.m >= 0 && $0.m <= $0.n }
        self.terms = kept
        degree = kept.map(\.n).max() ?? 0
        let count = (degree + 1) * (degree + 2) / 2
        var g = [Double](repeating: 0, count: count), h = g, gDot = g, hDot = g
        for t in kept {
            let i = Self.index(t.n, t.m)
            g[i] = t.g
            h[i] = t.h
            gDot[i] = t.gDot
            hDot[i] = t.hDot
        }
        self.g = g
        self.h = h
        self.gDot = gDot
        self.hDot = hDot
    }

    /// Every model Stroll ships, oldest first.
    public static let all: [WorldMagneticModel] = [wmm2020, wmm2025]

    /// The first decimal year any shipped model covers (2020.0).
    public static var validFrom: Double { all.map(\.validFrom).min() ?? 0 }
    /// The last decimal year any shipped model covers (2030.0).
    public static var validUntil: Double { all.map(\.validUntil).max() ?? 0 }

    /// The shipped model for a decimal year: the newest whose validity holds
    /// it (so 2025.0 is WMM-2025's, not WMM-2020's last instant). A year before
    /// 2020.0 or after 2030.0 throws ``GeomagnetismError/dateOutsideModel(decimalYear:validFrom:validUntil:)``
    /// naming the year and the window.
    public static func model(for decimalYear: Double) throws(GeomagnetismError) -> WorldMagneticModel {
        guard let model = all.last(where: { $0.validFrom <= decimalYear && decimalYear <= $0.validUntil }) else {
            throw .dateOutsideModel(decimalYear: decimalYear, validFrom: validFrom, validUntil: validUntil)
        }
        return model
    }

    /// The field at a geodetic position and a date, from the shipped model for the date (``model(for:)``).
    public static func field(latitude: Double, longitude: Double, height: Double, date: Date) throws(GeomagnetismError) -> MagneticField {
        let year = DecimalYear.of(date)
        return try model(for: year).field(latitude: latitude, longitude: longitude, height: height, decimalYear: year)
    }

    /// The field at a geodetic position (degrees; `height` metres above the
    /// WGS84 ellipsoid) and a decimal year.
    ///
    /// Throws ``GeomagnetismError/invalidCoordinate(latitude:longitude:)`` for a latitude
    /// outside [-90, 90], a longitude outside [-180, 360] or a value that is not finite,
    /// ``GeomagnetismError/heightOutOfRange(_:)`` outside the model's -1 km to 850 km,
    /// and ``GeomagnetismError/dateOutsideModel(decimalYear:validFrom:validUntil:)``
    /// for a year outside ``validFrom-property`` ... ``validUntil-property``.
    public func field(latitude: Double, longitude: Double, height: Double, decimalYear: Double) throws(GeomagnetismError) -> MagneticField {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...360).contains(longitude) else {
            throw .invalidCoordinate(latitude: latitude, longitude: longitude)
        }
        guard height.isFinite, (-1000...850_000).contains(height) else { throw .heightOutOfRange(height) }
        guard decimalYear.isFinite, validFrom <= decimalYear, decimalYear <= validUntil else {
            throw .dateOutsideModel(decimalYear: decimalYear, validFrom: validFrom, validUntil: validUntil)
        }
        let dt = decimalYear - epoch

        // Geodetic (WGS84) to geocentric, as NOAA's program: kilometres.
        let a = 6378.137, b = 6356.7523142, referenceRadius = 6371.2
        let a2 = a * a, b2 = b * b, c2 = a2 - b2, a4 = a2 * a2, b4 = b2 * b2, c4 = a4 - b4
        let alt = height / 1000
        let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
        let sinPhi = sin(phi), cosPhi = cos(phi)
        let sinPhi2 = sinPhi * sinPhi, cosPhi2 = cosPhi * cosPhi
        let q = (a2 - c2 * sinPhi2).squareRoot()
        let q1 = alt * q
        let q2 = ((q1 + a2) / (q1 + b2)) * ((q1 + a2) / (q1 + b2))
        let x = sinPhi / (q2 * cosPhi2 + sinPhi2).squareRoot()  // cos of the geocentric colatitude
        let s = max(0, 1 - x * x).squareRoot()                  // its sine
        let r = (alt * alt + 2 * q1 + (a4 - c4 * sinPhi2) / (q * q)).squareRoot()
        let d = (a2 * cosPhi2 + b2 * sinPhi2).squareRoot()
        let cosPsi = (alt + d) / r                              // the geodetic minus the geocentric latitude
        let sinPsi = c2 * cosPhi * sinPhi / (r * d)

        // Schmidt semi-normalised P(n, m)(cos θ), dP/dθ, and P(n, m) / sin θ for m ≥ 1 (regular at the poles).
        let count = (degree + 1) * (degree + 2) / 2
        var p = [Double](repeating: 0, count: count), dp = p, ps = p
        p[0] = 1
        for n in 1...max(degree, 1) where n <= degree {
            for m in 0...n {
                let i = Self.index(n, m)
                if n == m {
                    if n == 1 {
                        p[i] = s
                        dp[i] = x
                        ps[i] = 1
                    } else {
                        let k = (Double(2 * n - 1) / Double(2 * n)).squareRoot()
                        let j = Self.index(n - 1, n - 1)
                        p[i] = k * s * p[j]
                        dp[i] = k * (s * dp[j] + x * p[j])
                        ps[i] = k * s * ps[j]
                    }
                } else {
                    let j = Self.index(n - 1, m)
                    let k1 = Double(2 * n - 1), den = Double(n * n - m * m).squareRoot()
                    let k2 = n >= 2 && m <= n - 2 ? Double((n - 1) * (n - 1) - m * m).squareRoot() : 0
                    let jj = n >= 2 && m <= n - 2 ? Self.index(n - 2, m) : 0
                    let p2 = k2 == 0 ? 0 : p[jj], dp2 = k2 == 0 ? 0 : dp[jj], ps2 = k2 == 0 ? 0 : ps[jj]
                    p[i] = (k1 * x * p[j] - k2 * p2) / den
                    dp[i] = (k1 * (x * dp[j] - s * p[j]) - k2 * dp2) / den
                    ps[i] = (k1 * x * ps[j] - k2 * ps2) / den
                }
            }
        }

        // The sums: radial, colatitude and longitude components (nT, geocentric).
        var br = 0.0, btheta = 0.0, blambda = 0.0
        let ratio = referenceRadius / r
        var power = ratio * ratio
        for n in 1...max(degree, 1) where n <= degree {
            power *= ratio
            for m in 0...n {
                let i = Self.index(n, m)
                let gt = g[i] + dt * gDot[i], ht = h[i] + dt * hDot[i]
                let cm = cos(Double(m) * lambda), sm = sin(Double(m) * lambda)
                let cosine = gt * cm + ht * sm, sine = gt * sm - ht * cm
                br += Double(n + 1) * power * cosine * p[i]
                btheta -= power * cosine * dp[i]
                if m > 0 { blambda += Double(m) * power * sine * ps[i] }
            }
        }
        // Geocentric north, east, down, then rotated to the geodetic frame.
        let northGeocentric = -btheta, downGeocentric = -br
        let north = northGeocentric * cosPsi + downGeocentric * sinPsi
        let down = -northGeocentric * sinPsi + downGeocentric * cosPsi
        return MagneticField(north: north, east: blambda, down: down, declinationError: declinationError)
    }

    /// The position of term (n, m) in the packed arrays.
    private static func index(_ n: Int, _ m: Int) -> Int { n * (n + 1) / 2 + m }
}

/// The magnetic field at a point: its components in the geodetic frame and
/// the angles a compass cares about.
public struct MagneticField: Sendable, Equatable {
    /// The northward component X, nT.
    public let north: Double
    /// The eastward component Y, nT.
    public let east: Double
    /// The downward component Z, nT.
    public let down: Double
    /// One standard deviation of ``declination`` by the model's error model, degrees.
    public let declinationUncertainty: Double

    /// A field from its components; `declinationError` is the model's error model (``WorldMagneticModel/declinationError``).
    public init(north: Double, east: Double, down: Double, declinationError: (base: Double, perHorizontalIntensity: Double)) {
        self.north = north
        self.east = east
        self.down = down
        let horizontal = (north * north + east * east).squareRoot()
        let ratio = horizontal > 0 ? declinationError.perHorizontalIntensity / horizontal : .infinity
        declinationUncertainty = (declinationError.base * declinationError.base + ratio * ratio).squareRoot()
    }

    /// The horizontal intensity H, nT.
    public var horizontalIntensity: Double { (north * north + east * east).squareRoot() }
    /// The total intensity F, nT.
    public var totalIntensity: Double { (north * north + east * east + down * down).squareRoot() }
    /// The declination D: degrees from true north to magnetic north, east positive.
    public var declination: Double { atan2(east, north) * 180 / .pi }
    /// The inclination I: degrees below the horizontal, down positive.
    public var inclination: Double { atan2(down, horizontalIntensity) * 180 / .pi }
    /// Whether H is below 2000 nT, the model's blackout zone around the
    /// magnetic poles, where a compass is unreliable.
    public var isInBlackoutZone: Bool { horizontalIntensity < 2000 }
    /// Whether H is below 6000 nT, the model's caution zone (which holds the blackout zone).
    public var isInCautionZone: Bool { horizontalIntensity < 6000 }
}

/// Why the model gives no field.
public enum GeomagnetismError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The date is outside the model's validity (decimal years); the model is
    /// not extrapolated.
    case dateOutsideModel(decimalYear: Double, validFrom: Double, validUntil: Double)
    /// Latitude outside [-90, 90], longitude outside [-180, 360], or either not finite.
    case invalidCoordinate(latitude: Double, longitude: Double)
    /// A height (metres above the ellipsoid) outside the model's -1 km to 850 km.
    case heightOutOfRange(Double)

    /// The error in words, with the values that caused it.
    public var description: String {
        switch self {
        case .dateOutsideModel(let year, let from, let until):
            "the date \(DecimalYear.format(year)) is outside the World Magnetic Model's validity, \(DecimalYear.format(from)) to \(DecimalYear.format(until))"
        case .invalidCoordinate(let latitude, let longitude):
            "latitude \(latitude), longitude \(longitude) is not a valid position (latitude -90 to 90, longitude -180 to 360)"
        case .heightOutOfRange(let height):
            "height \(height) m is outside the World Magnetic Model's -1000 m to 850000 m"
        }
    }
}

/// Dates as the model counts them: the year plus the fraction of it that has
/// passed (UTC, to the second), 2025-07-02T12:00:00Z being 2025.5.
public enum DecimalYear {
    /// The decimal year of a date.
    public static func of(_ date: Date) -> Double {
        let seconds = date.timeIntervalSince1970
        let days = (seconds / 86_400).rounded(.down)
        var year = civilYear(daysSince1970: Int(days))
        var start = secondsSince1970(januaryFirstOf: year)
        if seconds < start { year -= 1; start = secondsSince1970(januaryFirstOf: year) }
        let end = secondsSince1970(januaryFirstOf: year + 1)
        return Double(year) + (seconds - start) / (end - start)
    }

    /// A decimal year with the day it falls on, for messages: "2019.332 (2019-05-01)".
    public static func format(_ year: Double) -> String {
        guard year.isFinite, abs(year) < 1_000_000 else { return "\(year)" }
        let whole = Int(year.rounded(.down))
        let start = secondsSince1970(januaryFirstOf: whole), end = secondsSince1970(januaryFirstOf: whole + 1)
        let date = Date(timeIntervalSince1970: start + (year - Double(whole)) * (end - start))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        let day = formatter.string(from: date)
        return String(format: "%.3f", year) + " (\(day))"
    }

    /// Seconds from 1970 to the first of January of a year, UTC (the proleptic Gregorian calendar).
    static func secondsSince1970(januaryFirstOf year: Int) -> Double {
        // Days from 1970-01-01 to year-01-01 (Howard Hinnant's days_from_civil, month 1, day 1).
        let y = year - 1
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = 306  // 1 March to 1 January of the next year
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return Double(era * 146_097 + doe - 719_468) * 86_400
    }

    /// The year a day since 1970 falls in (Hinnant's civil_from_days).
    static func civilYear(daysSince1970 days: Int) -> Int {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let month = mp < 10 ? mp + 3 : mp - 9
        return yoe + era * 400 + (month <= 2 ? 1 : 0)
    }
}
