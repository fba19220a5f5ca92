import Benchmark
import BenchmarkWorkload
import Proximity
import Traces

/// The whole update, as `stroll bench --variant pipeline` times it: one
/// delivered fix of the bundled Lime Street walk through the simulator, every
/// group's ranking and the map model to its JSON lines written to /dev/null
/// (`PipelineStepper`), at the bundled 24 places and at 1 000 and 10 000
/// generated ones in two groups. `mallocCountTotal` divided by the
/// iterations is the allocations per update.
func registerPipeline() {
    let walkPath = repositoryRoot.appendingPathComponent("traces/lime-street-to-campus.gpx").path
    let bundled = ["Fixtures/CityCycleRideLocations.plist", "Fixtures/lecture-theatres.json"]
    for n in [24, 1000, 10_000] {
        Benchmark("Pipeline update N=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput])) { benchmark in
            let walk = try TraceReader.read(walkPath)
            var places = PlaceSet(), groups: [String]
            if n == 24 {
                for file in bundled { places.merge(try PlaceSet.load(repositoryRoot.appendingPathComponent(file).path)) }
                groups = ["liverpool", "lecture-theatres"]
            } else {
                (places, groups) = PipelineBenchmark.places(count: n, seed: 1)
            }
            var stepper = try PipelineStepper(walk: walk, places: places, groups: groups)
            for _ in 0..<60 { stepper.update() }    // past the first updates, which insert every row
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(stepper.update())
            }
        }
    }
}
