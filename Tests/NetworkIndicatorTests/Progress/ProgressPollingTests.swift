import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Listeners hear the fraction from a timer on the manager's scheduler, at most every 0.1 s,
/// only while tasks with progress are tracked.
@MainActor
@Suite("Progress polling")
struct ProgressPollingTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager
    private let owner = Owner()
    private let told = LockedState<[Double?]>([])

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
        // No delay timers of the engine's own: the only timer left is the progress timer.
        manager.settings.startDelay = 0
        manager.settings.completionDelay = 0
    }

    /// An object whose lifetime bounds an observation.
    final class Owner {}

    @discardableResult
    private func observe(_ manager: NetworkIndicatorManager? = nil) -> NetworkIndicatorObservation {
        (manager ?? self.manager).observeProgress(owner: owner) { [told] _, fraction in
            told.withLock { $0.append(fraction) }
        }
    }

    private var values: [Double?] { told.withLock { $0 } }

    @Test func anObserverIsToldTheCurrentFractionAtOnce() {
        let download = Progress(totalUnitCount: 10)
        download.completedUnitCount = 3
        let token = manager.beganNetworkTask(progress: download)
        observe()
        #expect(values == [0.3])
        withExtendedLifetime(token) {}
    }

    @Test func updatesReachAnObserverAtMostOncePerTenthOfASecond() {
        let download = Progress(totalUnitCount: 100)
        let token = manager.beganNetworkTask(progress: download)
        observe()
        for step in 1...40 { download.completedUnitCount = Int64(step) }
        scheduler.advance(by: 0.05)
        #expect(values == [0], "no reading before the interval")
        scheduler.advance(by: 0.05)
        #expect(values == [0, 0.4], "forty updates, one reading")
        scheduler.advance(by: 0.1)
        #expect(values == [0, 0.4], "an unchanged fraction is not told again")
        withExtendedLifetime(token) {}
    }

    @Test func noTimerRunsWithoutATaskWithProgress() {
        observe()
        let plain = manager.beganNetworkTask()
        scheduler.runPendingWork()  // the engine's main-queue hop
        #expect(scheduler.pendingWorkCount == 0)
        withExtendedLifetime(plain) {}
    }

    @Test func noTimerRunsWithoutAListener() {
        let token = manager.beganNetworkTask(progress: Progress(totalUnitCount: 10))
        scheduler.runPendingWork()  // the engine's main-queue hop
        #expect(scheduler.pendingWorkCount == 0)
        withExtendedLifetime(token) {}
    }

    @Test func theTimerStopsOnceTheScopeIsIdleAndTheObserverHeardNil() {
        var token: NetworkActivityToken? = manager.beganNetworkTask(progress: Progress(totalUnitCount: 10))
        observe()
        scheduler.runPendingWork()  // the engine's main-queue hop
        #expect(scheduler.pendingWorkCount == 1, "the progress timer")
        token = nil
        scheduler.advance(by: 0.1)
        #expect(values == [0, nil])
        #expect(scheduler.pendingWorkCount == 0)
        withExtendedLifetime(token) {}
    }

    @Test func theTimerStopsWhenTheLastTaskWithProgressEndsInABusyScope() {
        let longLived = manager.beganNetworkTask()
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: Progress(totalUnitCount: 10))
        observe()
        download = nil
        scheduler.advance(by: 0.1)
        #expect(values == [0, nil], "the batch is over: a spinner while the plain task runs")
        scheduler.runPendingWork()
        #expect(scheduler.pendingWorkCount == 0, "no timer while only a task without progress runs")
        withExtendedLifetime((longLived, download)) {}
    }

    @Test func anObserverHearsNothingMoreWhenTheScopeGoesIdleAfterTheBatch() {
        var longLived: NetworkActivityToken? = manager.beganNetworkTask()
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: Progress(totalUnitCount: 10))
        observe()
        download = nil
        scheduler.advance(by: 0.1)
        longLived = nil
        scheduler.runPendingWork()
        #expect(values == [0, nil])
        #expect(scheduler.pendingWorkCount == 0)
        withExtendedLifetime((longLived, download)) {}
    }

    @Test func anObserverAddedAfterTheLastTaskWithProgressEndedHearsNil() {
        let longLived = manager.beganNetworkTask()
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: Progress(totalUnitCount: 10))
        download = nil
        observe()
        #expect(values == [nil], "the ended batch is not shown as a full bar")
        scheduler.runPendingWork()  // the engine's main-queue hop
        #expect(scheduler.pendingWorkCount == 0, "no timer: no task with progress is left")
        withExtendedLifetime((longLived, download)) {}
    }

    /// After a batch, a count change that does not move the visibility causes no main-queue hop,
    /// as with no listener at all: progress listens to no count.
    @Test func countChangesCauseNoHopsOnceTheBatchIsOver() {
        var longLived: NetworkActivityToken? = manager.beganNetworkTask()
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: Progress(totalUnitCount: 10))
        observe()
        download = nil
        scheduler.advance(by: 0.1)
        longLived = nil
        scheduler.runPendingWork()
        #expect(values == [0, nil])
        let base = manager.beganNetworkTask()
        scheduler.runPendingWork()
        let hops = scheduler.enqueuedWorkCount
        for _ in 0..<10 { manager.beganNetworkTask().stopTracking() }
        #expect(scheduler.enqueuedWorkCount == hops, "no count receiver is left")
        #expect(!manager.outputs.contains { $0.receivesActiveTaskCount }, "the observer wants no count")
        withExtendedLifetime((longLived, download, base)) {}
    }

    @Test func anObserverHearsNilWhenTheBatchEndsInABusyScope() {
        let longLived = manager.beganNetworkTask()
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: Progress(totalUnitCount: 10))
        observe()
        download = nil
        scheduler.advance(by: 0.1)
        #expect(values == [0, nil])
        withExtendedLifetime((longLived, download)) {}
    }

    @Test func aTaskBegunAfterTheObservationStartsTheTimer() {
        observe()
        let download = Progress(totalUnitCount: 4)
        let token = manager.beganNetworkTask(progress: download)
        download.completedUnitCount = 1
        scheduler.advance(by: 0.1)
        #expect(values == [nil, 0.25])
        withExtendedLifetime(token) {}
    }

    @Test func anObserverOfTheParentHearsAChildsProgress() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        observe(manager)
        let download = Progress(totalUnitCount: 2)
        let token = screen.beganNetworkTask(progress: download)
        download.completedUnitCount = 1
        scheduler.advance(by: 0.1)
        #expect(values == [nil, 0.5])
        withExtendedLifetime(token) {}
    }

    @Test func theObservationEndsWhenItsOwnerIsFreed() {
        var owner: Owner? = Owner()
        let download = Progress(totalUnitCount: 2)
        let token = manager.beganNetworkTask(progress: download)
        manager.observeProgress(owner: owner!) { [told] _, fraction in told.withLock { $0.append(fraction) } }
        owner = nil
        download.completedUnitCount = 1
        scheduler.advance(by: 0.1)
        #expect(values == [0])
        withExtendedLifetime(token) {}
    }

    @Test func aFreedOwnersBodyIsLetGoAtTheNextReadingEvenIfNothingChanged() {
        final class Captured {}
        var owner: Owner? = Owner()
        var captured: Captured? = Captured()
        let weakCaptured = WeakReference(captured)
        let download = Progress(totalUnitCount: 2)
        let token = manager.beganNetworkTask(progress: download)
        // Its handle kept: the body goes all the same.
        let handle = manager.observeProgress(owner: owner!) { [captured] _, _ in _ = captured }
        captured = nil
        owner = nil
        scheduler.advance(by: 0.1)  // the fraction did not change
        #expect(weakCaptured.object == nil, "the body and what it captured are freed")
        scheduler.runPendingWork()
        #expect(scheduler.pendingWorkCount == 0, "and no timer runs for nobody")
        withExtendedLifetime((token, handle)) {}
    }

    @Test func theObserverReceivesItsOwner() {
        let seen = LockedState<Bool>(false)
        manager.observeProgress(owner: owner) { [owner] received, _ in
            seen.withLock { $0 = received === owner }
        }
        #expect(seen.withLock { $0 })
    }

    @Test func cancellingStopsTheCallsAndFreesTheBody() {
        final class Captured {}
        var captured: Captured? = Captured()
        let weakCaptured = WeakReference(captured)
        let download = Progress(totalUnitCount: 2)
        let token = manager.beganNetworkTask(progress: download)
        let observation = manager.observeProgress(owner: owner) { [told, captured] _, fraction in
            _ = captured
            told.withLock { $0.append(fraction) }
        }
        captured = nil
        #expect(!observation.isCancelled)
        observation.cancel()
        #expect(observation.isCancelled)
        #expect(weakCaptured.object == nil, "the body is freed at once")
        download.completedUnitCount = 1
        scheduler.advance(by: 0.1)
        #expect(values == [0])
        withExtendedLifetime(token) {}
    }

    @Test func releasingTheManagerStopsItsProgressTimer() {
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let request = Token()
        let download = Progress(totalUnitCount: 2)
        manager!.beganNetworkTask(withToken: request, progress: download)  // held weakly
        let observation = observe(manager)
        manager = nil
        scheduler.advance(by: 1)  // the engine's shutdown hop
        #expect(scheduler.pendingWorkCount == 0, "no timer left")
        download.completedUnitCount = 1
        scheduler.advance(by: 1)
        #expect(values == [0, nil], "told no determinate work as the manager went, then nothing")
        observation.cancel()  // harmless after the manager is gone
    }

    @Test func aDiscardedObservationLastsAsLongAsItsOwner() {
        let download = Progress(totalUnitCount: 2)
        let token = manager.beganNetworkTask(progress: download)
        observe()  // result dropped
        download.completedUnitCount = 2
        scheduler.advance(by: 0.1)
        #expect(values == [0, 1])
        withExtendedLifetime(token) {}
    }

    // MARK: - Parts of unknown size

    @Test func aNetworkActivityProgressOfUnknownSizeRunsNoTimerAndIsHeardOnceSized() {
        observe()
        let pages = NetworkActivityProgress(totalUnitCount: -1)
        let token = manager.beganNetworkTask(progress: pages)
        scheduler.runPendingWork()  // the engine's hop
        #expect(scheduler.pendingWorkCount == 0, "no timer while only a part that tells its size is listed")
        scheduler.advance(by: 5)
        #expect(values == [nil])
        pages.totalUnitCount = 4
        pages.completedUnitCount = 1
        scheduler.runPendingWork()
        #expect(values == [nil, 0.25], "told once its total is known, without waiting for a poll")
        #expect(scheduler.pendingWorkCount == 1, "then the batch's timer runs")
        pages.completedUnitCount = 3
        scheduler.advance(by: 0.1)
        #expect(values == [nil, 0.25, 0.75])
        withExtendedLifetime(token) {}
    }

    @Test func aParentHearsAScopesNetworkActivityProgressOnceSized() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        observe(manager)
        let pages = NetworkActivityProgress(totalUnitCount: -1)
        let token = screen.beganNetworkTask(progress: pages)
        scheduler.runPendingWork()  // the engine's hops
        #expect(scheduler.pendingWorkCount == 0)
        pages.totalUnitCount = 10
        scheduler.runPendingWork()
        #expect(values == [nil, 0])
        withExtendedLifetime(token) {}
    }

    @Test func aPlainProgressOfUnknownSizeIsReadOnceASecond() {
        // Foundation's `Progress` tells nobody when its total changes on Linux.
        observe()
        let download = Progress(totalUnitCount: -1)
        let token = manager.beganNetworkTask(progress: download)
        download.totalUnitCount = 4
        download.completedUnitCount = 1
        scheduler.advance(by: 0.5)
        #expect(values == [nil], "not yet read")
        scheduler.advance(by: 0.5)
        #expect(values == [nil, 0.25])
        withExtendedLifetime(token) {}
    }

    @Test func withNoListenerASizedPartAsksForNoWork() {
        let pages = NetworkActivityProgress(totalUnitCount: -1)
        let token = manager.beganNetworkTask(progress: pages)
        scheduler.runPendingWork()  // the engine's hop
        let enqueued = scheduler.enqueuedWorkCount
        pages.totalUnitCount = 4
        #expect(scheduler.enqueuedWorkCount == enqueued)
        #expect(scheduler.pendingWorkCount == 0)
        #expect(manager.progressSnapshot().fractionCompleted == 0, "a reader reads it directly")
        withExtendedLifetime(token) {}
    }

    @Test func aProgressSharedByTwoTasksAsksForOneReadingOnceSized() {
        observe()
        let pages = NetworkActivityProgress(totalUnitCount: -1)
        let first = manager.beganNetworkTask(progress: pages)
        let second = manager.beganNetworkTask(progress: pages)
        scheduler.runPendingWork()  // the engine's hops
        let enqueued = scheduler.enqueuedWorkCount
        pages.totalUnitCount = 4
        #expect(scheduler.enqueuedWorkCount == enqueued + 1, "one hop to read, not one per task")
        withExtendedLifetime((first, second)) {}
    }

    @Test func aLongLivedProgressKeepsNoGoneManagers() {
        let pages = NetworkActivityProgress(totalUnitCount: -1)
        for _ in 0..<20 {
            let screen = NetworkIndicatorManager(scheduler: scheduler)
            let token = screen.beganNetworkTask(progress: pages)
            withExtendedLifetime(token) {}
        }
        #expect(pages.sizeSignal.listenerCount == 1, "the gone managers' roll-ups are let go as others come")
    }

    @Test func aTotalOfZeroIsStillUnknownAndAsksForNoReading() {
        observe()
        let pages = NetworkActivityProgress(totalUnitCount: -1)
        let token = manager.beganNetworkTask(progress: pages)
        scheduler.runPendingWork()  // the engine's hop
        let enqueued = scheduler.enqueuedWorkCount
        pages.totalUnitCount = 0
        #expect(scheduler.enqueuedWorkCount == enqueued)
        withExtendedLifetime(token) {}
    }

    @Test func theProgressTimerMayRunAtMostATenthOfItsIntervalLate() {
        let recording = SchedulingRecorder()
        let manager = NetworkIndicatorManager(scheduler: recording)
        manager.settings.startDelay = 0
        manager.settings.completionDelay = 0
        manager.observeProgress(owner: owner) { _, _ in }
        let token = manager.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 10))
        let progressTimers = recording.requests.filter { $0.interval == ProgressRollUp.pollInterval }
        #expect(progressTimers.count == 1)
        #expect(progressTimers.allSatisfy { $0.leeway <= ProgressRollUp.pollInterval / 10 })
        withExtendedLifetime(token) {}
    }

    /// A root and its scope each poll their progress for a listener while a weak token's sweep
    /// runs: the three share the tree's one timer, and the listeners still hear each change.
    @Test func pollsOfATreeAndItsSweepShareOneTimer() {
        let scope = NetworkIndicatorManager(parent: manager, label: "screen")
        let download = Progress(totalUnitCount: 10)
        let caller = Owner()
        scope.beganNetworkTask(withToken: caller, progress: download)
        observe()
        observe(scope)
        scheduler.runPendingWork()
        #expect(scheduler.pendingWorkCount == 1, "one timer: two polls and a sweep")

        download.completedUnitCount = 5
        scheduler.advance(by: 0.1)
        #expect(values == [0, 0, 0.5, 0.5])
        #expect(scheduler.pendingWorkCount == 1)
        withExtendedLifetime(caller) {}
    }

    /// The poll starts for a task with progress begun on another thread: the listener hears its
    /// progress from the next reading on.
    @Test func aTaskWithProgressBegunOnAnotherThreadStartsThePoll() async {
        observe()
        let upload = NetworkActivityProgress(totalUnitCount: 10)
        let token = await Task.detached { [manager] in manager.beganNetworkTask(progress: upload) }.value
        upload.completedUnitCount = 5
        scheduler.advance(by: 0.1)
        #expect(values == [nil, 0.5])
        withExtendedLifetime(token) {}
    }
}
