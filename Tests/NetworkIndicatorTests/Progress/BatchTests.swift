import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// What a download screen reads, through public API only: a batch is the determinate work that
/// overlaps; it reads `nil` once none of it runs, whatever else the scope still does.
@MainActor
@Suite("Progress batches")
struct BatchTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    // MARK: - Reading a progress the way Foundation advises

    @Test func aParentProgressMovesWithItsChildrensPartialWork() {
        // The docs' advice: one parent for several downloads, each a child.
        let parent = Progress.discreteProgress(totalUnitCount: 2)
        let first = Progress(totalUnitCount: 1_000)
        let second = Progress(totalUnitCount: 1_000)
        parent.addChild(first, withPendingUnitCount: 1)
        parent.addChild(second, withPendingUnitCount: 1)
        let token = manager.beganNetworkTask(label: "Photos", progress: parent)
        first.completedUnitCount = 500
        // Foundation leaves the parent's completedUnitCount at 0 until a child finishes.
        #expect(parent.completedUnitCount == 0)
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        second.completedUnitCount = 500
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime(token) {}
    }

    @Test func anImplicitChildMovesItsParent() {
        let parent = Progress.discreteProgress(totalUnitCount: 10)
        let token = manager.beganNetworkTask(progress: parent)
        parent.becomeCurrent(withPendingUnitCount: 10)
        let child = Progress(totalUnitCount: 4)
        parent.resignCurrent()
        child.completedUnitCount = 1
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        withExtendedLifetime(token) {}
    }

    // MARK: - A batch ends when its determinate work does

    @Test func theFractionIsNilOnceTheDownloadsEndWhileOtherWorkRuns() {
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(10, of: 100))
        let request = manager.beganNetworkTask(label: "JSON, no progress")
        #expect(manager.progressSnapshot().fractionCompleted == 0.1)
        download = nil
        #expect(
            manager.progressSnapshot().fractionCompleted == nil,
            "a spinner, never a full bar, while the request runs"
        )
        #expect(manager.activeTaskCount == 1)
        withExtendedLifetime((download, request)) {}
    }

    @Test func theNextDownloadStartsANewBatchAtItsOwnZero() {
        var first: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(100, of: 100))
        let request = manager.beganNetworkTask()
        first = nil
        // Nobody read in between: the new batch must not depend on it.
        let second = manager.beganNetworkTask(progress: progress(0, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0)
        withExtendedLifetime((first, request, second)) {}
    }

    @Test func aFinishedPartCountsAsDoneWhileItsBatchRuns() {
        let first = manager.beganNetworkTask(progress: progress(100, of: 100))
        let second = manager.beganNetworkTask(progress: progress(50, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.75)
        manager.finishedNetworkTask(forToken: first)
        #expect(manager.progressSnapshot().fractionCompleted == 0.75, "the bar does not fall back when one file ends")
        withExtendedLifetime((first, second)) {}
    }

    @Test func aCancelledPartLeavesTheBatch() {
        let cancelled = progress(40, of: 100)
        var first: NetworkActivityToken? = manager.beganNetworkTask(progress: cancelled)
        let second = manager.beganNetworkTask(progress: progress(20, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        cancelled.cancel()
        first = nil
        #expect(manager.progressSnapshot().fractionCompleted == 0.2, "neither a jump forward nor bytes that never came")
        withExtendedLifetime((first, second)) {}
    }

    @Test func overlappingDownloadsShareOneBatch() {
        var first: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(100, of: 100))
        let second = manager.beganNetworkTask(progress: progress(0, of: 100))
        first = nil
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        let third = manager.beganNetworkTask(progress: progress(0, of: 200))
        #expect(manager.progressSnapshot().fractionCompleted == 0.25, "a part that joins a running batch adds to it")
        withExtendedLifetime((first, second, third)) {}
    }

    @Test func aResetEndsTheBatchEvenWhenNewWorkFollowsAtOnce() {
        let old = manager.beganNetworkTask(progress: progress(50, of: 100))
        manager.resetNetworkActivity()
        let new = manager.beganNetworkTask(progress: progress(0, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0, "the reset part is not carried into the new batch")
        withExtendedLifetime((old, new)) {}
    }

    @Test func aTokenBegunAgainDoesNotBringBackItsEndedPart() {
        let token = NSObject()
        manager.beganNetworkTask(withToken: token, progress: progress(40, of: 100))
        manager.finishedNetworkTask(forToken: token)
        manager.beganNetworkTask(withToken: token, progress: progress(0, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0, "the same whether or not anyone read in between")
        manager.finishedNetworkTask(forToken: token)
    }

    // MARK: - Pause and resume

    @Test(arguments: [false, true])
    func pauseAndResumeKeepTheTasksBytes(readDuringThePause: Bool) {
        let task = NSObject()
        let bytes = progress(30, of: 100)
        manager.beganNetworkTask(withToken: task, progress: bytes)
        // Paused: the task ends, its progress stays.
        bytes.pause()
        manager.finishedNetworkTask(forToken: task)
        if readDuringThePause { _ = manager.progressSnapshot().fractionCompleted }
        // Resumed with the same progress.
        bytes.resume()
        manager.beganNetworkTask(withToken: task, progress: bytes)
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        bytes.completedUnitCount = 60
        #expect(manager.progressSnapshot().fractionCompleted == 0.6)
        manager.finishedNetworkTask(forToken: task)
    }

    @Test func aTaskBegunAgainWithTheProgressItStillCountsCountsItOnce() {
        let task = NSObject()
        let bytes = progress(30, of: 100)
        manager.beganNetworkTask(withToken: task, progress: bytes)
        manager.beganNetworkTask(withToken: task, progress: bytes)
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.2, "40 of 200, not 70 of 300")
        manager.finishedNetworkTask(forToken: task)
        manager.finishedNetworkTask(forToken: task)
        withExtendedLifetime(other) {}
    }

    @Test func aPausedPartHoldsItsBytesWhileItsBatchRuns() {
        let task = NSObject()
        let paused = progress(30, of: 100)
        manager.beganNetworkTask(withToken: task, progress: paused)
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        paused.pause()
        manager.finishedNetworkTask(forToken: task)
        #expect(manager.progressSnapshot().fractionCompleted == 0.2, "not counted as done: 40 of 200")
        paused.resume()
        manager.beganNetworkTask(withToken: task, progress: paused)
        paused.completedUnitCount = 70
        #expect(manager.progressSnapshot().fractionCompleted == 0.4, "its bytes counted once: 80 of 200")
        manager.finishedNetworkTask(forToken: task)
        withExtendedLifetime(other) {}
    }

    // MARK: - Units

    @Test func aWeightMakesASequenceOfPagesVisibleBesideBytes() {
        let pages = progress(1, of: 5)
        let json = progress(0, of: 2_000)
        let feed = manager.beganNetworkTask(label: "Pages", progress: pages, weight: 8_000)
        let request = manager.beganNetworkTask(label: "JSON", progress: json)
        // One page of five stands for 1 600 of the 8 000 bytes the caller estimated.
        #expect(manager.progressSnapshot().fractionCompleted == 1_600.0 / 10_000.0)
        withExtendedLifetime((feed, request)) {}
    }

    @Test func aTaskWeighingNothingTakesNoPart() {
        let weightless = manager.beganNetworkTask(progress: progress(0, of: 10), weight: 0)
        let download = manager.beganNetworkTask(progress: progress(30, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        #expect(manager.progressSnapshot().hasIndeterminateWork, "its size is not known")
        withExtendedLifetime((weightless, download)) {}
    }

    @Test func aTrackedSequenceOfPagesCanBeWeighedInBytes() async {
        let (pages, input) = AsyncStream.makeStream(of: Int.self)
        let json = progress(0, of: 2_000)
        let request = manager.beganNetworkTask(label: "JSON", progress: json)
        var iterator = pages.trackingNetworkActivity(in: manager, expectedElementCount: 5, weight: 8_000)
            .makeAsyncIterator()
        input.yield(1)
        _ = await iterator.next()
        // One page of five stands for 1 600 of 8 000 bytes; unweighed, 1 of 2 005 units.
        #expect(manager.progressSnapshot().fractionCompleted == 1_600.0 / 10_000.0)
        input.finish()
        _ = await iterator.next()
        withExtendedLifetime(request) {}
    }

    @Test func aNetworkActivityProgressReadsAsFoundationCountsItOnItsOwnThread() {
        let pages = NetworkActivityProgress(totalUnitCount: 4)
        pages.completedUnitCount = 1
        #expect(pages.completedUnitCount == 1)
        #expect(pages.fractionCompleted == 0.25, "Foundation's own counts follow the locked ones")
        pages.totalUnitCount = 2
        #expect(pages.fractionCompleted == 0.5)
    }

    @Test func aCancelledNetworkActivityProgressLeavesTheBatch() {
        let pages = NetworkActivityProgress(totalUnitCount: 100)
        pages.completedUnitCount = 40
        var feed: NetworkActivityToken? = manager.beganNetworkTask(progress: pages)
        let other = manager.beganNetworkTask(progress: progress(20, of: 100))
        pages.cancel()
        feed = nil
        #expect(pages.isCancelled)
        #expect(manager.progressSnapshot().fractionCompleted == 0.2)
        withExtendedLifetime((feed, other)) {}
    }

    @Test func aPausedNetworkActivityProgressKeepsItsUnits() {
        let task = NSObject()
        let pages = NetworkActivityProgress(totalUnitCount: 100)
        pages.completedUnitCount = 30
        manager.beganNetworkTask(withToken: task, progress: pages)
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        pages.pause()
        manager.finishedNetworkTask(forToken: task)
        #expect(manager.progressSnapshot().fractionCompleted == 0.2, "40 of 200: paused, not done")
        pages.resume()
        #expect(!pages.isPaused)
        withExtendedLifetime(other) {}
    }

    // MARK: - The snapshot

    @Test func theSnapshotSaysWhatTheBarMeasures() {
        let download = manager.beganNetworkTask(progress: progress(250, of: 1_000))
        let image = manager.beganNetworkTask(progress: progress(0, of: 1_000))
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.125)
        #expect(snapshot.completedUnitCount == 250)
        #expect(snapshot.totalUnitCount == 2_000)
        #expect(snapshot.hasIndeterminateWork == false, "everything running is measured")
        let request = manager.beganNetworkTask()
        #expect(manager.progressSnapshot().hasIndeterminateWork, "a running task of unknown size")
        withExtendedLifetime((download, image, request)) {}
    }

    @Test func aTokenBegunTwiceWithOneProgressIsMeasured() {
        let request = Token()
        let bytes = progress(250, of: 1_000)
        manager.beganNetworkTask(withToken: request, progress: bytes)
        manager.beganNetworkTask(withToken: request, progress: bytes)
        #expect(manager.activeTaskCount == 2)
        #expect(!manager.progressSnapshot().hasIndeterminateWork, "both tasks are measured by its progress")
        manager.finishedNetworkTask(forToken: request)
        let other = manager.beganNetworkTask()
        #expect(manager.progressSnapshot().hasIndeterminateWork, "one measured task, one of unknown size")
        manager.finishedNetworkTask(forToken: request)
        withExtendedLifetime(other) {}
    }

    @Test func aRepeatedBeginIsForgottenOnceItsTokenEnds() {
        let request = Token()
        let bytes = progress(250, of: 1_000)
        manager.beganNetworkTask(withToken: request, progress: bytes)
        manager.beganNetworkTask(withToken: request, progress: bytes)
        manager.finishedNetworkTask(forToken: request)
        manager.finishedNetworkTask(forToken: request)
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        manager.beganNetworkTask(withToken: request, progress: progress(1, of: 2))
        manager.beganNetworkTask(withToken: request)
        #expect(manager.progressSnapshot().hasIndeterminateWork, "the second task has no progress")
        manager.finishedNetworkTask(forToken: request)
        manager.finishedNetworkTask(forToken: request)
    }

    @Test func aGroupOperationWithoutProgressIsIndeterminate() {
        let group = NetworkActivityGroup(manager: manager)
        group.operationStarted(progress: progress(1, of: 2))
        group.operationStarted(progress: progress(1, of: 2))
        #expect(!manager.progressSnapshot().hasIndeterminateWork)
        group.operationStarted()
        #expect(manager.progressSnapshot().hasIndeterminateWork)
    }

    @Test func anIdleManagersSnapshotIsEmpty() {
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == nil)
        #expect(snapshot.completedUnitCount == 0)
        #expect(snapshot.totalUnitCount == 0)
        #expect(!snapshot.hasIndeterminateWork)
        #expect(snapshot.estimatedTimeRemaining == nil)
    }

    @MainActor
    @Test func theSnapshotEstimatesTheTimeRemainingFromTheBatchsPace() {
        let bytes = progress(0, of: 1_000)
        let download = manager.beganNetworkTask(progress: bytes)
        #expect(manager.progressSnapshot().estimatedTimeRemaining == nil, "no pace yet")
        bytes.completedUnitCount = 100
        #expect(manager.progressSnapshot().estimatedTimeRemaining == nil, "no time has passed")
        bytes.completedUnitCount = 0
        scheduler.advance(by: 2)
        bytes.completedUnitCount = 250
        // 250 bytes in 2 s: 750 more take 6 s.
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 6)
        withExtendedLifetime(download) {}
    }

    @Test func aPartWhoseSizeBecomesUnknownEndsItsBatchBeforeTheNextBegins() {
        let first = NetworkActivityProgress(totalUnitCount: 100)
        let a = manager.beganNetworkTask(progress: first)
        first.completedUnitCount = 50
        scheduler.advance(by: 10)
        first.totalUnitCount = -1  // nothing of known size runs any more
        let second = NetworkActivityProgress(totalUnitCount: 100)
        let b = manager.beganNetworkTask(progress: second)  // a new batch, from now
        scheduler.advance(by: 2)
        second.completedUnitCount = 50
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 2, "paced from the new batch's start")
        withExtendedLifetime((a, b)) {}
    }

    /// A task whose `Progress` is cancelled while its task runs on (its token not yet finished):
    /// its part leaves the batch, and the task, which nothing measures now, makes the bar partial.
    @Test func aTaskRunningOnAfterItsProgressIsCancelledIsUnmeasured() {
        let running = progress(50, of: 100)
        let stopped = progress(50, of: 100)
        let tokens = [
            manager.beganNetworkTask(label: "Running", progress: running),
            manager.beganNetworkTask(label: "Stopped", progress: stopped),
        ]
        #expect(!manager.progressSnapshot().hasIndeterminateWork)
        stopped.cancel()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5, "its units left both sums")
        #expect(snapshot.totalUnitCount == 100)
        #expect(snapshot.hasIndeterminateWork, "its task still runs, measured by nothing")
        withExtendedLifetime(tokens) {}
    }
}

/// Listeners hear a batch end while the scope stays busy.
@MainActor
@Suite("Progress batches, listened to")
struct BatchListenerTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager
    private let told = LockedState<[Double?]>([])
    private let owner = NSObject()

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 0
        manager.settings.completionDelay = 0
    }

    private var values: [Double?] { told.withLock { $0 } }

    @Test func aListenerHearsNilWhenTheBatchEndsWhileARequestRuns() {
        let bytes = Progress.discreteProgress(totalUnitCount: 100)
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: bytes)
        let request = manager.beganNetworkTask()
        manager.observeProgress(owner: owner) { [told] _, fraction in told.withLock { $0.append(fraction) } }
        bytes.completedUnitCount = 100
        scheduler.advance(by: 0.1)
        download = nil
        scheduler.advance(by: 0.1)
        #expect(values == [0, 1, nil], "no stale full bar while the request runs")
        #expect(scheduler.nextDeadline == nil, "and no timer once only indeterminate work is left")
        withExtendedLifetime((download, request)) {}
    }
}
