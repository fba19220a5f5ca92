// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// The CPU Stroll's own modules are compiled for, when asked: nothing in a
/// default build, so that a package depending on Stroll by version builds
/// (SwiftPM refuses `unsafeFlags` there) and the binary runs on any machine of
/// its architecture. `STROLL_TARGET_CPU=auto` (what `make build`, `make run`
/// and the Makefile's other targets set) compiles for the build machine's
/// vector unit, as a C program compiled with `-march=native` would be: on
/// x86-64 Linux with the AVX2 generation's instructions (AVX2, FMA, BMI),
/// `haswell`, and Proximity alone (the distance loops) for the AVX-512
/// generation where the machine has it (`znver4` on AMD, `skylake-avx512` on
/// Intel): four and eight doubles at a time. `STROLL_TARGET_CPU=NAME` chooses
/// NAME for every module. Only Proximity gets the AVX-512 generation: its
/// distance loops gain from the wider vectors, while the trace readers,
/// compiled so, read more slowly (`make bench`'s `Parse GPX/CSV 50 MB`), so the
/// other modules stay at the AVX2 generation. Benchmarks/README.md has the
/// default build beside the opted-in one.
let cpuInfo: (avx2: Bool, avx512: Bool, amd: Bool)? = {
    #if arch(x86_64) && os(Linux)
    guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
    let lines = info.split(separator: "\n")
    guard let line = lines.first(where: { $0.hasPrefix("flags") }) else { return nil }
    let flags = Set(line.split(separator: " ").map(String.init))
    return (["avx2", "fma", "bmi1", "bmi2", "f16c", "abm", "movbe", "popcnt"].allSatisfy(flags.contains),
            ["avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl"].allSatisfy(flags.contains),
            lines.contains { $0.hasPrefix("vendor_id") && $0.hasSuffix("AuthenticAMD") })
    #else
    return nil
    #endif
}()
let chosenCPU: String? = Context.environment["STROLL_TARGET_CPU"].flatMap { $0.isEmpty ? nil : $0 }
let targetCPU: String? = chosenCPU == "auto" ? (cpuInfo?.avx2 == true ? "haswell" : nil) : chosenCPU
let vectorCPU: String? = chosenCPU == "auto" ? {
    guard let cpu = cpuInfo, cpu.avx2 else { return nil }
    return cpu.avx512 ? (cpu.amd ? "znver4" : "skylake-avx512") : "haswell"
}() : chosenCPU

let language: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]
let strict: [SwiftSetting] = language + (targetCPU.map { [.unsafeFlags(["-target-cpu", $0])] } ?? [])
/// Proximity's settings: ``vectorCPU``.
let vectorized: [SwiftSetting] = language + (vectorCPU.map { [.unsafeFlags(["-target-cpu", $0])] } ?? [])

let package = Package(
    name: "Stroll",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "stroll", targets: ["stroll"]),
        .library(name: "Geodesy", targets: ["Geodesy"]),
        .library(name: "Geomagnetism", targets: ["Geomagnetism"]),
        .library(name: "GEOS", targets: ["GEOS"]),
        .library(name: "SpatialIndex", targets: ["SpatialIndex"]),
        .library(name: "Traces", targets: ["Traces"]),
        .library(name: "LocationSimulation", targets: ["LocationSimulation"]),
        .library(name: "Places", targets: ["Places"]),
        .library(name: "Proximity", targets: ["Proximity"]),
        .library(name: "PlacesOSM", targets: ["PlacesOSM"]),
        .library(name: "PlacesGeoPackage", targets: ["PlacesGeoPackage"]),
        .library(name: "PlacesPostGIS", targets: ["PlacesPostGIS"]),
        .library(name: "PlaceSources", targets: ["PlaceSources"]),
        .library(name: "Streets", targets: ["Streets"]),
        .library(name: "Map", targets: ["Map"]),
        .library(name: "Scenarios", targets: ["Scenarios"]),
        .library(name: "Replay", targets: ["Replay"]),
        .library(name: "Batches", targets: ["Batches"]),
        .library(name: "BenchmarkWorkload", targets: ["BenchmarkWorkload"]),
        .library(name: "RunFiles", targets: ["RunFiles"]),
        .library(name: "Serve", targets: ["Serve"]),
        .library(name: "ChildProcess", targets: ["ChildProcess"]),
        .library(name: "CoreLocation", targets: ["CoreLocation"]),
        .library(name: "MapKit", targets: ["MapKit"]),
        .library(name: "StrollSimulation", targets: ["StrollSimulation"]),
        .library(name: "StrollTesting", targets: ["StrollTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Combine's names (ObservableObject, @Published, AnyCancellable) where
        // `import CoreLocation` brings them on Apple's platforms.
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CGEOS",
            pkgConfig: "geos",
            providers: [.apt(["libgeos-dev"]), .brew(["geos"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // PostGIS through libpq, the PostgreSQL project's own client: prebuilt,
        // TLS through the system's OpenSSL, nothing compiled here.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(name: "Geodesy", swiftSettings: strict),
        // The World Magnetic Model (NOAA/NCEI and BGS, public domain): declination for headings.
        .target(name: "Geomagnetism", exclude: ["Coefficients"], swiftSettings: strict),
        // The one grid of points the proximity engine and the map model share.
        .target(name: "SpatialIndex", dependencies: ["Geodesy"], swiftSettings: strict),
        .target(name: "GEOS", dependencies: ["CGEOS", "Geodesy"], swiftSettings: strict),
        .target(name: "Traces", dependencies: ["Geodesy", "CZlib"], swiftSettings: strict),
        .target(name: "LocationSimulation", dependencies: ["Geodesy", "GEOS", "Traces"], swiftSettings: strict),
        // The place model, its errors and columns, and the readers and writers of plain place files.
        .target(name: "Places", dependencies: ["Geodesy", "Traces"], swiftSettings: strict),
        .target(name: "Proximity", dependencies: ["Geodesy", "SpatialIndex", "Places"], swiftSettings: vectorized),
        .target(name: "Map", dependencies: ["Geodesy", "SpatialIndex"], swiftSettings: strict),
        // Places from OpenStreetMap: PBF (its wire format read directly), XML, Overpass JSON.
        .target(name: "PlacesOSM", dependencies: ["Geodesy", "GEOS", "Traces", "Places", "CZlib"], swiftSettings: strict),
        // Places from GeoPackage files and runs written as them: SQLite's C API directly, WKB through GEOS.
        .target(name: "PlacesGeoPackage", dependencies: ["CSQLite", "Geodesy", "GEOS", "Places"], swiftSettings: strict),
        // Places from PostGIS through libpq (COPY ... TO STDOUT, as psql's \\copy reads).
        .target(name: "PlacesPostGIS", dependencies: ["CLibPQ", "Geodesy", "Places"], swiftSettings: strict),
        // Any place source by path or URI: the one entry point over every place reader.
        .target(name: "PlaceSources", dependencies: ["Geodesy", "Traces", "Places", "PlacesOSM", "PlacesGeoPackage", "PlacesPostGIS", "Streets"], swiftSettings: strict),
        // The street side of OpenStreetMap: the walking network and shortest routes, addresses and their search.
        .target(name: "Streets", dependencies: ["Geodesy", "Places", "PlacesOSM", "Traces"], swiftSettings: strict),
        .target(name: "ChildProcess", swiftSettings: strict),
        .target(name: "Replay", dependencies: ["Geodesy", "Traces", "LocationSimulation", "Proximity", "Map"], swiftSettings: strict),
        .target(name: "RunFiles", dependencies: ["Replay", "PlacesGeoPackage", "Proximity", "Traces"], swiftSettings: strict),
        .target(name: "BenchmarkWorkload", dependencies: ["Geodesy", "Traces", "LocationSimulation", "Proximity", "Map", "SpatialIndex", "Replay"], swiftSettings: strict),
        .target(name: "Batches", dependencies: ["ChildProcess", "Traces", "Places", "Proximity", "Replay"], swiftSettings: strict),
        .target(name: "CoreLocation", dependencies: ["Geodesy", "Streets", .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux]))],
                swiftSettings: strict),
        // The live server: gpsd's protocol, NMEA over TCP and the web view, on POSIX sockets polled by one thread.
        .target(name: "Serve", dependencies: ["Replay", "Traces", "Geodesy", "LocationSimulation"], swiftSettings: strict),
        .target(name: "MapKit", dependencies: ["CoreLocation", "Geodesy", "Map", "Streets"], swiftSettings: strict),
        .target(name: "StrollSimulation", dependencies: ["CoreLocation", "Streets", "LocationSimulation", "Traces", "Geodesy", "Geomagnetism"], swiftSettings: strict),
        .target(name: "StrollTesting", dependencies: ["Replay", "Proximity", "Places", "LocationSimulation"], swiftSettings: strict),
        .target(name: "Scenarios", dependencies: ["Geodesy", "LocationSimulation", "Proximity", "Map"], swiftSettings: strict),
        .executableTarget(
            name: "stroll",
            dependencies: [
                "Geodesy", "Traces", "LocationSimulation", "Places", "Proximity", "Map", "Replay", "PlacesOSM", "PlaceSources",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                "Serve", "Batches", "BenchmarkWorkload", "RunFiles", "Streets", "ChildProcess",
            ],
            swiftSettings: strict,
            plugins: ["StrollVersion"]
        ),
        // `stroll --version`: the git tag or the VERSION file, and the commit built.
        .plugin(name: "StrollVersion", capability: .buildTool()),
        .target(name: "TestSupport", dependencies: ["ChildProcess"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "GeodesyTests", dependencies: ["TestSupport", "Geodesy"], resources: [.copy("Reference")], swiftSettings: strict),
        .testTarget(name: "GeomagnetismTests", dependencies: ["TestSupport", "Geomagnetism"], exclude: ["Reference"], swiftSettings: strict),
        .testTarget(name: "PlacesOSMTests", dependencies: ["TestSupport", "PlacesOSM", "Proximity"], swiftSettings: strict),
        .testTarget(name: "StreetsTests", dependencies: ["TestSupport", "Streets", "PlacesOSM", "Geodesy", "Traces"], swiftSettings: strict),
        .testTarget(name: "PlacesPostGISTests", dependencies: ["PlacesPostGIS"], swiftSettings: strict),
        .testTarget(name: "PlacesGeoPackageTests", dependencies: ["TestSupport", "PlacesGeoPackage", "Proximity", "Geodesy"], swiftSettings: strict),
        .testTarget(name: "GEOSTests", dependencies: ["TestSupport", "GEOS", "Geodesy"], swiftSettings: strict),
        .testTarget(name: "TracesTests", dependencies: ["TestSupport", "Traces", "Geodesy", "ChildProcess"], exclude: ["Regressions"], swiftSettings: strict),
        .testTarget(name: "LocationSimulationTests", dependencies: ["TestSupport", "LocationSimulation", "Traces", "Geodesy"], exclude: ["Reference"], swiftSettings: strict),
        .testTarget(name: "PlacesTests", dependencies: ["TestSupport", "Places"], swiftSettings: strict),
        .testTarget(name: "PlaceSourcesTests", dependencies: ["TestSupport", "PlaceSources", "Places", "PlacesOSM", "PlacesGeoPackage", "Streets"], swiftSettings: strict),
        .testTarget(name: "ProximityTests", dependencies: ["TestSupport", "Proximity", "LocationSimulation", "Traces", "Geodesy"], resources: [.copy("Expected")], swiftSettings: strict),
        .testTarget(name: "ChildProcessTests", dependencies: ["TestSupport", "ChildProcess"], swiftSettings: strict),
        .testTarget(name: "SpatialIndexTests", dependencies: ["TestSupport", "SpatialIndex", "Geodesy"], swiftSettings: strict),
        .testTarget(name: "ReplayTests", dependencies: ["TestSupport", "Replay", "Proximity", "Traces", "Geodesy", "LocationSimulation", "Map"], swiftSettings: strict),
        .testTarget(name: "BatchesTests", dependencies: ["TestSupport", "Batches", "Replay", "PlaceSources", "PlacesGeoPackage", "Proximity", "Traces"], swiftSettings: strict),
        .testTarget(name: "MapTests", dependencies: ["TestSupport", "Map", "Geodesy"], swiftSettings: strict),
        .testTarget(name: "ScenariosTests", dependencies: ["TestSupport", "Scenarios", "Map", "Proximity", "LocationSimulation", "Traces", "Geodesy"], exclude: ["Expected"], swiftSettings: strict),
        .testTarget(name: "StrollTestingTests", dependencies: ["TestSupport", "StrollTesting", "Replay", "Proximity", "Traces", "Geodesy"],
                    exclude: ["__Goldens__"], swiftSettings: strict),
        .testTarget(name: "CompatibilityTests", dependencies: ["TestSupport", "CoreLocation", "MapKit", "StrollSimulation", "LocationSimulation", "Traces", "Geodesy", "Geomagnetism", "Streets"], swiftSettings: strict),
        // App code as it is mostly written today: the Swift 5 language mode, on purpose.
        .testTarget(name: "CompatibilitySwift5Tests", dependencies: ["TestSupport", "CoreLocation", "StrollSimulation", "LocationSimulation", "Traces", "Streets", "Geodesy"],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(name: "ServeTests", dependencies: ["TestSupport", "Serve", "Replay", "Proximity", "LocationSimulation", "Traces", "Geodesy"],
                    swiftSettings: strict),
        .testTarget(
            name: "StrollCLITests",
            dependencies: [
                "TestSupport", "stroll", "Replay", "Proximity", "LocationSimulation", "Traces", "Geodesy", "ChildProcess", "PlacesGeoPackage", "Batches",
            ],
            swiftSettings: strict
        ),
    ]
)
