import Foundation
import Geodesy
import LocationSimulation
import Traces

/// The proximity benchmark's workload, the one `stroll bench` runs and the
/// ordo-one suite in Benchmarks/ measures: places spread uniformly (seeded)
/// over 6 km x 6 km around Liverpool's centre, and a walker stepping through
/// them along a walk's delivered fixes (the 25 m distance filter), back and
/// forth for as many positions as asked.
public enum BenchmarkWorkload {
    public static let centre = (latitude: 53.4055, longitude: -2.9660)

    /// Why a walk cannot drive the benchmark: the file and the reason
    /// (`unreadable` when the file cannot be read at all).
    public struct WalkError: Error, Sendable, CustomStringConvertible {
        public var description: String
        public var unreadable: Bool
    }

    /// The monotonic clock in nanoseconds, read as the C floor reads it
    /// (`clock_gettime`, without libdispatch's wrapper around it).
    @inline(__always)
    public static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(truncatingIfNeeded: t.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: t.tv_nsec)
    }

    /// `count` places uniform in 6 km x 6 km around the centre, from `seed`.
    public static func places(count: Int, seed: UInt64) -> [Coordinate] {
        var rng = SeededGenerator(seed: seed)
        let span = Ellipsoid.wgs84.degrees(metresNorthSouth: 6000, metresEastWest: 6000, atLatitude: centre.latitude)
        return (0..<count).map { _ in
            let lat = centre.latitude + (Double(rng.next() >> 11) / 9_007_199_254_740_992 - 0.5) * span.latitudeDelta
            let lon = centre.longitude + (Double(rng.next() >> 11) / 9_007_199_254_740_992 - 0.5) * span.longitudeDelta
            return Coordinate(computedLatitude: lat, longitude: lon)
        }
    }

    /// The walker's positions: the walk's delivered fixes with the 25 m
    /// filter, back and forth until there are at least `minimum`.
    public static func walker(tracePath: String, minimum: Int) throws(WalkError) -> [Coordinate] {
        let trace: Trace
        do {
            trace = try TraceReader.read(tracePath)
        } catch {
            throw WalkError(description: error.description, unreadable: error.kind == .unreadable)
        }
        var path: [Coordinate] = []
        do {
            var simulator = try LocationSimulator(trace: trace)
            while let e = simulator.next() { if case .location(let l) = e { path.append(l.coordinate) } }
        } catch {
            throw WalkError(description: "\(tracePath): \(error)", unreadable: false)
        }
        guard path.count >= 2 else { throw WalkError(description: "\(tracePath): the walk delivers fewer than two fixes", unreadable: false) }
        var positions = path
        var forward = false
        while positions.count < minimum {
            positions += (forward ? path : path.reversed()).dropFirst()
            forward.toggle()
        }
        return positions
    }
}
