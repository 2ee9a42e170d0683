// swift-tools-version:6.0
import Foundation
import PackageDescription

// The root package is two folders up. SwiftPM names a path dependency after its folder (its last
// path component), not after the `name:` in its manifest, so a clone under any other folder name
// ("NetworkIndicator-main", a worktree) would break `package: "NetworkIndicator"`. Compute the
// name from the path so that the dependency resolves whatever the folder is called.
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
    name: "NetworkIndicatorOpenAPI",
    platforms: [
        .iOS(.v13),
        .macOS(.v10_15),
        .tvOS(.v13),
        .watchOS(.v6),
        .visionOS(.v1),
    ],
    products: [
        // A swift-openapi `ClientMiddleware` that counts each request as one network task, until
        // its response body is read to the end, fails or is released.
        .library(name: "NetworkIndicatorOpenAPI", targets: ["NetworkIndicatorOpenAPI"])
    ],
    // The lowest versions whose API the code uses (see CONTRIBUTING.md, "Toolchain"): a Swift 6.0
    // toolchain resolves the newest release whose manifest it can read.
    dependencies: [
        .package(path: rootPath),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // Tests only: the real transport for the generated client's round trip.
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.0.0"),
    ],
    targets: [
        .target(
            name: "NetworkIndicatorOpenAPI",
            dependencies: [
                .product(name: "NetworkIndicator", package: rootPackage),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NetworkIndicatorOpenAPITests",
            dependencies: [
                "NetworkIndicatorOpenAPI",
                .product(name: "NetworkIndicator", package: rootPackage),
                .product(name: "NetworkIndicatorTesting", package: rootPackage),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
