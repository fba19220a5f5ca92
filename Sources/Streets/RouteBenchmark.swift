import Geodesy

/// Timed shortest-route queries between nodes of a network chosen at random
/// (by the caller's generator: seeded, runs repeat): what `stroll bench
/// --variant route` reports.
public enum RouteBenchmark {
    /// The queries' times and what they found.
    public struct Result: Sendable {
        /// Each query's time in microseconds, snapping included.
        public var samples: [Double]
        /// Queries that found a route.
        public var routes: Int
        /// Queries between points with no walkable path.
        public var unreachable: Int
        /// The sum of the routes' lengths in metres, so the work cannot be optimised away.
        public var checksum: Double
    }

    /// Runs `queries` routes between random nodes of `network`.
    public static func run(_ network: StreetNetwork, queries: Int, using generator: inout some RandomNumberGenerator) -> Result {
        var result = Result(samples: [], routes: 0, unreachable: 0, checksum: 0)
        result.samples.reserveCapacity(queries)
        let count = UInt64(network.coordinates.count)
        guard count > 0 else { return result }
        for _ in 0..<queries {
            let a = network.coordinates[Int(generator.next(upperBound: count))], b = network.coordinates[Int(generator.next(upperBound: count))]
            time(network, from: a, to: b, into: &result)
        }
        return result
    }

    /// Runs one route for each of `pairs`, in order: the same queries another
    /// router can be timed on.
    public static func run(_ network: StreetNetwork, pairs: [(from: Coordinate, to: Coordinate)]) -> Result {
        var result = Result(samples: [], routes: 0, unreachable: 0, checksum: 0)
        result.samples.reserveCapacity(pairs.count)
        for pair in pairs {
            time(network, from: pair.from, to: pair.to, into: &result)
        }
        return result
    }

    /// Times one route, snapping included, and adds it to `result`.
    private static func time(_ network: StreetNetwork, from a: Coordinate, to b: Coordinate, into result: inout Result) {
        let clock = ContinuousClock()
        let began = clock.now
        let route = try? network.route(from: a, to: b)
        let took = clock.now - began
        result.samples.append(Double(took.components.seconds) * 1e6 + Double(took.components.attoseconds) / 1e12)
        if let route {
            result.routes += 1
            result.checksum += route.distance
        } else {
            result.unreachable += 1
        }
    }
}
