// swift-tools-version:6.1
//
// Benchmarks for NetworkIndicator, kept in their own package so that the library itself has no
// dependency on package-benchmark. Run from this folder:
//
//     swift package benchmark
//
// See README.md beside this file.
import PackageDescription

let package = Package(
    name: "NetworkIndicatorBenchmarks",
    platforms: [
        .macOS(.v13),
        .iOS(.v16),
    ],
    dependencies: [
        .package(name: "NetworkIndicator", path: ".."),
        // The openapi middleware's benchmark (section 8) only; its runtime and HTTP types are
        // named so that the benchmark can import them.
        .package(path: "../Integrations/NetworkIndicatorOpenAPI"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(
            url: "https://github.com/ordo-one/package-benchmark",
            from: "1.38.1",
            traits: ["MallocInterposer"]
        ),
    ],
    targets: [
        // Shared by the two executables below: the package's one lock box (`ReferenceLockedValue`),
        // the token class, and the reference implementations the library is compared with, so
        // that the benchmark suite and the profiling executable measure the same references.
        .target(
            name: "BenchmarkSupport",
            path: "Shared",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "NetworkIndicatorBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "NetworkIndicator", package: "NetworkIndicator"),
                .product(name: "NetworkIndicatorTesting", package: "NetworkIndicator"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/NetworkIndicatorBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "package-benchmark")
            ]
        ),
        // Section 8: one request through the openapi middleware over an in-memory transport,
        // beside the bare transport. Its own target, so that the rest of the suite builds and
        // runs without swift-openapi-runtime.
        .executableTarget(
            name: "NetworkIndicatorOpenAPIBenchmarks",
            dependencies: [
                .product(name: "NetworkIndicator", package: "NetworkIndicator"),
                .product(name: "NetworkIndicatorTesting", package: "NetworkIndicator"),
                .product(name: "NetworkIndicatorOpenAPI", package: "NetworkIndicatorOpenAPI"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/NetworkIndicatorOpenAPIBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "package-benchmark")
            ]
        ),
        // Not a benchmark (its folder is not under Benchmarks/): a plain executable that loops one
        // scenario, for valgrind --tool=callgrind and perf. See README.md, "Profiling".
        .executableTarget(
            name: "NetworkIndicatorProfile",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "NetworkIndicator", package: "NetworkIndicator"),
                .product(name: "NetworkIndicatorTesting", package: "NetworkIndicator"),
            ],
            path: "Profiling/NetworkIndicatorProfile",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Not a benchmark either: a probe of swift-corelibs-foundation's cancel of a load as it
        // completes, run by hand. See README.md, "Probes".
        .executableTarget(
            name: "FoundationCancelRace",
            path: "Probes/FoundationCancelRace",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
