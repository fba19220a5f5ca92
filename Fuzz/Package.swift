// swift-tools-version: 6.1
// libFuzzer targets for Stroll's readers. Built by `make fuzz` with
// -sanitize=fuzzer,address; a package of its own because a fuzz target has no main.
import PackageDescription

let fuzz: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "StrollFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Stroll", path: "..")],
    targets: [
        .target(name: "FuzzDriver", swiftSettings: fuzz),
        .executableTarget(name: "FuzzGPX", dependencies: ["FuzzDriver", .product(name: "Traces", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzCSV", dependencies: ["FuzzDriver", .product(name: "Traces", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzKML", dependencies: ["FuzzDriver", .product(name: "Traces", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzKMZ", dependencies: ["FuzzDriver", .product(name: "Traces", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzTCX", dependencies: ["FuzzDriver", .product(name: "Traces", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzNMEA", dependencies: ["FuzzDriver", .product(name: "Traces", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzGeoJSON", dependencies: ["FuzzDriver", .product(name: "Traces", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzPLT", dependencies: ["FuzzDriver", .product(name: "Traces", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzPlaces", dependencies: ["FuzzDriver", .product(name: "Proximity", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzGolden", dependencies: ["FuzzDriver", .product(name: "Proximity", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzOSMPBF", dependencies: ["FuzzDriver", .product(name: "PlacesOSM", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzOSMXML", dependencies: ["FuzzDriver", .product(name: "PlacesOSM", package: "Stroll")], swiftSettings: fuzz),
        .executableTarget(name: "FuzzState", dependencies: ["FuzzDriver", .product(name: "Replay", package: "Stroll")], swiftSettings: fuzz),
    ]
)
