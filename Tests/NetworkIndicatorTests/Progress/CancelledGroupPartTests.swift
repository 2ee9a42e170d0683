import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A cancel records a group's failed parts, and a cancellable token's, where it ends their
/// tasks: a reading at any moment counts a cancelled part as failed and a finished one as done.
@Suite("Cancelled parts")
struct CancelledGroupPartTests {
    /// A cancellable token whose `cancel()` reads the manager's fraction: the cancel runs it
    /// after the cancel has ended every task, before the later tokens' own `cancel()`.
    private final class ReadingToken: NetworkActivityCancellable, Sendable {
        let manager: NetworkIndicatorManager
        let fraction = LockedState<Double?>(nil)

        init(manager: NetworkIndicatorManager) {
            self.manager = manager
        }

        func cancel() {
            let read = manager.progressSnapshot().fractionCompleted
            fraction.withLock { $0 = read }
        }
    }

    /// A group's operation cancelled by its scope leaves its batch even when read between the
    /// cancel's end of its task and its handler (the openapi middleware cancels its request's
    /// progress there).
    @Test func aCancelledGroupOperationLeavesItsBatchBeforeItsHandlerRuns() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let reader = ReadingToken(manager: manager)
        manager.beganNetworkTask(withToken: reader)
        let running = NetworkActivityProgress(totalUnitCount: 100)
        running.completedUnitCount = 50
        let other = manager.beganNetworkTask(label: "not cancellable", progress: running)
        let group = NetworkActivityGroup(manager: manager, label: "request")
        let request = NetworkActivityProgress(totalUnitCount: 100)
        request.completedUnitCount = 25
        group.operationStarted(progress: request)
        manager.cancelNetworkTasks()
        #expect(reader.fraction.withLock { $0 } == 0.5, "only the task the cancel could not stop: 50 of 100")
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime((other, group)) {}
    }

    /// Only the parts the cancel found running fail: a group's later operation counts as usual.
    @Test func aGroupsOperationAfterACancelCountsAsDone() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let running = NetworkActivityProgress(totalUnitCount: 100)
        let other = manager.beganNetworkTask(label: "other", progress: running)
        let group = NetworkActivityGroup(manager: manager, label: "request")
        group.operationStarted(progress: NetworkActivityProgress(totalUnitCount: 100))
        manager.cancelNetworkTasks()
        let later = NetworkActivityProgress(totalUnitCount: 100)
        group.operationStarted(progress: later)
        later.completedUnitCount = 100
        group.operationFinished()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "100 of 200: the later one done")
        withExtendedLifetime(other) {}
    }

    /// A download of `manager`'s at 20 of 100 that no cancel stops (an opaque token's).
    private static func runningDownload(in manager: NetworkIndicatorManager) -> NetworkActivityToken {
        let running = NetworkActivityProgress(totalUnitCount: 100)
        running.completedUnitCount = 20
        return manager.beganNetworkTask(label: "not cancellable", progress: running)
    }

    /// A download object of a caller's, cancellable, with its own progress: its `cancel()` reads
    /// the manager's fraction (a reading of another thread's, landing before the download has
    /// stopped), then cancels its progress, or not.
    private final class Download: NetworkActivityCancellable, Sendable {
        let manager: NetworkIndicatorManager
        let progress = NetworkActivityProgress(totalUnitCount: 100)
        let cancelsItsProgress: Bool
        let fraction = LockedState<Double?>(nil)
        /// Run first in `cancel()`: what another thread does before the manager's cancel returns.
        let then: @Sendable (Download) -> Void

        init(
            manager: NetworkIndicatorManager,
            cancelsItsProgress: Bool,
            then: @escaping @Sendable (Download) -> Void = { _ in }
        ) {
            self.manager = manager
            self.cancelsItsProgress = cancelsItsProgress
            self.then = then
        }

        func cancel() {
            then(self)
            let read = manager.progressSnapshot().fractionCompleted
            fraction.withLock { $0 = read }
            if cancelsItsProgress { progress.cancel() }
        }
    }

    /// A caller's cancellable token that the manager's cancel ends leaves its batch whatever its
    /// progress reads, and whenever anyone reads: the cancel stopped its work, whose units never
    /// come. (It counted as done if read before its `cancel()` ran, or if that left its
    /// progress alone.)
    @Test(arguments: [false, true])
    func aCancelledTokensPartLeavesItsBatch(cancelsItsProgress: Bool) {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let other = Self.runningDownload(in: manager)
        let download = Download(manager: manager, cancelsItsProgress: cancelsItsProgress)
        download.progress.completedUnitCount = 10
        manager.beganNetworkTask(withToken: download, progress: download.progress)
        manager.cancelNetworkTasks()
        #expect(download.fraction.withLock { $0 } == 0.2, "read before the download stopped: 20 of 100")
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.2)
        #expect(snapshot.totalUnitCount == 100)
        withExtendedLifetime(other) {}
    }

    /// A caller's token begun again with the same progress after a cancel ended it (a retry)
    /// runs again, measured from where its progress is: begun after the cancel returned, or
    /// before (another thread's begin, landing before the cancel folded the part out).
    @Test(arguments: [false, true])
    func aCancelledTokenBegunAgainWithItsProgressRunsAgain(beforeTheCancelReturns: Bool) {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let download = Download(manager: manager, cancelsItsProgress: false) { download in
            guard beforeTheCancelReturns else { return }
            download.manager.beganNetworkTask(withToken: download, progress: download.progress)
        }
        download.progress.completedUnitCount = 10
        manager.beganNetworkTask(withToken: download, progress: download.progress)
        manager.cancelNetworkTasks()
        if !beforeTheCancelReturns { manager.beganNetworkTask(withToken: download, progress: download.progress) }
        download.progress.completedUnitCount = 40
        #expect(manager.progressSnapshot().fractionCompleted == 0.4)
        manager.finishedNetworkTask(forToken: download)
    }

    /// A plain `Progress` of a cancellable token, cancelled and begun again with that progress
    /// on another thread while the main queue reads (an overlay): off the main queue the ended
    /// part waits, listed, for a reading, and the retry's begin finds it there. The retry is
    /// measured. (Found by the review of the change that made cancelled tokens' parts leave.)
    @MainActor
    @Test func aRetryOffTheMainQueueOfACancelledTokenIsMeasured() {
        final class PlainDownload: NetworkActivityCancellable, @unchecked Sendable {
            let progress = Progress(totalUnitCount: 100)
            func cancel() {}
        }
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let other = Self.runningDownload(in: manager)
        let download = PlainDownload()
        download.progress.completedUnitCount = 10
        manager.beganNetworkTask(withToken: download, progress: download.progress)
        #expect(manager.progressSnapshot().fractionCompleted == 0.15)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            manager.cancelNetworkTasks()
            manager.beganNetworkTask(withToken: download, progress: download.progress)  // the retry
            done.signal()
        }
        done.wait()
        download.progress.completedUnitCount = 40
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.3, "the retry measured: 20 + 40 of 200")
        #expect(!snapshot.hasIndeterminateWork)
        manager.finishedNetworkTask(forToken: download)
        withExtendedLifetime(other) {}
    }

    /// The same for a group: its cancel and its retry with the same plain `Progress` both come
    /// from another thread, before any main-queue reading. "The parts begun so far fail, later
    /// ones start afresh": the retry is measured, not left out as the cancelled part was.
    @MainActor
    @Test func aGroupsRetryOffTheMainQueueAfterItsCancelIsMeasured() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let other = Self.runningDownload(in: manager)
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let upload = progress(10, of: 100)
        uploads.operationStarted(progress: upload)
        #expect(manager.progressSnapshot().fractionCompleted == 0.15)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            uploads.cancelOperations()
            uploads.operationStarted(progress: upload)  // the retry
            done.signal()
        }
        done.wait()
        upload.completedUnitCount = 40
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.3, "the retry measured: 20 + 40 of 200")
        #expect(!snapshot.hasIndeterminateWork)
        uploads.operationFinished()
        withExtendedLifetime(other) {}
    }

    /// A cancellable token that reports completion (an `Operation`), its progress complete and
    /// its work over before the screen's cancel, which finds it before the sweep does: its bytes
    /// came, so its part counts as done, as once the sweep has seen it; the bar does not fall
    /// back. (Found by the same review.)
    @MainActor
    @Test(arguments: [false, true])
    func aCompletedCancellableTokenStaysDoneAtACancel(sweepFirst: Bool) {
        final class Load: NetworkActivityCancellable, NetworkActivityCompletionReporting, Sendable {
            let progress = NetworkActivityProgress(totalUnitCount: 100)
            private let done = LockedState(false)
            var isNetworkActivityFinished: Bool { done.withLock { $0 } }
            func finish() { done.withLock { $0 = true } }
            func cancel() {}
        }
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.completionCheckInterval = 1
        let other = Self.runningDownload(in: manager)
        let load = Load()
        manager.beganNetworkTask(withToken: load, progress: load.progress)
        load.progress.completedUnitCount = 100
        load.finish()
        #expect(manager.progressSnapshot().fractionCompleted == 0.6)
        if sweepFirst { scheduler.advance(by: 1) }
        manager.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0.6, "120 of 200: the load's bytes came")
        withExtendedLifetime(other) {}
    }

    /// A child scope's cancel while the parent's batch runs: the child's cancellable token
    /// leaves both bars; the parent's own download goes on.
    @Test func aScopesCancelTakesItsTokensPartOutOfItsParentsBar() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let other = Self.runningDownload(in: manager)
        let download = Download(manager: screen, cancelsItsProgress: false)
        download.progress.completedUnitCount = 10
        screen.beganNetworkTask(withToken: download, progress: download.progress)
        #expect(manager.progressSnapshot().fractionCompleted == 0.15)
        screen.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0.2)
        #expect(manager.progressSnapshot().totalUnitCount == 100)
        #expect(screen.progressSnapshot().fractionCompleted == nil)
        withExtendedLifetime(other) {}
    }

    /// A group's operation that finished before a cancel of its group's other operations stays
    /// done, though nothing read the fraction in between.
    @Test func aGroupOperationFinishedBeforeACancelStaysDone() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let running = NetworkActivityProgress(totalUnitCount: 100)
        let other = manager.beganNetworkTask(label: "other", progress: running)
        let group = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = NetworkActivityProgress(totalUnitCount: 100)
        group.operationStarted(progress: first)
        group.operationStarted(progress: NetworkActivityProgress(totalUnitCount: 100))
        first.completedUnitCount = 100
        group.operationFinished()
        manager.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "the first's 100 and the other's 0 of 100")
        withExtendedLifetime(other) {}
    }

    /// `cancelOperations()`: "a complete part that a later operation outlived stays done". The
    /// first upload completes after the second began (it waits for its response), and the
    /// group's own cancel or its manager's comes with no reading in between, or after one.
    @Test(arguments: [false, true], [false, true])
    func aCompletePartALaterOperationOutlivedStaysDoneAtACancel(readInBetween: Bool, groupsOwnCancel: Bool) {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let other = manager.beganNetworkTask(label: "other", progress: NetworkActivityProgress(totalUnitCount: 100))
        let group = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = NetworkActivityProgress(totalUnitCount: 100)
        group.operationStarted(progress: first)
        group.operationStarted(progress: NetworkActivityProgress(totalUnitCount: 100))
        first.completedUnitCount = 100
        if readInBetween { _ = manager.progressSnapshot() }
        if groupsOwnCancel { group.cancelOperations() } else { manager.cancelNetworkTasks() }
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "the first's 100 and the other's 0 of 100")
        withExtendedLifetime(other) {}
    }

    /// A cancel that lands right after a group's operation began, before its progress is
    /// listed (another thread's; here run by the hop the begin enqueues): the cancel ended the
    /// operation, so its part leaves the batch rather than count as done.
    @MainActor
    @Test func aCancelBetweenAGroupsBeginAndItsPartLeavesThePartOut() {
        let scheduler = HookedScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: ignoreDiagnostics)
        let screen = NetworkIndicatorManager(parent: root, label: "screen")
        let download = NSObject()
        root.beganNetworkTask(withToken: download, progress: NetworkActivityProgress(totalUnitCount: 100))
        scheduler.base.runPendingWork()
        let group = NetworkActivityGroup(manager: screen)
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        scheduler.beforeNextEnqueue { root.cancelNetworkTasks() }
        group.operationStarted(progress: NetworkActivityProgress(totalUnitCount: 100))
        #expect(told.value == 1, "the cancel found the operation open")
        #expect(group.activeOperationCount == 0)
        let snapshot = root.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0, "the cancelled upload's units never came")
        #expect(snapshot.completedUnitCount == 0)
        withExtendedLifetime(download) {}
    }

    /// A reading that lands just after a begin with progress (another thread's; here run by
    /// the hop the begin enqueues) finds the task measured: its part is listed in the begin's
    /// own hold, never after it; an opaque token's too, made in that hold for the slot it pinned.
    @MainActor
    @Test(arguments: [false, true])
    func aReadingJustAfterABeginFindsItsPartListed(opaque: Bool) {
        let scheduler = HookedScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: ignoreDiagnostics)
        let counts = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
        manager.addOutput(counts)  // each count change enqueues a hop
        let running = NetworkActivityProgress(totalUnitCount: 100)
        running.completedUnitCount = 50
        let other = manager.beganNetworkTask(label: "other", progress: running)
        scheduler.base.runPendingWork()
        let seen = LockedState<(count: Int, snapshot: NetworkProgressSnapshot)?>(nil)
        scheduler.beforeNextEnqueue {
            let reading = (manager.activeTaskCount, manager.progressSnapshot())
            seen.withLock { $0 = reading }
        }
        let upload = NetworkActivityProgress(totalUnitCount: 100)
        let token: AnyObject
        if opaque {
            token = manager.beganNetworkTask(label: "upload", progress: upload)
        } else {
            token = NSObject()
            manager.beganNetworkTask(withToken: token, progress: upload)
        }
        let (count, snapshot) = try! #require(seen.withLock { $0 })
        #expect(count == 2)
        #expect(!snapshot.hasIndeterminateWork, "both tasks are measured")
        #expect(snapshot.fractionCompleted == 0.25)
        withExtendedLifetime((other, token, counts)) {}
    }
}
