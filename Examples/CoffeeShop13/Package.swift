// swift-tools-version: 6.1
// CoffeeShop13's logic as an iOS developer writes it, against CoreLocation and
// MapKit only. On Linux those come from Stroll; on Apple platforms the real
// frameworks are used and Stroll's products are not linked.
import PackageDescription

let linux = TargetDependencyCondition.when(platforms: [.linux])

let package = Package(
    name: "CoffeeShop13",
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
            name: "CoffeeShop",
            dependencies: [
                .product(name: "CoreLocation", package: "Stroll", condition: linux),
                .product(name: "MapKit", package: "Stroll", condition: linux),
            ],
            resources: [.copy("CityCycleRideLocations.plist")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "CoffeeShopTests",
            dependencies: ["CoffeeShop", .product(name: "StrollSimulation", package: "Stroll", condition: linux)],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
