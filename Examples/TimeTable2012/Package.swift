// swift-tools-version: 6.1
// TimeTable2012's logic as an iOS developer writes it today (Swift 6, main
// actor), against CoreLocation and MapKit only. On Linux those come from
// Stroll; on Apple platforms the real frameworks are used.
import PackageDescription

let linux = TargetDependencyCondition.when(platforms: [.linux])

let package = Package(
    name: "TimeTable2012",
    platforms: [.macOS(.v15), .iOS(.v17)],
    // An app depends on Stroll by version (the URL's last path component,
    // `stroll`, is the package identity that `package: "Stroll"` names):
    //     .package(url: "https://github.com/OWNER/stroll", from: "0.1.0"),
    // OWNER stands for wherever Stroll is published. The path below is for
    // building inside this repository (`make test`); Tests/IntegrationTests/consumer/run.sh
    // builds an app that uses the line above.
    dependencies: [.package(name: "Stroll", path: "../..")],
    targets: [
        .target(
            name: "TimeTable",
            dependencies: [
                .product(name: "CoreLocation", package: "Stroll", condition: linux),
                .product(name: "MapKit", package: "Stroll", condition: linux),
            ],
            resources: [.copy("TimeTable.json"), .copy("Semester1Modules.json"), .copy("lecture-theatres.json")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "TimeTableTests",
            dependencies: ["TimeTable", .product(name: "StrollSimulation", package: "Stroll", condition: linux)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
