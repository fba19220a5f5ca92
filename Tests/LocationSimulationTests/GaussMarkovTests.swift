import Foundation
import Geodesy
@testable import LocationSimulation
import Testing

@Suite("gauss-markov noise: an error correlated in time, as large as the accuracy says, the same at any replay rate")
struct GaussMarkovTests {
    /// A receiver standing still at one point, read at `count` times `spacing` seconds apart.
    func errors(tau: Double, accuracy: Double, seed: UInt64, count: Int, spacing: Double) throws -> [(east: Double, north: Double)] {
        var options = SensorOptions(noise: .gaussMarkov, seed: seed, tau: tau, debugTruth: true)
        options.tau = tau
        var sensor = SensorModel(options: options, desiredAccuracy: 10)
        let here = try Coordinate(latitude: 53.4055, longitude: -2.9660)
        var out: [(east: Double, north: Double)] = []
        out.reserveCapacity(count)
        for k in 0..<count {
            let truth = TrueFix(coordinate: here, time: 1_700_000_000 + Double(k) * spacing, elevation: nil, horizontalAccuracy: accuracy,
                                verticalAccuracy: nil, course: -1, speed: -1, line: nil)
            guard case .fix(let l) = sensor.read(truth), let e = l.appliedError else {
                Issue.record("no fix or no applied error")
                return []
            }
            #expect(l.horizontalAccuracy == accuracy)
            out.append((e.east, e.north))
        }
        return out
    }

    static func autocorrelation(_ x: [Double], lag: Int) -> Double {
        let mean = x.reduce(0, +) / Double(x.count)
        var num = 0.0, den = 0.0
        for i in x.indices {
            den += (x[i] - mean) * (x[i] - mean)
            if i + lag < x.count { num += (x[i] - mean) * (x[i + lag] - mean) }
        }
        return num / den
    }

    @Test("over 100 000 fixes: per-axis standard deviation within 2 %, autocorrelation at lag τ within 0.02 of 1/e, the 68 % circle holding 68 ± 1 %",
          arguments: [(60.0, 5.0), (20.0, 15.0), (180.0, 65.0)])
    func statistics(tau: Double, accuracy: Double) throws {
        // Fixes τ/2 apart: lag τ is 2 fixes, and 100 000 fixes span 50 000 τ.
        let e = try errors(tau: tau, accuracy: accuracy, seed: 7, count: 100_000, spacing: tau / 2)
        let sigma = accuracy * SensorOptions.sigmaPerRadius68
        for axis in [e.map(\.east), e.map(\.north)] {
            let mean = axis.reduce(0, +) / Double(axis.count)
            let sd = (axis.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(axis.count - 1)).squareRoot()
            #expect(abs(sd / sigma - 1) <= 0.02, "sd \(sd) for σ \(sigma)")
            let r = Self.autocorrelation(axis, lag: 2)
            #expect(abs(r - exp(-1)) <= 0.02, "autocorrelation at τ \(r)")
        }
        let inside = Double(e.filter { ($0.east * $0.east + $0.north * $0.north).squareRoot() <= accuracy }.count) / Double(e.count)
        #expect(abs(inside - 0.68) <= 0.01, "inside the 68 % circle: \(inside)")
    }

    @Test("the error a second later is almost the same error; gaussian's is not")
    func correlated() throws {
        let e = try errors(tau: 60, accuracy: 10, seed: 3, count: 20_000, spacing: 1)
        #expect(Self.autocorrelation(e.map(\.east), lag: 1) > 0.95)
        var sensor = SensorModel(options: SensorOptions(noise: .gaussian, seed: 3, debugTruth: true), desiredAccuracy: 10)
        let here = try Coordinate(latitude: 53.4, longitude: -2.97)
        var white: [Double] = []
        for k in 0..<20_000 {
            if case .fix(let l) = sensor.read(TrueFix(coordinate: here, time: Double(k), elevation: nil, horizontalAccuracy: 10,
                                                       verticalAccuracy: nil, course: -1, speed: -1, line: nil)) {
                white.append(l.appliedError?.east ?? .nan)
            }
        }
        #expect(abs(Self.autocorrelation(white, lag: 1)) < 0.03)
    }

    @Test("independent of the replay rate: at 1 Hz and at 10 Hz the fixes at the same times carry the same error; the same seed the same errors")
    func rateIndependent() throws {
        let slow = try errors(tau: 60, accuracy: 10, seed: 11, count: 600, spacing: 1)
        let fast = try errors(tau: 60, accuracy: 10, seed: 11, count: 6_000, spacing: 0.1)
        for k in stride(from: 0, to: 600, by: 7) {
            #expect(abs(slow[k].east - fast[10 * k].east) < 1e-9 && abs(slow[k].north - fast[10 * k].north) < 1e-9, "at \(k) s")
        }
        let again = try errors(tau: 60, accuracy: 10, seed: 11, count: 600, spacing: 1)
        #expect(zip(slow, again).allSatisfy { $0.east == $1.east && $0.north == $1.north })
        let other = try errors(tau: 60, accuracy: 10, seed: 12, count: 600, spacing: 1)
        #expect(!zip(slow, other).allSatisfy { $0.east == $1.east })
    }
}
