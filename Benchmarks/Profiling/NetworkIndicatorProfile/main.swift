// A small executable for profilers (valgrind --tool=callgrind, perf): runs one scenario of the
// benchmark suite in a loop, without the benchmark harness or its malloc interposer.
//
//     swift build -c release --product NetworkIndicatorProfile
//     valgrind --tool=callgrind .build/release/NetworkIndicatorProfile explicit 100000
//
// Scenarios: explicit, explicit-main, explicit-watched, explicit-child, explicit-grandchild, explicit-crowded (10 000
// other live tokens), opaque, opaque-main, push-pop, counter, floor, obvious, wrapper-dictionary, id-set,
// sweep-live, sweep-dead, scopes and scopes-watched (N scopes, one tree), live-feeds, costs, ratios,
// sequence, progress-cost (ProgressCost.swift). `ratios`
// prints the library beside the references in one table (see Ratios.swift):
//
//     .build/release/NetworkIndicatorProfile ratios            # 200 000 iterations per run
import BenchmarkSupport
import Dispatch
import Foundation
import NetworkIndicator
import NetworkIndicatorTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `Token`, the lock box and the reference implementations (the locked counter among them) come
// from the package's BenchmarkSupport target (`Shared/`), shared with the benchmark suite.

let arguments = CommandLine.arguments
let scenario = arguments.count > 1 ? arguments[1] : "explicit"
let defaultIterations = scenario == "ratios" ? 200_000 : 100_000
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? defaultIterations : defaultIterations

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
    case "explicit-watched":
        // An explicit pair while an output watches tasks (NetworkActivityTaskEventOutput): each
        // pair records a begin and an end; the hops that deliver them never run here.
        let manager = NetworkIndicatorManager()
        let watcher = TaskWatcher()
        manager.addOutput(watcher)
        let token = Token()
        for _ in 0..<iterations {
            manager.beganNetworkTask(withToken: token)
            manager.finishedNetworkTask(forToken: token)
        }
        withExtendedLifetime(watcher) {}
    case "explicit-child", "explicit-grandchild":
        let root = NetworkIndicatorManager()
        let child = NetworkIndicatorManager(parent: root)
        let grandchild = NetworkIndicatorManager(parent: child)
        let manager = scenario == "explicit-child" ? child : grandchild
        let token = Token()
        for _ in 0..<iterations {
            manager.beganNetworkTask(withToken: token)
            manager.finishedNetworkTask(forToken: token)
        }
    case "explicit-crowded":
        let manager = NetworkIndicatorManager()
        let others = (0..<10_000).map { _ in Token() }
        for other in others { manager.beganNetworkTask(withToken: other) }
        let token = Token()
        for _ in 0..<iterations {
            manager.beganNetworkTask(withToken: token)
            manager.finishedNetworkTask(forToken: token)
        }
        withExtendedLifetime(others) {}
    case "opaque", "opaque-main":
        let manager =
            scenario == "opaque"
            ? NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler()) : NetworkIndicatorManager()
        for _ in 0..<iterations {
            // Released at once (as in `ratios`); `withExtendedLifetime` here cost a main-executor
            // check per iteration (~220 instructions under callgrind).
            _ = manager.beganNetworkTask()
        }
    case "push-pop":
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        for _ in 0..<iterations {
            manager.pushNetworkActivity()
            manager.popNetworkActivity()
        }
    case "counter":
        let counter = ReferenceLockedCounter()
        for _ in 0..<iterations {
            counter.push()
            counter.pop()
        }
    case "floor":
        let floor = WeakReferenceFloor()
        let token = Token()
        for _ in 0..<iterations {
            floor.begin(token)
            floor.finish(token)
        }
    case "obvious":
        let dictionary = ObviousWeakDictionary()
        let token = Token()
        for _ in 0..<iterations {
            dictionary.begin(token)
            dictionary.finish(token)
        }
    case "wrapper-dictionary":
        let dictionary = WrapperWeakDictionary()
        let token = Token()
        for _ in 0..<iterations {
            dictionary.begin(token)
            dictionary.finish(token)
        }
    case "id-set":
        let identifierSet = AlamofireStyleIDSet()
        for _ in 0..<iterations {
            identifierSet.finish(identifierSet.begin())
        }
    case "sweep-live", "sweep-dead":
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        var tokens = (0..<iterations).map { _ in Token() }
        for token in tokens { manager.beganNetworkTask(withToken: token) }
        scheduler.runPendingWork()
        if scenario == "sweep-dead" { tokens.removeAll() }
        let sweepStart = DispatchTime.now().uptimeNanoseconds
        scheduler.advance(by: manager.settings.completionCheckInterval)
        let sweep = DispatchTime.now().uptimeNanoseconds - sweepStart
        print("one sweep over \(iterations) tokens: \(sweep) ns, \(Double(sweep) / Double(iterations)) ns/token")
        operations = 1
        withExtendedLifetime(tokens) {}
    case "scopes", "scopes-watched":
        // N scopes of one tree (a server's, one per request), each with a caller's token: the one
        // hop that shows them all (each lists its sweep deadline), the sweep's one firing, a
        // finish and its hop in each, then each scope's removal.
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        let watcher = TaskWatcher()
        if scenario == "scopes-watched" { root.addOutput(watcher) }
        var scopes = (0..<iterations).map { _ in NetworkIndicatorManager(parent: root) }
        let tokens = scopes.map { scope in
            let token = Token()
            scope.beganNetworkTask(withToken: token)
            return token
        }
        func microseconds(_ body: () -> Void) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1000
        }
        let hop = microseconds { scheduler.runPendingWork() }
        let sweep = microseconds { scheduler.advance(by: root.settings.completionCheckInterval) }
        let finishes = microseconds {
            for (scope, token) in zip(scopes, tokens) {
                scope.finishedNetworkTask(forToken: token)
                scheduler.runPendingWork()
            }
        }
        let removals = microseconds { scopes.removeAll() }
        let each = Double(iterations)
        print(
            "\(iterations) scopes (us): one hop \(Int(hop)), one sweep \(Int(sweep)), a finish and its hop "
                + "\(String(format: "%.2f", finishes / each)), a removal \(String(format: "%.2f", removals / each))"
        )
        operations = 1
        withExtendedLifetime((tokens, watcher)) {}
    case "live-feeds":
        // N live feeds, each a group's operation that stops counting at its headers and stays
        // within a cancel's reach, all held: the cost of a feed's start and stop, N at once.
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let feeds = (0..<iterations).map { _ in NetworkActivityGroup(manager: manager, label: "feed") }
        let feedsStart = DispatchTime.now().uptimeNanoseconds
        for feed in feeds {
            feed.operationStarted()
            feed.operationStoppedCounting()
        }
        let spent = DispatchTime.now().uptimeNanoseconds - feedsStart
        print("\(iterations) live feeds: \(Double(spent) / Double(iterations)) ns a feed's start and stop")
        operations = 1
        withExtendedLifetime(feeds) {}
    case "costs":
        runCosts(iterations: iterations)
        return
    case "ratios":
        runRatios(iterations: iterations)
        return
    case "sequence":
        runSequenceOverhead(elements: iterations)
        return
    case "progress-cost":
        runProgressCost(requests: min(iterations, 20_000))
        return
    case "progress-plain", "progress-begin", "progress-track", "task-alone":
        // NetworkIndicatorProfile progress-begin REQUESTS OPEN [listening]
        let open = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0
        runProgressScenario(scenario, requests: iterations, open: open, listening: arguments.count > 4)
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

/// Watches tasks and drops what it hears (`explicit-watched`).
@MainActor
final class TaskWatcher: NetworkActivityTaskEventOutput {
    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
    func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) {}
}
