import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// `waitUntilIdle()`: a tool, a test or a server's shutdown waits for its network work.
@Suite("Waiting until a manager is idle")
struct WaitUntilIdleTests {
    @Test func returnsAtOnceWhenNothingIsOpen() async throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        try await manager.waitUntilIdle()
        #expect(scheduler.enqueuedWorkCount == 0, "it returned without waiting for the main queue")
    }

    @Test func returnsOnceTheLastTaskEnds() async throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        var token: NetworkActivityToken? = manager.beganNetworkTask()
        await MainActor.run { scheduler.runPendingWork() }
        let waiter = Waiter(manager)
        await waiter.waitUntilSubscribed(scheduler)
        await MainActor.run { scheduler.runPendingWork() }  // tells the waiter: one task open
        #expect(!waiter.hasReturned, "a task is still open")
        token = nil
        await MainActor.run { scheduler.runPendingWork() }
        try await waiter.task.value
        #expect(waiter.countWhenReturned == 0)
        _ = token
    }

    @Test func waitsForTheManagersScopesButNotItsParent() async throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let screen = NetworkIndicatorManager(parent: app, label: "screen")
        let appWide = app.beganNetworkTask()
        var onScreen: NetworkActivityToken? = screen.beganNetworkTask()
        await MainActor.run { scheduler.runPendingWork() }
        try await confirmation("the screen's wait ends though the app still has a task") { ended in
            let waiter = Waiter(app)
            await waiter.waitUntilSubscribed(scheduler)
            onScreen = nil
            await MainActor.run { scheduler.runPendingWork() }
            try await screen.waitUntilIdle()
            ended()
            #expect(!waiter.hasReturned, "the app waits for its own task")
            waiter.task.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.task.value }
        }
        _ = (appWide, onScreen)
    }

    @Test func cancellingTheWaitingTaskThrows() async throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let token = manager.beganNetworkTask()
        let waiter = Waiter(manager)
        await waiter.waitUntilSubscribed(scheduler)
        waiter.task.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.task.value }
        #expect(manager.activeTaskCount == 1)
        withExtendedLifetime(token) {}
    }

    @Test func aCancelledTaskWaitsForNothingIfIdle() async throws {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await manager.waitUntilIdle()
        }
        try await waiting.value
    }

    /// On the real main queue, as a command-line tool's `async` `main` would use it.
    @Test func waitsOnTheRealMainQueueForWorkEndedOnAnotherThread() async throws {
        let manager = NetworkIndicatorManager()
        let token = LockedState<NetworkActivityToken?>(manager.beganNetworkTask(label: "download"))
        Thread.detachNewThread {
            usleep(20_000)
            token.withLock { $0 = nil }
        }
        try await manager.waitUntilIdle()
        #expect(manager.activeTaskCount == 0)
    }

    /// While it waits, the wait hears every count change (one main-queue hop each); once it has
    /// been cancelled, the manager asks for none on its behalf.
    @MainActor
    @Test func aWaitAsksForHopsOnlyWhileItWaits() async {
        let harness = Harness()
        harness.manager.pushNetworkActivity()
        harness.settle()
        let wait = Task { try await harness.manager.waitUntilIdle() }
        await eventually { harness.scheduler.pendingWorkCount > 0 }
        harness.settle()  // subscribes the wait to the count
        #expect(harness.hopsForTenCountChanges() == 10, "one hop per count change while waiting")
        wait.cancel()
        _ = await wait.result
        harness.manager.pushNetworkActivity()
        harness.settle()  // the observation finds its waiter gone and ends
        harness.manager.pushNetworkActivity()
        harness.settle()  // this delivery finds the observer gone
        #expect(harness.hopsForTenCountChanges() == 0)
    }

    /// A wait cancelled before its main-queue hop subscribes nothing.
    @MainActor
    @Test func aWaitCancelledBeforeItsHopObservesNothing() async {
        let harness = Harness()
        harness.manager.pushNetworkActivity()
        harness.settle()
        let wait = Task { try await harness.manager.waitUntilIdle() }
        await eventually { harness.scheduler.pendingWorkCount > 0 }
        wait.cancel()
        _ = await wait.result
        harness.settle()  // the hop finds the wait over
        #expect(harness.hopsForTenCountChanges() == 0, "not even one hop: nothing was subscribed")
    }

    /// Told the count when it reaches zero, it runs `action` once.
    @MainActor
    private final class OnIdle: NetworkIndicatorOutput {
        var action: (() -> Void)?
        var receivesActiveTaskCount: Bool { true }
        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
        func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
            guard activeTaskCount == 0, let action else { return }
            self.action = nil
            action()
        }
    }

    /// A short task that opens as the count is told zero and ends before the next hop (code
    /// reacting to idle, another thread): that hop finds zero again and tells no change, and the
    /// wait, which found the task open, still returns there. A tool that waits before it exits
    /// must not hang on an idle manager.
    @Test func returnsAtTheHopAfterAShortTaskThatOpenedAsTheCountReachedZero() async throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let beginsNext = await MainActor.run { OnIdle() }  // told before the wait
        await MainActor.run { manager.addOutput(beginsNext) }
        var first: NetworkActivityToken? = manager.beganNetworkTask(label: "first")
        await MainActor.run { scheduler.runPendingWork() }
        let waiter = Waiter(manager)
        await waiter.waitUntilSubscribed(scheduler)
        await MainActor.run { scheduler.runPendingWork() }  // one task open
        let endsNext = await MainActor.run { OnIdle() }  // told after the wait
        await MainActor.run {
            manager.addOutput(endsNext)
            var next: NetworkActivityToken?
            beginsNext.action = { next = manager.beganNetworkTask(label: "next") }
            endsNext.action = {
                usleep(5_000)  // the waiting task looks meanwhile, and finds "next" open
                next = nil
            }
            first = nil
            scheduler.runPendingWork()  // tells 0; the hop "next" asked for finds 0 again
            _ = next
        }
        #expect(manager.activeTaskCount == 0)
        await MainActor.run { scheduler.advance(by: 1) }
        #expect(await eventually { waiter.hasReturned }, "the manager is idle")
        waiter.task.cancel()
        _ = await waiter.task.result
        _ = first
    }
}

/// A task waiting for `manager` to be idle, and what it saw when it returned.
private final class Waiter: Sendable {
    private let returned = LockedState<Int?>(nil)
    let task: Task<Void, any Error>

    init(_ manager: NetworkIndicatorManager) {
        let returned = returned
        task = Task {
            try await manager.waitUntilIdle()
            let count = manager.activeTaskCount
            returned.withLock { $0 = count }
        }
    }

    var hasReturned: Bool { returned.withLock { $0 != nil } }
    var countWhenReturned: Int? { returned.withLock { $0 } }

    /// Waits until the waiter has found tasks open and asked for the main-queue hop that
    /// subscribes it to the count (nothing else is pending: the caller ran the pending work).
    func waitUntilSubscribed(_ scheduler: ManualNetworkIndicatorScheduler) async {
        await eventually(timeout: 20) { scheduler.pendingWorkCount > 0 }
    }
}
