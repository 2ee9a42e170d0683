// swift-tools-version:6.0
import PackageDescription

// The same language settings for every library target.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "NetworkIndicator",
    // NetworkIndicatorUI ships its "Loading" label in several languages; English is the fallback.
    defaultLocalization: "en",
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
        // The core: no UI framework, usable in app extensions, command-line tools and on Linux.
        .library(name: "NetworkIndicator", targets: ["NetworkIndicator"]),
        // Apple UI adapters: the status-bar spinner, UIKit and SwiftUI overlays.
        .library(name: "NetworkIndicatorUI", targets: ["NetworkIndicatorUI"]),
        // Test doubles for apps' own tests (the manual scheduler, the recording output); link
        // it from test targets only, so that apps do not ship it.
        .library(name: "NetworkIndicatorTesting", targets: ["NetworkIndicatorTesting"]),
    ],
    targets: [
        .target(
            name: "NetworkIndicator",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NetworkIndicatorTesting",
            dependencies: ["NetworkIndicator"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "NetworkIndicatorUI",
            dependencies: ["NetworkIndicator"],
            resources: [.process("Resources")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "NetworkIndicatorDemo",
            dependencies: ["NetworkIndicator"],
            path: "Examples/NetworkIndicatorDemo"
        ),
        .testTarget(
            name: "NetworkIndicatorTests",
            dependencies: ["NetworkIndicator", "NetworkIndicatorTesting"]
        ),
        .testTarget(
            name: "NetworkIndicatorUITests",
            dependencies: ["NetworkIndicatorUI", "NetworkIndicatorTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
