import Benchmark
import BenchmarkSupport
import Dispatch
import Foundation
import NetworkIndicator
import NetworkIndicatorTesting

// Benchmarks for issue 5. What each one measures, and how to read it, is in ../../README.md.
//
// Naming: the number in front is the section of the README's results table. Time metrics of
// benchmarks with a scaling factor are per operation (one operation = one begin+finish pair, one
// push+pop, or one begin+release), because every iteration runs `scalingFactor` operations.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 10_000
    )

    registerReferenceAndCallBenchmarks()
    registerLiveTokenScalingBenchmarks()
    registerSweepBenchmarks()
    registerMemoryBenchmarks()
    registerHopBenchmarks()
    registerHandedOffAndGroupBenchmarks()
}

// MARK: - 1, 2: cost per call

/// A manager on the production scheduler (main dispatch queue), as `NetworkIndicatorManager()`
/// gives it, or on the manual scheduler (hops are requested but never run).
private func makeManager(manual: Bool) -> NetworkIndicatorManager {
    manual ? NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler()) : NetworkIndicatorManager()
}

/// Operations per thread in the two-thread benchmarks: 2 × 500_000 = one `.mega` of operations.
private let operationsPerThread = 500_000

/// Each iteration runs one `.mega` of operations; the library's iterations take about a second
/// here, so they get a longer budget to collect a few samples.
private func twoThreadConfiguration(seconds: Int) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .cpuTotal],
        warmupIterations: 1,
        scalingFactor: .mega,
        maxDuration: .seconds(seconds),
        maxIterations: 40
    )
}

private func registerReferenceAndCallBenchmarks() {
    // (a) The floor of a counter.
    Benchmark("0 Reference: locked counter push+pop") { benchmark in
        let counter = ReferenceLockedCounter()
        for _ in benchmark.scaledIterations {
            counter.push()
            counter.pop()
        }
        blackHole(counter.count)
    }

    Benchmark("0 Reference: locked counter push+pop, 2 threads", configuration: twoThreadConfiguration(seconds: 2)) {
        benchmark in
        let counter = ReferenceLockedCounter()
        runOnTwoThreads(start: benchmark.startMeasurement) { _ in
            for _ in 0..<operationsPerThread {
                counter.push()
                counter.pop()
            }
        }
        benchmark.stopMeasurement()
        if counter.count != 0 { benchmark.error("counter unbalanced: \(counter.count)") }
    }

    // (c) The weak-reference floor: the counter plus one weak reference stored on begin, loaded
    // and cleared on finish. One long-lived token, as in section 1's "same token" benchmarks.
    Benchmark("0 Reference: weak-reference floor (counter + weak store, load, clear), same token") { benchmark in
        let floor = WeakReferenceFloor()
        let token = Token()
        for _ in benchmark.scaledIterations {
            floor.begin(token)
            floor.finish(token)
        }
        blackHole(floor.count)
        blackHole(token)
    }

    // (d) The obvious `[ObjectIdentifier: Entry]` + `NSLock` design, same long-lived token: the
    // yardstick of the library's explicit begin+finish (`NetworkIndicatorProfile ratios`).
    Benchmark("0 Reference: obvious weak dictionary begin+finish, same token") { benchmark in
        let dictionary = ObviousWeakDictionary()
        let token = Token()
        for _ in benchmark.scaledIterations {
            dictionary.begin(token)
            dictionary.finish(token)
        }
        if dictionary.trackedTokenCount != 0 { benchmark.error("unbalanced: \(dictionary.trackedTokenCount)") }
        blackHole(token)
    }

    // (e) A `Set<String>` of fresh UUID strings behind an `NSRecursiveLock`.
    Benchmark("0 Reference: Alamofire-style UUID set begin+finish") { benchmark in
        let set = AlamofireStyleIDSet()
        for _ in benchmark.scaledIterations {
            let identifier = set.begin()
            set.finish(identifier)
        }
        if set.count != 0 { benchmark.error("unbalanced: \(set.count)") }
    }

    // 1. Explicit begin + finish.
    for manual in [false, true] {
        let scheduler = manual ? "manual scheduler" : "main-queue scheduler"
        Benchmark("1 Explicit begin+finish, same token, \(scheduler)") { benchmark, manager in
            let token = Token()
            for _ in benchmark.scaledIterations {
                manager.beganNetworkTask(withToken: token)
                manager.finishedNetworkTask(forToken: token)
            }
            blackHole(token)
        } setup: {
            makeManager(manual: manual)
        }
    }

    // Same as the main-queue case above, counting hops: how often the drained main queue makes
    // a begin or finish pay for DispatchQueue.main.async.
    Benchmark(
        "1 Explicit begin+finish, same token, main-queue scheduler counting hops",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, CustomMetric.hopsPer1000Pairs])
    ) { (benchmark: Benchmark, fixture: (CountingMainQueueScheduler, NetworkIndicatorManager)) in
        let (scheduler, manager) = fixture
        let token = Token()
        let before = scheduler.enqueuedWorkCount
        for _ in benchmark.scaledIterations {
            manager.beganNetworkTask(withToken: token)
            manager.finishedNetworkTask(forToken: token)
        }
        benchmark.measurement(CustomMetric.hopsPer1000Pairs, scheduler.enqueuedWorkCount - before)
    } setup: { () -> (CountingMainQueueScheduler, NetworkIndicatorManager) in
        let scheduler = CountingMainQueueScheduler()
        return (scheduler, NetworkIndicatorManager(scheduler: scheduler))
    }

    Benchmark("1 Explicit begin+finish, token from a pool of 64, main-queue scheduler") { benchmark, fixture in
        let (manager, pool) = fixture
        var next = 0
        for _ in benchmark.scaledIterations {
            let token = pool[next]
            next = (next + 1) & 63
            manager.beganNetworkTask(withToken: token)
            manager.finishedNetworkTask(forToken: token)
        }
    } setup: {
        (makeManager(manual: false), (0..<64).map { _ in Token() })
    }

    Benchmark(
        "1 Explicit begin+finish, 2 threads, main-queue scheduler",
        configuration: twoThreadConfiguration(seconds: 6)
    ) {
        benchmark,
        manager in
        let tokens = [Token(), Token()]
        runOnTwoThreads(start: benchmark.startMeasurement) { index in
            let token = tokens[index]
            for _ in 0..<operationsPerThread {
                manager.beganNetworkTask(withToken: token)
                manager.finishedNetworkTask(forToken: token)
            }
        }
        benchmark.stopMeasurement()
        if manager.activeTaskCount != 0 { benchmark.error("unbalanced: \(manager.activeTaskCount)") }
    } setup: {
        makeManager(manual: false)
    }

    Benchmark("1 Push+pop (library counter API), main-queue scheduler") { benchmark, manager in
        for _ in benchmark.scaledIterations {
            manager.pushNetworkActivity()
            manager.popNetworkActivity()
        }
    } setup: {
        makeManager(manual: false)
    }

    // 2. Opaque token: begin, then let the token go.
    for manual in [false, true] {
        let scheduler = manual ? "manual scheduler" : "main-queue scheduler"
        Benchmark("2 Opaque begin+release, \(scheduler)") { benchmark, manager in
            for _ in benchmark.scaledIterations {
                let token = manager.beganNetworkTask()
                blackHole(token)
            }
        } setup: {
            makeManager(manual: manual)
        }
    }
}

// MARK: - 3: begin+finish with N other live tokens tracked

private func registerLiveTokenScalingBenchmarks() {
    for others in [0, 1, 1_000, 10_000, 100_000] {
        Benchmark("3 Explicit begin+finish, \(others) other live tokens, manual scheduler") {
            (benchmark: Benchmark, fixture: (NetworkIndicatorManager, [Token])) in
            let (manager, _) = fixture
            let token = Token()
            for _ in benchmark.scaledIterations {
                manager.beganNetworkTask(withToken: token)
                manager.finishedNetworkTask(forToken: token)
            }
            blackHole(token)
        } setup: { () -> (NetworkIndicatorManager, [Token]) in
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            let live = (0..<others).map { _ in Token() }
            for token in live { manager.beganNetworkTask(withToken: token) }
            return (manager, live)
        }
    }

    // The article's tracker is O(n) per begin and per finish: at 10_000 and 100_000 other tokens
    // one begin+finish takes tens to hundreds of microseconds, so those run one pair per
    // iteration (scaling factor one) for a bounded number of iterations.
    for others in [0, 1, 1_000, 10_000, 100_000] {
        let large = others >= 10_000
        Benchmark(
            "3 Article begin+finish, \(others) other live tokens",
            configuration: .init(
                scalingFactor: large ? .one : .kilo,
                maxDuration: .seconds(1),
                maxIterations: others >= 100_000 ? 200 : 10_000
            )
        ) { (benchmark: Benchmark, fixture: (ArticleNetworkIndicator, [Token])) in
            let (article, _) = fixture
            let token = Token()
            for _ in benchmark.scaledIterations {
                article.beganNetworkTask(withToken: token)
                article.finishedNetworkTask(forToken: token)
            }
            blackHole(token)
        } setup: { () -> (ArticleNetworkIndicator, [Token]) in
            let article = ArticleNetworkIndicator()
            let live = (0..<others).map { _ in Token() }
            article.seed(withLiveTokens: live)
            return (article, live)
        }
    }
}

// MARK: - 4: one sweep over N live or N dead tokens

/// A manager on the manual scheduler with `count` live tokens tracked and its sweep timer running.
@MainActor
final class LiveSweepFixture: Sendable {
    let scheduler = ManualNetworkIndicatorScheduler()
    let manager: NetworkIndicatorManager
    let tokens: [Token]
    let interval: TimeInterval

    init(count: Int) {
        manager = NetworkIndicatorManager(scheduler: scheduler)
        tokens = (0..<count).map { _ in Token() }
        for token in tokens { manager.beganNetworkTask(withToken: token) }
        // The hop: reconcile starts the repeating sweep timer.
        scheduler.runPendingWork()
        interval = manager.settings.completionCheckInterval
    }
}

private func sweepConfiguration(count: Int) -> Benchmark.Configuration {
    .init(
        metrics: [.wallClock, .mallocCountTotal, CustomMetric.sweepPicosecondsPerToken],
        warmupIterations: count >= 1_000_000 ? 1 : 3,
        scalingFactor: .one,
        maxDuration: .seconds(count >= 1_000_000 ? 10 : 2),
        maxIterations: count >= 1_000_000 ? 3 : count >= 100_000 ? 100 : 2_000
    )
}

private func registerSweepBenchmarks() {
    for count in [1_000, 100_000, 1_000_000] {
        let box = FixtureBox<LiveSweepFixture>()
        Benchmark("4 Sweep, \(count) live tokens", configuration: sweepConfiguration(count: count)) { benchmark in
            let fixture = box.value
            let handle = UncheckedBenchmark(benchmark: benchmark)
            await MainActor.run {
                let before = fixture.manager.activeTaskCount
                handle.benchmark.startMeasurement()
                let start = nanosecondsNow()
                fixture.scheduler.advance(by: fixture.interval)  // exactly one sweep
                let elapsed = nanosecondsNow() - start
                handle.benchmark.stopMeasurement()
                handle.benchmark.measurement(
                    CustomMetric.sweepPicosecondsPerToken,
                    Int(elapsed * 1_000 / UInt64(count))
                )
                if fixture.manager.activeTaskCount != before || before != count {
                    handle.benchmark.error("live tokens lost: \(before) -> \(fixture.manager.activeTaskCount)")
                }
            }
        } setup: {
            let fixture = await MainActor.run { LiveSweepFixture(count: count) }
            box.set(fixture)
        } teardown: {
            box.set(nil)
        }
    }

    for count in [1_000, 100_000, 1_000_000] {
        let box = FixtureBox<(ManualNetworkIndicatorScheduler, NetworkIndicatorManager)>()
        Benchmark("4 Sweep, \(count) dead tokens", configuration: sweepConfiguration(count: count)) { benchmark in
            let (scheduler, manager) = box.value
            let handle = UncheckedBenchmark(benchmark: benchmark)
            await MainActor.run {
                // Unmeasured: begin `count` tokens, start the sweep timer, let them all die.
                var tokens = (0..<count).map { _ in Token() }
                for token in tokens { manager.beganNetworkTask(withToken: token) }
                scheduler.runPendingWork()
                tokens.removeAll()
                let before = manager.activeTaskCount
                handle.benchmark.startMeasurement()
                let start = nanosecondsNow()
                scheduler.advance(by: manager.settings.completionCheckInterval)  // exactly one sweep
                let elapsed = nanosecondsNow() - start
                handle.benchmark.stopMeasurement()
                handle.benchmark.measurement(
                    CustomMetric.sweepPicosecondsPerToken,
                    Int(elapsed * 1_000 / UInt64(count))
                )
                if before != count || manager.activeTaskCount != 0 {
                    handle.benchmark.error("sweep left \(manager.activeTaskCount) of \(before) tasks")
                }
            }
        } setup: {
            let scheduler = ManualNetworkIndicatorScheduler()
            box.set((scheduler, NetworkIndicatorManager(scheduler: scheduler)))
        } teardown: {
            box.set(nil)
        }
    }
}

// MARK: - 5: memory per tracked token

private func registerMemoryBenchmarks() {
    // The scaling factor equals the number of tokens, so the malloc metrics print per token.
    // Only the begin calls are measured; the tokens exist before and are released after.
    for (count, scale) in [(1_000, BenchmarkScalingFactor.kilo), (1_000_000, .mega)] {
        Benchmark(
            "5 Memory: begin \(count) tokens (per-token bytes)",
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount, .memoryLeakedBytes, .mallocFreeDelta],
                warmupIterations: 1,
                scalingFactor: scale,
                maxDuration: .seconds(count >= 1_000_000 ? 10 : 2),
                maxIterations: count >= 1_000_000 ? 3 : 200
            )
        ) { benchmark in
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            let tokens = (0..<count).map { _ in Token() }
            benchmark.startMeasurement()
            for token in tokens { manager.beganNetworkTask(withToken: token) }
            benchmark.stopMeasurement()
            if manager.activeTaskCount != count { benchmark.error("count \(manager.activeTaskCount)") }
            blackHole(tokens)
        }
    }

    // Part of the above that is not the registry's: the first weak reference to an object gives
    // it a side table (a heap block holding its reference counts). Measured alone here.
    Benchmark(
        "5 Memory (breakdown): first weak reference to 1000 tokens (side tables)",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .mallocBytesCount, .memoryLeakedBytes, .mallocFreeDelta],
            warmupIterations: 1,
            scalingFactor: .kilo,
            maxDuration: .seconds(1),
            maxIterations: 200
        )
    ) { benchmark in
        let tokens = (0..<1_000).map { _ in Token() }
        let wrappers = tokens.map { _ in WeakReferenceSlot() }
        benchmark.startMeasurement()
        for (slot, token) in zip(wrappers, tokens) { slot.value = token }
        benchmark.stopMeasurement()
        blackHole(wrappers)
        blackHole(tokens)
    }
}

/// A preallocated slot, so that only the weak reference's own cost is measured.
private final class WeakReferenceSlot {
    weak var value: AnyObject?
}

// MARK: - 6: main-queue hops

private let hopPairs = 100_000

private var hopConfiguration: Benchmark.Configuration {
    .init(
        metrics: [
            .wallClock, CustomMetric.hopsPer100kPairs, CustomMetric.maxPendingHops, CustomMetric.maxPendingWork,
            CustomMetric.drains,
        ],
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 50
    )
}

private func registerHopBenchmarks() {
    Benchmark(
        "6 Hops: 100k begin+finish pairs on a background thread, main actor never drains",
        configuration: hopConfiguration
    ) { benchmark in
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let samples = ReferenceLockedValue((maxHops: 0, maxWork: 0))
        benchmark.startMeasurement()
        runOnBackgroundThread {
            let token = Token()
            var maxHops = 0
            var maxWork = 0
            for _ in 0..<hopPairs {
                manager.beganNetworkTask(withToken: token)
                manager.finishedNetworkTask(forToken: token)
                // Nothing runs hops here, so enqueued - executed is exact.
                maxHops = max(maxHops, scheduler.enqueuedWorkCount - scheduler.executedWorkCount)
                maxWork = max(maxWork, scheduler.pendingWorkCount)
            }
            samples.withLock { $0 = (maxHops, maxWork) }
        }
        benchmark.stopMeasurement()
        let (maxHops, maxWork) = samples.withLock { $0 }
        benchmark.measurement(CustomMetric.hopsPer100kPairs, scheduler.enqueuedWorkCount)
        benchmark.measurement(CustomMetric.maxPendingHops, maxHops)
        benchmark.measurement(CustomMetric.maxPendingWork, maxWork)
        benchmark.measurement(CustomMetric.drains, 0)
    }

    Benchmark(
        "6 Hops: 100k begin+finish pairs on a background thread, main actor drains concurrently",
        configuration: hopConfiguration
    ) { benchmark in
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let done = ReferenceLockedValue(false)
        let handle = UncheckedBenchmark(benchmark: benchmark)
        benchmark.startMeasurement()
        let thread = Thread {
            let token = Token()
            for _ in 0..<hopPairs {
                manager.beganNetworkTask(withToken: token)
                manager.finishedNetworkTask(forToken: token)
            }
            done.withLock { $0 = true }
        }
        thread.start()
        let (maxHops, maxWork, drains) = await MainActor.run {
            var maxHops = 0
            var maxWork = 0
            var drains = 0
            while true {
                let finished = done.withLock { $0 }
                // Only the main actor runs hops, and it is here: enqueued - executed is exact.
                maxHops = max(maxHops, scheduler.enqueuedWorkCount - scheduler.executedWorkCount)
                maxWork = max(maxWork, scheduler.pendingWorkCount)
                scheduler.runPendingWork()
                drains += 1
                if finished { break }
            }
            return (maxHops, maxWork, drains)
        }
        handle.benchmark.stopMeasurement()
        benchmark.measurement(CustomMetric.hopsPer100kPairs, scheduler.enqueuedWorkCount)
        benchmark.measurement(CustomMetric.maxPendingHops, maxHops)
        benchmark.measurement(CustomMetric.maxPendingWork, maxWork)
        benchmark.measurement(CustomMetric.drains, drains)
    }
}
