import Foundation
import Geodesy

/// A small, fast, seeded generator (SplitMix64): the same seed gives the
/// same sequence on every machine, so noisy replays are byte-identical.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1], never 0 (safe for a logarithm).
    mutating func unit() -> Double {
        (Double(next() >> 11) + 1) / 9_007_199_254_740_992
    }

    /// Two independent standard normal numbers (Box–Muller).
    mutating func normalPair() -> (Double, Double) {
        let r = (-2 * log(unit())).squareRoot()
        let theta = 2 * Double.pi * unit()
        return (r * cos(theta), r * sin(theta))
    }
}

/// What the simulated receiver adds to the true position.
public struct SensorOptions: Equatable, Sendable {
    public enum Noise: String, Equatable, Sendable {
        case none
        /// Two-dimensional Gaussian whose 68 % circle is the reported horizontal accuracy,
        /// drawn afresh for every fix.
        case gaussian
        /// The same Gaussian per fix, but correlated in time: a first-order
        /// Gauss-Markov (Ornstein-Uhlenbeck) process per axis with correlation
        /// time ``SensorOptions/tau``, so the error a second later is almost the
        /// same error.
        case gaussMarkov = "gauss-markov"
    }

    public var noise: Noise = .none
    public var seed: UInt64 = 0
    /// The correlation time of `gauss-markov` noise, seconds. The default, a
    /// minute, is where the autocorrelation of a stationary consumer
    /// receiver's horizontal error bends (D. L. Wilson's long-term
    /// measurements of a Garmin 12XL, "GPS Accuracy: correlation of errors");
    /// an Ornstein-Uhlenbeck process is the model Akaike's criterion favours
    /// over white noise for stationary single-frequency GPS (Sensors 2020,
    /// 20(21), 6050).
    public var tau: Double = SensorOptions.defaultTau
    public static let defaultTau = 60.0
    /// Whether delivered locations carry the error applied (``Location/appliedError``).
    public var debugTruth = false
    /// Chance that a fix is lost: a transient `locationUnknown` error event instead.
    public var dropoutProbability = 0.0
    /// Chance that a fix lands far off: `outlierScale` times its accuracy away, in a random direction.
    public var outlierProbability = 0.0
    public var outlierScale = 20.0

    public init(noise: Noise = .none, seed: UInt64 = 0, tau: Double = SensorOptions.defaultTau, debugTruth: Bool = false) {
        self.noise = noise
        self.seed = seed
        self.tau = tau
        self.debugTruth = debugTruth
    }

    /// For a 2D Gaussian with standard deviation σ per axis, P(r ≤ R) = 1 − exp(−R²/2σ²);
    /// a 68 % radius R gives σ = R / √(−2 ln 0.32).
    public static let sigmaPerRadius68 = 1 / (-2 * log(0.32)).squareRoot()
}

/// The accuracy a fix reports when the trace recorded none: consistent with
/// the desired accuracy (5 m, a good GPS fix, for Best and BestForNavigation).
public func defaultHorizontalAccuracy(desiredAccuracy: Double) -> Double {
    desiredAccuracy > 0 ? max(5, desiredAccuracy) : 5
}

/// A unit first-order Gauss-Markov process per axis (zero mean, standard
/// deviation 1, autocorrelation e^(-Δt/τ)), defined on a fixed grid of step
/// τ/100 from the first time it is asked for and linearly interpolated
/// between grid points. The grid and its draws depend only on the seed, τ and
/// the start, never on when the process is sampled: a walk replayed at 1 Hz
/// and at 10 Hz sees one error process at different times. (Interpolating
/// over a step of τ/100 lowers the variance between grid points by at most
/// 0.25 %.)
public struct GaussMarkovProcess: Sendable {
    public let tau: Double
    let step: Double
    let rho: Double
    let innovation: Double
    private var generator: SeededGenerator
    private var origin: Double?
    private var index = 0
    private var current: (Double, Double) = (0, 0)
    private var next: (Double, Double) = (0, 0)

    public init(tau: Double, seed: UInt64) {
        self.tau = tau
        step = tau / 100
        rho = exp(-step / tau)
        innovation = (1 - rho * rho).squareRoot()
        // Its own stream, so the per-fix draws (dropouts, outliers) cannot shift it.
        generator = SeededGenerator(seed: seed ^ 0x6A09_E667_F3BC_C908)
    }

    private mutating func advance() {
        current = next
        let (a, b) = generator.normalPair()
        next = (rho * current.0 + innovation * a, rho * current.1 + innovation * b)
        index += 1
    }

    /// The process at time `t` (seconds), east and north; times before the
    /// latest one asked for are answered within the current grid step.
    public mutating func value(at t: Double) -> (east: Double, north: Double) {
        guard let origin else {
            origin = t
            next = generator.normalPair()  // stationary from the start
            advance()
            index = 0
            return current
        }
        let position = max(0, (t - origin) / step)
        while Double(index + 1) <= position { advance() }
        let f = min(1, max(0, position - Double(index)))
        return (current.0 + (next.0 - current.0) * f, current.1 + (next.1 - current.1) * f)
    }
}

/// Turns true positions into what a receiver reports.
struct SensorModel {
    let options: SensorOptions
    let desiredAccuracy: Double
    private var generator: SeededGenerator
    private var process: GaussMarkovProcess?
    private let ellipsoid = Ellipsoid.wgs84

    init(options: SensorOptions, desiredAccuracy: Double) {
        self.options = options
        self.desiredAccuracy = desiredAccuracy
        generator = SeededGenerator(seed: options.seed)
        if options.noise == .gaussMarkov { process = GaussMarkovProcess(tau: options.tau, seed: options.seed) }
    }

    enum Reading {
        case fix(Location)
        case dropout
    }

    mutating func read(_ truth: TrueFix) -> Reading {
        if options.dropoutProbability > 0, generator.unit() <= options.dropoutProbability { return .dropout }
        let accuracy = truth.horizontalAccuracy.flatMap { $0 >= 0 ? $0 : nil } ?? defaultHorizontalAccuracy(desiredAccuracy: desiredAccuracy)
        var coordinate = truth.coordinate
        var east = 0.0, north = 0.0
        let sigma = accuracy * SensorOptions.sigmaPerRadius68
        switch options.noise {
        case .gaussian:
            let (a, b) = generator.normalPair()
            east = a * sigma
            north = b * sigma
        case .gaussMarkov:
            if let z = process?.value(at: truth.time) {
                east = z.east * sigma
                north = z.north * sigma
            }
        case .none:
            break
        }
        if options.outlierProbability > 0, generator.unit() <= options.outlierProbability {
            let direction = 2 * Double.pi * generator.unit()
            east += options.outlierScale * accuracy * sin(direction)
            north += options.outlierScale * accuracy * cos(direction)
        }
        if east != 0 || north != 0 {
            let lat = coordinate.latitude
            let m = ellipsoid.meridionalRadius(atLatitude: lat), n = ellipsoid.primeVerticalRadius(atLatitude: lat)
            let newLatitude = min(90, max(-90, lat + north / m * 180 / .pi))
            let cosLat = max(1e-12, cos(lat * .pi / 180))
            let newLongitude = normalizedLongitude(coordinate.longitude + east / (n * cosLat) * 180 / .pi)
            coordinate = (try? Coordinate(latitude: newLatitude, longitude: newLongitude)) ?? coordinate
        }
        let hasAltitude = truth.elevation != nil
        let verticalAccuracy = hasAltitude ? (truth.verticalAccuracy.flatMap { $0 > 0 ? $0 : nil } ?? 1.5 * accuracy) : -1
        var location = Location(coordinate: coordinate, altitude: truth.elevation ?? 0, horizontalAccuracy: accuracy,
                                verticalAccuracy: verticalAccuracy, course: truth.course, speed: truth.speed,
                                timestamp: truth.time, sourceLine: truth.line)
        if options.debugTruth { location.appliedError = Location.AppliedError(east: east, north: north) }
        return .fix(location)
    }
}
