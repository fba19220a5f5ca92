// swift-tools-version: 6.1
// Benchmarks live in their own package so that `swift test` at the top stays lean.
import PackageDescription

let package = Package(
    name: "StrollBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Stroll", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "StrollBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Geodesy", package: "Stroll"),
                .product(name: "Traces", package: "Stroll"),
                .product(name: "Proximity", package: "Stroll"),
                .product(name: "Map", package: "Stroll"),
                .product(name: "LocationSimulation", package: "Stroll"),
                .product(name: "BenchmarkWorkload", package: "Stroll"),
            ],
            path: "Benchmarks/StrollBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
