import Benchmark
import Foundation
@_spi(Benchmarks) import NetworkIndicator
import NetworkIndicatorTesting

// Issue 36: the per-byte cost of the iterator under `bytes(for:tracking:)`, and issue 38: what a
// group's begin+finish costs (the openapi middleware makes one group per request). What they
// measure and the numbers are in ../../README.md, "Byte sequences and groups (issues 36, 38)".

/// Bytes served from memory without suspending, as `URLSession.AsyncBytes` serves the bytes it
/// has buffered: the case where a wrapper's per-element cost shows most.
struct BufferedBytes: AsyncSequence, Sendable {
    typealias Element = UInt8

    let bytes: [UInt8]

    func makeAsyncIterator() -> Iterator {
        Iterator(bytes: bytes)
    }

    struct Iterator: AsyncIteratorProtocol {
        let bytes: [UInt8]
        var index = 0

        mutating func next() async -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }
    }
}

func registerHandedOffAndGroupBenchmarks() {
    // Each iteration reads a million bytes; the scaling factor of a thousand makes the reported
    // time that of 1 000 bytes (a byte's is under the harness's resolution of 1 ns).
    let perByte = Benchmark.Configuration(scalingFactor: .kilo, maxDuration: .seconds(2), maxIterations: 200)
    let million = BufferedBytes(bytes: [UInt8](repeating: 7, count: 1_000_000))

    Benchmark("7 Bytes: plain loop over buffered bytes, per 1 000 bytes", configuration: perByte) { benchmark in
        var sum = 0
        for await byte in million {
            sum &+= Int(byte)
        }
        blackHole(sum)
    }

    Benchmark("7 Bytes: the handed-off activity iterator over the same, per 1 000 bytes", configuration: perByte) {
        benchmark in
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        var iterator = HandedOffActivityBenchmarkIterator(
            base: million.makeAsyncIterator(),
            manager: manager,
            label: "bytes"
        )
        var sum = 0
        while let byte = try await iterator.next() {
            sum &+= Int(byte)
        }
        blackHole(sum)
    }

    // Issue 38: a group's begin+finish, beside `1 Explicit begin+finish, same token, manual
    // scheduler` (a token of the caller's) and `2 Opaque begin+release, manual scheduler`.
    Benchmark("7 Group operationStarted+operationFinished, manual scheduler") { benchmark in
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let group = NetworkActivityGroup(manager: manager, label: "group")
        for _ in benchmark.scaledIterations {
            group.operationStarted()
            group.operationFinished()
        }
        blackHole(group)
    }

    // What the middleware does per request: a new group with a handler, one operation, release.
    Benchmark("7 Group made, handler set, started, finished, released, manual scheduler") { benchmark in
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        for _ in benchmark.scaledIterations {
            let group = NetworkActivityGroup(manager: manager, label: "getGreeting")
            group.cancellationHandler = {}
            group.operationStarted()
            group.operationFinished()
        }
    }
}
