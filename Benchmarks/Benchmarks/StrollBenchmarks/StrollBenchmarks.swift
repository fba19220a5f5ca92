import Benchmark
import Geodesy

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(3))
    registerTraceParsing()
    registerFormatReading()
    registerProximity()
    registerPipeline()

    // 1000 pairs around Liverpool city centre, 0 to ~6 km apart.
    let pairs: [(Coordinate, Coordinate)] = (0..<1000).compactMap { i in
        let t = Double(i) / 1000
        guard let a = try? Coordinate(latitude: 53.40 + 0.03 * t, longitude: -2.99 + 0.05 * t),
              let b = try? Coordinate(latitude: 53.43 - 0.02 * t, longitude: -2.94 - 0.04 * t) else { return nil }
        return (a, b)
    }

    Benchmark("Geodesic inverse (Karney), 1000 city pairs", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            for (a, b) in pairs {
                blackHole(Geodesic.wgs84.inverse(a, b))
            }
        }
    }

    Benchmark("Geodesic direct (Karney), 1000 city pairs", configuration: .init(scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            for (a, _) in pairs {
                blackHole(Geodesic.wgs84.direct(from: a, azimuth: 37, distance: 1234.5))
            }
        }
    }
}
