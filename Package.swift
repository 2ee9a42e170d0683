// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "NetworkIndicator",
    // Swift concurrency (async/await, AsyncStream) back-deploys to these releases; nothing
    // older can run the package's async API. See README.md, "Platforms".
    platforms: [
        .iOS(.v13),
        .macOS(.v10_15),
        .tvOS(.v13),
        .watchOS(.v6),
        .visionOS(.v1),
    ],
    products: [
        .library(name: "NetworkIndicator", targets: ["NetworkIndicator"])
    ],
    targets: [
        .target(
            name: "NetworkIndicator",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
        .executableTarget(
            name: "NetworkIndicatorDemo",
            dependencies: ["NetworkIndicator"],
            path: "Examples/NetworkIndicatorDemo"
        ),
        .testTarget(
            name: "NetworkIndicatorTests",
            dependencies: ["NetworkIndicator"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
