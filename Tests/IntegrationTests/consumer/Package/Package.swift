// swift-tools-version: 6.1
// A new app's logic package depending on Stroll by version, as
// docs/Compatibility.md tells app developers to write it. Tests/IntegrationTests/consumer/run.sh
// builds and tests it against a clone of this repository tagged 0.1.0,
// replacing the URL below with the clone's file:// URL. The package identity
// is the URL's last path component, `stroll`; `package: "Stroll"` names it
// (identities compare without regard to case).
import PackageDescription

let linux = TargetDependencyCondition.when(platforms: [.linux])

let package = Package(
    name: "CafeFinder",
    platforms: [.macOS(.v15), .iOS(.v17)],
    dependencies: [
        .package(url: "https://github.com/OWNER/stroll", from: "0.1.0"),
    ],
    targets: [
        // The app's logic: Apple's frameworks on Apple platforms, Stroll's on Linux.
        .target(
            name: "CafeFinder",
            dependencies: [
                .product(name: "CoreLocation", package: "Stroll", condition: linux),
                .product(name: "MapKit", package: "Stroll", condition: linux),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Its tests, in the Swift 6 language mode: StrollSimulation plays the
        // device, StrollTesting (with Replay, Proximity, Traces and Geodesy)
        // replays the walk independently.
        .testTarget(
            name: "CafeFinderTests",
            dependencies: [
                "CafeFinder",
                .product(name: "StrollSimulation", package: "Stroll", condition: linux),
                .product(name: "StrollTesting", package: "Stroll", condition: linux),
                .product(name: "Replay", package: "Stroll", condition: linux),
                .product(name: "Proximity", package: "Stroll", condition: linux),
                .product(name: "Traces", package: "Stroll", condition: linux),
                .product(name: "Geodesy", package: "Stroll", condition: linux),
            ],
            resources: [.copy("lime-street-to-campus.gpx")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
