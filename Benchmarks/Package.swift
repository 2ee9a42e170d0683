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
    ]
)
