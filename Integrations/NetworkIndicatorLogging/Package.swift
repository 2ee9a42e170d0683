// swift-tools-version:6.0
import Foundation
import PackageDescription

// The root package is two folders up; its name is computed from the path, as in
// Integrations/NetworkIndicatorOpenAPI/Package.swift, so that any clone folder name resolves.
let rootPath = "../.."
let rootPackage = URL(fileURLWithPath: Context.packageDirectory)
    .appendingPathComponent(rootPath)
    .standardizedFileURL
    .lastPathComponent

// The same language settings as the root package's targets.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "NetworkIndicatorLogging",
    platforms: [
        .iOS(.v13),
        .macOS(.v10_15),
        .tvOS(.v13),
        .watchOS(.v6),
        .visionOS(.v1),
    ],
    products: [
        // Every task's begin and end, stuck tasks and misuse reports, to a swift-log `Logger`.
        .library(name: "NetworkIndicatorLogging", targets: ["NetworkIndicatorLogging"])
    ],
    // The library uses only swift-log 1.0's `Logger` API; the tests' in-memory `LogHandler`
    // implements `log(event:)` (swift-log's SLG-0005), without which the release on the CI
    // machines warns, and CI builds with warnings as errors. 1.16.2 is the oldest release known
    // to have it.
    dependencies: [
        .package(path: rootPath),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "NetworkIndicatorLogging",
            dependencies: [
                .product(name: "NetworkIndicator", package: rootPackage),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetworkIndicatorLoggingTests",
            dependencies: [
                "NetworkIndicatorLogging",
                .product(name: "NetworkIndicator", package: rootPackage),
                .product(name: "NetworkIndicatorTesting", package: rootPackage),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
