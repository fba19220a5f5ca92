import Foundation
import Geodesy
import GEOS

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

/// What the simulated receiver adds to the true position (docs/Receiver.md).
public struct SensorOptions: Equatable, Sendable {
    /// The error added to each fix's true position.
    public enum Noise: String, Equatable, Sendable, CaseIterable {
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
    /// The correlation time of `gauss-markov` noise, seconds; nil for the
    /// environment's (``EnvironmentPreset/tau``), or ``defaultTau`` without
    /// one. The default, a minute, is where the autocorrelation of a
    /// stationary consumer receiver's horizontal error bends (D. L. Wilson's
    /// long-term measurements of a Garmin 12XL, "GPS Accuracy: correlation of
    /// errors"); an Ornstein-Uhlenbeck process is the model Akaike's
    /// criterion favours over white noise for stationary single-frequency GPS
    /// (Sensors 2020, 20(21), 6050).
    public var tau: Double?
    public static let defaultTau = 60.0
    /// The environment of the whole walk, or outside every area of ``environments``.
    public var environment: Environment?
    /// Areas with environments of their own; the most degraded wins where they overlap.
    public var environments: [EnvironmentArea] = []
    /// Coarse first fixes after the receiver starts and after an outage.
    public var warmUp: WarmUp = .none
    /// Whether delivered locations carry the error applied (``Location/appliedError``).
    public var debugTruth = false
    /// Chance that a fix is lost: a transient `locationUnknown` error event instead.
    public var dropoutProbability = 0.0
    /// Chance that a fix lands far off: `outlierScale` times its accuracy away, in a random direction.
    public var outlierProbability = 0.0
    public var outlierScale = 20.0

    public init(noise: Noise = .none, seed: UInt64 = 0, tau: Double? = nil, debugTruth: Bool = false,
                environment: Environment? = nil, environments: [EnvironmentArea] = [], warmUp: WarmUp = .none) {
        self.noise = noise
        self.seed = seed
        self.tau = tau
        self.debugTruth = debugTruth
        self.environment = environment
        self.environments = environments
        self.warmUp = warmUp
    }

    /// Whether environments decide the accuracy, outages and multipath.
    public var hasEnvironment: Bool { environment != nil || !environments.isEmpty }

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
    private var origin: Double
    private var started = false
    private var index = 0
    private var current: (Double, Double) = (0, 0)
    private var next: (Double, Double) = (0, 0)

    /// `origin`: where the grid starts (nil: the first time asked for).
    public init(tau: Double, seed: UInt64, origin: Double? = nil) {
        self.tau = tau
        self.origin = origin ?? .nan
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
        if !started {
            started = true
            if origin.isNaN { origin = t }
            next = generator.normalPair()  // stationary from the start
            advance()
            index = 0
        }
        let position = max(0, (t - origin) / step)
        while Double(index + 1) <= position { advance() }
        let f = min(1, max(0, position - Double(index)))
        return (current.0 + (next.0 - current.0) * f, current.1 + (next.1 - current.1) * f)
    }
}

/// A two-state chain on whole seconds from an origin (``Episodes``): the
/// state at step k depends only on the seed and k, never on when it is asked.
struct EpisodeChain {
    private let enter: Double
    private let leave: Double
    private var generator: SeededGenerator
    private var step = 0
    private(set) var active = false
    /// A direction drawn at each episode's start (multipath uses it).
    private(set) var direction = 0.0

    init(_ episodes: Episodes, seed: UInt64) {
        enter = 1 - exp(-1 / episodes.meanGap)
        leave = 1 - exp(-1 / episodes.meanLength)
        generator = SeededGenerator(seed: seed)
    }

    /// Whether an episode is on at step `k` (steps before the latest asked for answer the latest).
    mutating func isActive(atStep k: Int) -> Bool {
        while step < k {
            step += 1
            let u = generator.unit()
            if active {
                if u <= leave { active = false }
            } else if u <= enter {
                active = true
                direction = 2 * Double.pi * generator.unit()
            }
        }
        return active
    }
}

/// One environment's processes, started at the receiver's first fix.
struct EnvironmentProcesses {
    let preset: EnvironmentPreset
    var error: GaussMarkovProcess
    var accuracy: GaussMarkovProcess
    var outages: EpisodeChain?
    var multipath: EpisodeChain?

    init(_ environment: Environment, tau: Double?, seed: UInt64, origin: Double) {
        preset = environment.preset
        // Streams of their own per environment and per process.
        let base = seed &+ UInt64(environment.severity + 1) &* 0xD1B5_4A32_D192_ED03
        error = GaussMarkovProcess(tau: tau ?? preset.tau, seed: base ^ 0x243F_6A88_85A3_08D3, origin: origin)
        accuracy = GaussMarkovProcess(tau: preset.tau, seed: base ^ 0x1319_8A2E_0370_7344, origin: origin)
        outages = preset.outages.map { EpisodeChain($0, seed: base ^ 0xA409_3822_299F_31D0) }
        multipath = preset.multipath.map { EpisodeChain($0, seed: base ^ 0x082E_FA98_EC4E_6C89) }
    }
}

/// Turns true positions into what a receiver reports (docs/Receiver.md).
struct SensorModel {
    let options: SensorOptions
    let desiredAccuracy: Double
    private var generator: SeededGenerator
    private var process: GaussMarkovProcess?
    private let ellipsoid = Ellipsoid.wgs84
    private let shapes: [EnvironmentShape]
    private var environments: [Environment: EnvironmentProcesses] = [:]
    /// The time of the first fix read: every process's grid starts there.
    private var origin: Double?
    /// When the receiver last (re)acquired the signal, and whether after an outage.
    private var acquired: (time: Double, afterOutage: Bool)?
    private var inOutage = false
    /// The last course accuracy worked out, with the bits of the spread and
    /// leg length it is for: the fixes along a leg mostly share both.
    private var courseAccuracyMemo: (spread: UInt64, distance: UInt64, degrees: Double)?

    init(options: SensorOptions, desiredAccuracy: Double) {
        self.options = options
        self.desiredAccuracy = desiredAccuracy
        generator = SeededGenerator(seed: options.seed)
        if options.noise == .gaussMarkov, !options.hasEnvironment {
            process = GaussMarkovProcess(tau: options.tau ?? SensorOptions.defaultTau, seed: options.seed)
        }
        var shapes: [EnvironmentShape] = []
        if !options.environments.isEmpty, let context = try? GEOSContext() {
            // The loader made each of these once already, so none fails here.
            for (i, area) in options.environments.enumerated() {
                if let shape = try? EnvironmentShape(area, context: context, index: i) { shapes.append(shape) }
            }
        }
        self.shapes = shapes
    }

    enum Reading {
        case fix(Location)
        case dropout
        /// No signal: `first` for the first fix lost in this outage.
        case outage(Environment, first: Bool)
    }

    /// The environment at a true position: the most degraded area holding it,
    /// else the walk's, else open sky; nil when no environment is configured.
    /// (Inlined: a call would copy the whole model, this being a method of it.)
    @inline(__always)
    func environment(at c: Coordinate) -> Environment? {
        guard options.hasEnvironment else { return nil }
        var found: Environment?
        for shape in shapes where shape.environment.severity > (found?.severity ?? -1) && shape.contains(c) {
            found = shape.environment
        }
        return found ?? options.environment ?? .openSky
    }

    /// `body` on the processes of `environment`, made at `origin` the first
    /// time, in place in ``environments`` (they are too large to copy per fix).
    @inline(__always)
    private mutating func withProcesses<R>(_ environment: Environment, origin: Double,
                                           _ body: (inout EnvironmentProcesses) -> R) -> R {
        body(&environments[environment, default: EnvironmentProcesses(environment, tau: options.tau, seed: options.seed, origin: origin)])
    }

    mutating func read(_ truth: TrueFix) -> Reading {
        if options.dropoutProbability > 0, generator.unit() <= options.dropoutProbability { return .dropout }
        let t = truth.time
        let t0 = origin ?? t
        if origin == nil {
            origin = t
            acquired = (t, false)
        }
        let environment = environment(at: truth.coordinate)
        if let environment {
            let lost = withProcesses(environment, origin: t0) { p in
                let step = Int(max(0, (t - t0).rounded(.down)))
                let lost = p.preset.alwaysLost || (p.outages?.isActive(atStep: step) ?? false)
                if p.multipath != nil { _ = p.multipath?.isActive(atStep: step) }
                return lost
            }
            if lost {
                defer { inOutage = true }
                return .outage(environment, first: !inOutage)
            }
        }
        if inOutage {
            inOutage = false
            acquired = (t, true)
        }

        var accuracy: Double
        var environmentAccuracy = 0.0
        if let environment {
            environmentAccuracy = withProcesses(environment, origin: t0) { p in
                let y = p.accuracy.value(at: t).east
                return (p.preset.medianAccuracy * exp(p.preset.spread * y) * 10).rounded() / 10
            }
            accuracy = environmentAccuracy
        } else {
            accuracy = truth.horizontalAccuracy.flatMap { $0 >= 0 ? $0 : nil } ?? defaultHorizontalAccuracy(desiredAccuracy: desiredAccuracy)
        }
        if options.warmUp == .ios, let acquired {
            let w = WarmUp.iosAccuracy(elapsed: t - acquired.time, afterOutage: acquired.afterOutage)
            if w > accuracy { accuracy = (w * 10).rounded() / 10 }
        }

        var coordinate = truth.coordinate
        var east = 0.0, north = 0.0
        let sigma = accuracy * SensorOptions.sigmaPerRadius68
        switch options.noise {
        case .gaussian:
            let (a, b) = generator.normalPair()
            east = a * sigma
            north = b * sigma
        case .gaussMarkov:
            if let environment {
                let z = withProcesses(environment, origin: t0) { $0.error.value(at: t) }
                east = z.east * sigma
                north = z.north * sigma
            } else if let z = process?.value(at: t) {
                east = z.east * sigma
                north = z.north * sigma
            }
        case .none:
            break
        }
        var multipath = false
        if options.noise != .none, let environment,
           case let (offset, direction)? = withProcesses(environment, origin: t0, { p in
               p.multipath.flatMap { $0.active ? (p.preset.multipathOffset, $0.direction) : nil }
           }) {
            multipath = true
            east += offset * environmentAccuracy * sin(direction)
            north += offset * environmentAccuracy * cos(direction)
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
        let recordedVertical = options.hasEnvironment ? nil : truth.verticalAccuracy.flatMap { $0 > 0 ? $0 : nil }
        let verticalAccuracy = hasAltitude ? (recordedVertical ?? 1.5 * accuracy) : -1
        var location = Location(coordinate: coordinate, altitude: truth.elevation ?? 0, horizontalAccuracy: accuracy,
                                verticalAccuracy: verticalAccuracy, course: truth.course, speed: truth.speed,
                                timestamp: truth.time, sourceLine: truth.line)
        if let leg = truth.leg {
            // Both ends of the leg off by this fix's error: along the leg for speed, across it for course.
            let spread = 2.squareRoot() * accuracy * SensorOptions.sigmaPerRadius68
            if truth.speed >= 0, leg.duration > 0 { location.speedAccuracy = spread / leg.duration }
            if truth.course >= 0, leg.distance > 0 { location.courseAccuracy = courseAccuracy(spread: spread, distance: leg.distance) }
        }
        if options.debugTruth { location.appliedError = Location.AppliedError(east: east, north: north, multipath: multipath) }
        return .fix(location)
    }

    /// `atan(spread / distance)` in degrees, remembered for the next fix with the same two.
    private mutating func courseAccuracy(spread: Double, distance: Double) -> Double {
        if let memo = courseAccuracyMemo, memo.spread == spread.bitPattern, memo.distance == distance.bitPattern {
            return memo.degrees
        }
        let degrees = atan2(spread, distance) * 180 / .pi
        courseAccuracyMemo = (spread.bitPattern, distance.bitPattern, degrees)
        return degrees
    }
}
