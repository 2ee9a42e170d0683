import Benchmark
import Foundation
import NetworkIndicator
import NetworkIndicatorTesting

// Issue 38: what a group's begin+finish costs (the openapi middleware makes one group per
// request). What they measure and the numbers are in ../../README.md, "Byte sequences and groups
// (issues 36, 38)". The byte-sequence rows of that section measured `bytes(for:tracking:)`'s
// iterator, removed with the helper in issue 45.

func registerHandedOffAndGroupBenchmarks() {
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
