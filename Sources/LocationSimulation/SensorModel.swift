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
        /// Two-dimensional Gaussian whose 68 % circle is the reported horizontal accuracy.
        case gaussian
    }

    public var noise: Noise = .none
    public var seed: UInt64 = 0
    /// Chance that a fix is lost: a transient `locationUnknown` error event instead.
    public var dropoutProbability = 0.0
    /// Chance that a fix lands far off: `outlierScale` times its accuracy away, in a random direction.
    public var outlierProbability = 0.0
    public var outlierScale = 20.0

    public init(noise: Noise = .none, seed: UInt64 = 0) {
        self.noise = noise
        self.seed = seed
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

/// Turns true positions into what a receiver reports.
struct SensorModel {
    let options: SensorOptions
    let desiredAccuracy: Double
    private var generator: SeededGenerator
    private let ellipsoid = Ellipsoid.wgs84

    init(options: SensorOptions, desiredAccuracy: Double) {
        self.options = options
        self.desiredAccuracy = desiredAccuracy
        generator = SeededGenerator(seed: options.seed)
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
        if options.noise == .gaussian {
            let (a, b) = generator.normalPair()
            let sigma = accuracy * SensorOptions.sigmaPerRadius68
            east = a * sigma
            north = b * sigma
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
        return .fix(Location(coordinate: coordinate, altitude: truth.elevation ?? 0, horizontalAccuracy: accuracy,
                             verticalAccuracy: verticalAccuracy, course: truth.course, speed: truth.speed,
                             timestamp: truth.time, sourceLine: truth.line))
    }
}
