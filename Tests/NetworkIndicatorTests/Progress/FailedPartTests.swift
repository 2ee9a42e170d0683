import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A load that fails or is cancelled leaves its batch on every async form, with the caller
/// keeping nothing: the bar never jumps forward by the bytes that never came.
@MainActor
@Suite("Failed and cancelled parts")
struct FailedPartTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    private struct Failure: Error {}

    @Test func aScopedActivityThatThrowsLeavesItsBatch() async {
        let other = manager.beganNetworkTask(progress: progress(50, of: 100))
        await #expect(throws: Failure.self) {
            try await manager.withNetworkActivity(progress: progress(20, of: 100)) { throw Failure() }
        }
        // Counted as done, it would read (100 + 50) of 200.
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(other) {}
    }

    /// The helpers' per-task progress (Apple platforms, iOS 16 and later) begins a new batch
    /// when the last one is over, as every progress form does: it is called here directly,
    /// since on Linux no helper has a task to hand it.
    @Test func aLoadWithProgressBeginsANewBatchOnceTheLastIsOver() async throws {
        var done: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(10, of: 10))
        done = nil  // over, and not yet read
        let fraction = try await CancellableLoad.run(
            in: manager,
            label: "load",
            site: .none,
            progress: NetworkActivityProgress(totalUnitCount: 10)
        ) { [manager] in await MainActor.run { manager.progressSnapshot().fractionCompleted } }
        #expect(fraction == 0, "a batch of its own, not (10 + 0) of 20")
        _ = done
    }

    @Test func aScopedActivityThatReturnsCountsAsDone() async {
        let other = manager.beganNetworkTask(progress: progress(50, of: 100))
        await manager.withNetworkActivity(progress: progress(20, of: 100)) {}
        #expect(manager.progressSnapshot().fractionCompleted == 0.75)
        withExtendedLifetime(other) {}
    }

    @Test func aCancelledScopedActivityLeavesItsBatch() async {
        let manager = manager
        let other = manager.beganNetworkTask(progress: progress(50, of: 100))
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task.detached {
            await manager.withNetworkActivity(progress: Progress(totalUnitCount: 100)) {
                enteredContinuation.yield()
                try? await Task.sleep(nanoseconds: 60_000_000_000)
            }
        }
        for await _ in entered { break }
        task.cancel()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(other) {}
    }

    @Test func aTrackedSequenceThatThrowsLeavesItsBatch() async {
        let other = manager.beganNetworkTask(progress: progress(50, of: 100))
        let (elements, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
        continuation.yield(1)
        continuation.finish(throwing: Failure())
        await #expect(throws: Failure.self) {
            for try await _ in elements.trackingNetworkActivity(in: manager, expectedElementCount: 4, weight: 100) {}
        }
        // Counted as done, it would read (100 + 50) of 200.
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(other) {}
    }

    @Test func aCancelledTrackedSequenceLeavesItsBatch() async {
        let manager = manager
        let other = manager.beganNetworkTask(progress: progress(50, of: 100))
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (elements, elementsContinuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task.detached {
            for await _ in elements.trackingNetworkActivity(in: manager, expectedElementCount: 4, weight: 100) {
                enteredContinuation.yield()
            }
        }
        elementsContinuation.yield(1)
        for await _ in entered { break }
        task.cancel()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        await task.value
        withExtendedLifetime(other) {}
    }

    @Test func aHelpersLoadThatThrowsLeavesItsBatch() async {
        let other = manager.beganNetworkTask(progress: progress(50, of: 100))
        await #expect(throws: Failure.self) {
            try await CancellableLoad<Void>.run(
                in: manager,
                label: "load",
                site: .none,
                progress: progress(20, of: 100)
            ) {
                throw Failure()
            }
        }
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(other) {}
    }

    @Test func aCancelledHelpersLoadLeavesItsBatch() async throws {
        let manager = manager
        let other = manager.beganNetworkTask(progress: progress(50, of: 100))
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let load = Task.detached {
            try await CancellableLoad<Void>.run(
                in: manager,
                label: "load",
                site: .none,
                progress: Progress(totalUnitCount: 100)
            ) {
                enteredContinuation.yield()
                try await Task.sleep(nanoseconds: 60_000_000_000)
            }
        }
        for await _ in entered { break }
        manager.cancelNetworkTasks()
        // At once: the load's own code has not seen its cancel yet.
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        await #expect(throws: URLError.self) { try await load.value }
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(other) {}
    }

    /// A failed attempt and its retry with the same plain `Progress`, which gets every unit,
    /// both off the main queue while a download keeps the batch running: the failed part still
    /// waits for a reading when the retry begins, and the retry does not take its place, as it
    /// takes an ended part's that did not fail. So the batch had a failed part, and did not end
    /// with "every unit of each part" (the overlay's bar does not fade out at 100 %).
    @Test func aRetryOffTheMainQueueLeavesTheFailedAttemptInItsBatch() async {
        let download = NetworkActivityProgress(totalUnitCount: 100)
        var other: NetworkActivityToken? = manager.beganNetworkTask(progress: download)
        let upload = progress(0, of: 100)
        let manager = self.manager
        let (started, didStart) = AsyncStream.makeStream(of: Void.self)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let worker = Task.detached {
            for attempt in 1...2 {
                do {
                    try await manager.withNetworkActivity(progress: upload) {
                        guard attempt == 1 else { return upload.completedUnitCount = 100 }
                        upload.completedUnitCount = 50
                        didStart.yield()
                        for await _ in gate {}
                        throw Failure()
                    }
                } catch {}
            }
        }
        for await _ in started { break }
        #expect(manager.progressSnapshot().fractionCompleted == 0.25, "the batch runs")
        open.finish()
        await worker.value
        download.completedUnitCount = 100
        other = nil
        #expect(manager.progressSnapshot().fractionCompleted == nil, "the batch is over")
        #expect(!manager.lastProgressBatchEndedComplete())
        withExtendedLifetime(other) {}
    }

    /// A retry loop off the main actor: the first attempt fails at 50 of 100, the second
    /// begins with the same plain `Progress`, started over. The retry is measured from 0, and
    /// the failed attempt's units never count, though the retry's scoped task may take the
    /// address the failed one's left (a new task, not a resume of the old part).
    @Test func aRetryWithTheSameProgressOffTheMainActorIsMeasuredFromZero() async {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let upload = progress(0, of: 100)
        let manager = self.manager
        let (started, didStart) = AsyncStream.makeStream(of: Void.self)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let worker = Task.detached {
            for attempt in 1...2 {
                do {
                    try await manager.withNetworkActivity(progress: upload) {
                        if attempt == 1 {
                            upload.completedUnitCount = 50
                            throw Failure()
                        }
                        upload.completedUnitCount = 0
                        didStart.yield()
                        for await _ in gate {}
                    }
                    return
                } catch {}
            }
        }
        for await _ in started { break }
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.completedUnitCount == 0, "the failed attempt's 50 units never came")
        #expect(snapshot.totalUnitCount == 200, "the retry and the other download")
        #expect(!snapshot.hasIndeterminateWork, "the retry is measured")
        open.finish()
        await worker.value
        withExtendedLifetime(other) {}
    }
}

/// A part whose failure is recorded while a begin's settle reads the parts (its task still
/// open: a cancelled scoped body records its failure at once and ends its task when the body
/// returns) keeps no batch running, so the parts after it are read as a running part's would
/// not be.
@MainActor
@Suite("Failed parts during a settle")
struct FailedPartSettleTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    /// A scoped body cancelled while a begin's settle reads the parts listed before it: the
    /// download whose size became known after the body began is read, and the batch that began
    /// at 0 s runs on. At 20 s, 20 of 200 units are done since then: the 180 left take 180 s.
    @Test func aPartFailedDuringASettleKeepsNoBatchRunning() async throws {
        let gate = GatedProgress(total: -1, completed: 0)  // of unknown size: it starts no batch
        let waiting = manager.beganNetworkTask(progress: gate)
        let failing = progress(0, of: 100)
        let started = LockedState(false)
        let manager = self.manager
        let body = Task.detached {
            try await manager.withNetworkActivity(progress: failing) {
                started.withLock { $0 = true }
                try await Task.sleep(nanoseconds: 60_000_000_000)
            }
        }
        await eventually { started.withLock { $0 } }
        let bytes = Progress.discreteProgress(totalUnitCount: -1)
        let download = manager.beganNetworkTask(progress: bytes)
        bytes.totalUnitCount = 100
        scheduler.advance(by: 10)
        // The begin's settle reads the gate first: the body is cancelled while it holds.
        gate.holdNextReading()
        let cancelled = DispatchGroup()
        DispatchQueue.global().async(group: cancelled) {
            gate.waitUntilHeld()
            body.cancel()
            gate.releaseReading()
        }
        let next = manager.beganNetworkTask(progress: progress(0, of: 100))
        cancelled.wait()
        scheduler.advance(by: 10)
        bytes.completedUnitCount = 20
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 20.0 / 200)
        #expect(snapshot.estimatedTimeRemaining == 180)
        _ = await body.result
        withExtendedLifetime((waiting, download, next)) {}
    }
}
