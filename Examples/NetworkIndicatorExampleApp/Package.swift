// swift-tools-version:6.0
// The example app as an app package (the format of Swift Playgrounds' app projects), which
// Xcode 16 or later opens as an iOS app: open this folder in Xcode, pick a simulator, Run. See
// README.md here. `AppleProductTypes` exists only in Xcode and Swift Playgrounds, so this
// manifest is not evaluated on Linux; `.ci/apple-sdk-check.sh` type-checks the app's sources.
import AppleProductTypes
import PackageDescription

let package = Package(
    name: "NetworkIndicatorExampleApp",
    platforms: [
        .iOS("17.0")
    ],
    products: [
        .iOSApplication(
            name: "NetworkIndicator Example",
            targets: ["NetworkIndicatorExampleApp"],
            bundleIdentifier: "org.networkindicator.ExampleApp",
            displayVersion: "1.0",
            bundleVersion: "1",
            appIcon: .placeholder(icon: .cloud),
            accentColor: .presetColor(.blue),
            supportedDeviceFamilies: [
                .pad,
                .phone,
            ],
            supportedInterfaceOrientations: [
                .portrait,
                .landscapeRight,
                .landscapeLeft,
                .portraitUpsideDown(.when(deviceFamilies: [.pad])),
            ]
        )
    ],
    dependencies: [
        // The repository's root: this package uses the library as it is in the working copy.
        .package(name: "NetworkIndicator", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "NetworkIndicatorExampleApp",
            dependencies: [
                .product(name: "NetworkIndicator", package: "NetworkIndicator"),
                .product(name: "NetworkIndicatorUI", package: "NetworkIndicator"),
            ],
            path: ".",
            exclude: ["README.md"]
        )
    ]
)
