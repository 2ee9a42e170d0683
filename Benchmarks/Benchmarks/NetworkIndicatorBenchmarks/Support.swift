import Benchmark
import BenchmarkSupport
import Dispatch
import Foundation
import NetworkIndicator

// `Token`, the lock box `ReferenceLockedValue` and the reference implementations live in the
// package's `BenchmarkSupport` target (`Shared/`), shared with the profiling executable.

/// Holds a fixture between a benchmark's `setup` and `teardown`, so that large fixtures (a
/// million tokens) are released when their benchmark ends rather than when the process does.
final class FixtureBox<Fixture>: @unchecked Sendable {
    private let storage = ReferenceLockedValue<Fixture?>(nil)

    var value: Fixture {
        guard let value = storage.withLock({ $0 }) else {
            fatalError("fixture used outside its benchmark's setup/teardown")
        }
        return value
    }

    func set(_ value: Fixture?) {
        // Release the old fixture outside the lock.
        let old = storage.withLock { stored in
            defer { stored = value }
            return stored
        }
        _ = old
    }
}

/// Lets a `@Sendable` main-actor closure use the benchmark handle. The harness waits for the
/// closure to finish before it touches the handle again, so the access is never concurrent.
struct UncheckedBenchmark: @unchecked Sendable {
    let benchmark: Benchmark
}

/// Runs `body` on one extra thread and waits for it.
func runOnBackgroundThread(_ body: @escaping @Sendable () -> Void) {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        finished.signal()
    }
    thread.start()
    finished.wait()
}

/// Runs `body(0)` and `body(1)` on two new threads at the same time and returns when both are
/// done. The threads are started and parked at a barrier before `start` runs (so thread creation
/// stays outside the measured region); `start` then releases them.
/// (`DispatchQueue.concurrentPerform` is not used: with two iterations it sometimes runs both on
/// the calling thread, one after the other, which measures no contention at all.)
func runOnTwoThreads(start: () -> Void, _ body: @escaping @Sendable (Int) -> Void) {
    let barrier = ReferenceLockedValue((ready: 0, go: false))
    let finished = DispatchSemaphore(value: 0)
    for index in 0..<2 {
        let thread = Thread {
            barrier.withLock { $0.ready += 1 }
            while !barrier.withLock({ $0.go }) { sched_yield() }
            body(index)
            finished.signal()
        }
        thread.start()
    }
    while barrier.withLock({ $0.ready }) < 2 { sched_yield() }
    start()
    barrier.withLock { $0.go = true }
    finished.wait()
    finished.wait()
}

/// A monotonic clock reading in nanoseconds.
@inline(__always)
func nanosecondsNow() -> UInt64 {
    DispatchTime.now().uptimeNanoseconds
}

/// The production scheduler, counting the main-queue hops the manager asks for.
final class CountingMainQueueScheduler: NetworkIndicatorScheduler {
    private let base = MainQueueScheduler()
    private let enqueued = ReferenceLockedValue(0)

    var enqueuedWorkCount: Int { enqueued.withLock { $0 } }

    var now: TimeInterval { base.now }

    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        enqueued.withLock { $0 += 1 }
        base.enqueue(work)
    }

    func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        base.schedule(after: delay, repeating: interval, leeway: leeway, work)
    }
}

enum CustomMetric {
    /// Picoseconds of sweep time per token (1 ns = 1000 ps), measured around the one sweep.
    static let sweepPicosecondsPerToken = BenchmarkMetric.custom(
        "Sweep time per token (ps)",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    /// Main-queue hops requested (scheduler enqueues) during 100_000 begin+finish pairs.
    static let hopsPer100kPairs = BenchmarkMetric.custom(
        "Main-queue hops per 100k pairs",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    /// Highest number of hops enqueued and not yet run seen at any sample.
    static let maxPendingHops = BenchmarkMetric.custom(
        "Max pending hops",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    /// Highest `pendingWorkCount` seen (hops plus the sweep and policy timers).
    static let maxPendingWork = BenchmarkMetric.custom(
        "Max pendingWorkCount (hops + timers)",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    /// Main-queue hops enqueued during one iteration of 1000 begin+finish pairs.
    static let hopsPer1000Pairs = BenchmarkMetric.custom(
        "Main-queue hops per 1000 pairs",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    /// How many times the main actor ran `runPendingWork()` during the iteration.
    static let drains = BenchmarkMetric.custom(
        "Main-actor drains",
        polarity: .prefersLarger,
        useScalingFactor: false
    )
}
