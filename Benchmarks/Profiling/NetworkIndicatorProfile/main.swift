// A small executable for profilers (valgrind --tool=callgrind, perf): runs one scenario of the
// benchmark suite in a loop, without the benchmark harness or its malloc interposer.
//
//     swift build -c release --product NetworkIndicatorProfile
//     valgrind --tool=callgrind .build/release/NetworkIndicatorProfile explicit 100000
//
// Scenarios: explicit, explicit-main, opaque, push-pop, counter, sweep-live, sweep-dead, costs.
import Dispatch
import Foundation
import NetworkIndicator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class Token: Sendable {}

/// A counter behind a heap-allocated pthread mutex (the benchmarks' reference (a), inlined here so
/// that this tool depends on nothing but the library).
final class Counter: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
        return lock
    }()
    private var count = 0

    func push() {
        pthread_mutex_lock(lock)
        count += 1
        pthread_mutex_unlock(lock)
    }

    func pop() {
        pthread_mutex_lock(lock)
        if count > 0 { count -= 1 }
        pthread_mutex_unlock(lock)
    }
}

let arguments = CommandLine.arguments
let scenario = arguments.count > 1 ? arguments[1] : "explicit"
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000

@MainActor
func run() {
    let start = DispatchTime.now().uptimeNanoseconds
    var operations = iterations
    switch scenario {
    case "explicit", "explicit-main":
        let manager =
            scenario == "explicit"
            ? NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler()) : NetworkIndicatorManager()
        let token = Token()
        for _ in 0..<iterations {
            manager.beganNetworkTask(withToken: token)
            manager.finishedNetworkTask(forToken: token)
        }
    case "opaque":
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        for _ in 0..<iterations {
            let token = manager.beganNetworkTask()
            withExtendedLifetime(token) {}
        }
    case "push-pop":
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        for _ in 0..<iterations {
            manager.pushNetworkActivity()
            manager.popNetworkActivity()
        }
    case "counter":
        let counter = Counter()
        for _ in 0..<iterations {
            counter.push()
            counter.pop()
        }
    case "sweep-live", "sweep-dead":
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        var tokens = (0..<iterations).map { _ in Token() }
        for token in tokens { manager.beganNetworkTask(withToken: token) }
        scheduler.runPendingWork()
        if scenario == "sweep-dead" { tokens.removeAll() }
        let sweepStart = DispatchTime.now().uptimeNanoseconds
        scheduler.advance(by: manager.completionCheckInterval)
        let sweep = DispatchTime.now().uptimeNanoseconds - sweepStart
        print("one sweep over \(iterations) tokens: \(sweep) ns, \(Double(sweep) / Double(iterations)) ns/token")
        operations = 1
        withExtendedLifetime(tokens) {}
    case "costs":
        runCosts(iterations: iterations)
        return
    default:
        print("unknown scenario \(scenario)")
        exit(2)
    }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    print(
        "\(scenario): \(iterations) iterations, \(Double(elapsed) / Double(max(operations, 1))) ns per iteration (whole run)"
    )
}

MainActor.assumeIsolated { run() }
