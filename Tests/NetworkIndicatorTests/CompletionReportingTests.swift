import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@MainActor
@Suite("Tokens that report completion")
struct CompletionReportingTests {
    /// A token of yours that runs again; `onAsked` runs as a sweep asks whether it is done.
    private final class Job: NetworkActivityCompletionReporting, @unchecked Sendable {
        var isDone = false
        var onAsked: (() -> Void)?
        var isNetworkActivityFinished: Bool {
            onAsked?()
            return isDone
        }
    }

    @Test func heldFinishedOperationEndsAtTheNextSweep() {
        let harness = Harness()
        let operation = BlockOperation {}
        harness.manager.beganNetworkTask(withToken: operation)
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 1, "not started yet: still active")
        operation.start()
        #expect(operation.isFinished)
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.visibilityChanges == [false, true, false])
        withExtendedLifetime(operation) {}
    }

    /// A finished operation in a scope ends at the scope's sweep, and the root's indicator, which
    /// counted it, hides too.
    @Test func heldFinishedOperationInAScopeEndsInTheRootToo() {
        let harness = Harness()
        let scope = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let operation = BlockOperation {}
        scope.beganNetworkTask(withToken: operation)
        harness.advance(by: 1)
        #expect(harness.visibilityChanges == [false, true])
        operation.start()
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.visibilityChanges == [false, true, false])
        withExtendedLifetime((operation, scope)) {}
    }

    /// An operation passed as the token and also finished by its own completion code (the
    /// README's "or you finish it"): whichever comes first, the sweep or the finish, nothing is
    /// reported. Its late finish is absorbed while it lives, and only once per task it had.
    @Test func aFinishAfterTheSweepEndedACompletedOperationIsNotMisuse() {
        let harness = Harness()
        let operation = BlockOperation {}
        harness.manager.beganNetworkTask(withToken: operation)
        harness.manager.beganNetworkTask(withToken: operation)
        operation.start()
        harness.advance(by: 1)  // the sweep finds it finished and ends both tasks
        #expect(harness.manager.activeTaskCount == 0)
        harness.manager.finishedNetworkTask(forToken: operation)  // its completion block, late
        harness.manager.finishedNetworkTask(forToken: operation)
        #expect(harness.diagnostics.all.isEmpty)
        harness.manager.finishedNetworkTask(forToken: operation)
        #expect(harness.diagnostics.kinds == [.unknownFinish], "a third finish of two tasks is misuse")
        withExtendedLifetime(operation) {}
    }

    /// What the sweep remembers for a late finish lasts while the operation lives: the next
    /// sweep after its death forgets it, and a new object at its address is not absorbed.
    @Test func aCompletedOperationIsForgottenOnceItDies() {
        let harness = Harness()
        var operation: BlockOperation? = BlockOperation {}
        harness.manager.beganNetworkTask(withToken: operation!)
        operation!.start()
        harness.advance(by: 1)
        let remembered = { harness.manager.driver.read { $0.registry.completedTasks.count } }
        #expect(remembered() == 1)
        operation = nil
        let other = Token()
        harness.manager.beganNetworkTask(withToken: other)  // a weak token: the sweep runs again
        harness.advance(by: 1)
        #expect(remembered() == 0)
        withExtendedLifetime(other) {}
    }

    /// A token that reports completion and runs again (one of yours): once a sweep has seen it
    /// begun again, a finish beyond the tasks of its new run is misuse, reported, whatever the
    /// sweep ended before.
    @Test func aDoubleFinishOfATokensNextRunIsReported() {
        final class ReusableJob: NetworkActivityCompletionReporting, @unchecked Sendable {
            var isDone = false
            var isNetworkActivityFinished: Bool { isDone }
        }
        let harness = Harness()
        let job = ReusableJob()
        harness.manager.beganNetworkTask(withToken: job)
        job.isDone = true
        harness.advance(by: 1)  // the sweep ends the first run
        #expect(harness.manager.activeTaskCount == 0)
        job.isDone = false
        harness.manager.beganNetworkTask(withToken: job)
        harness.advance(by: 1)  // a sweep finds it running again
        harness.manager.finishedNetworkTask(forToken: job)
        harness.manager.finishedNetworkTask(forToken: job)  // one too many
        #expect(harness.diagnostics.kinds == [.unknownFinish])
        withExtendedLifetime(job) {}
    }

    /// A token of yours that reports completion and runs again, begun again while a sweep asks
    /// the tokens whether they are done (here from another token's answer; in an app, from
    /// another thread): the sweep ends the run it found done, not the new one. The new run stays
    /// counted until a later sweep finds it done. With `finishingTheFirstRun`, your code also
    /// finished the first run before it began the second.
    @Test(arguments: [false, true])
    func aRunBegunWhileASweepAsksIsNotEnded(finishingTheFirstRun: Bool) {
        let harness = Harness()
        let rerun = Job()
        let other = Job()
        harness.manager.beganNetworkTask(withToken: rerun)  // asked first: its slot comes first
        harness.manager.beganNetworkTask(withToken: other)
        rerun.isDone = true  // its first run is over
        other.onAsked = {
            other.onAsked = nil
            if finishingTheFirstRun { harness.manager.finishedNetworkTask(forToken: rerun) }
            rerun.isDone = false
            harness.manager.beganNetworkTask(withToken: rerun)  // its second run
        }
        harness.advance(by: 1)  // the sweep
        #expect(harness.manager.activeTaskCount == 2, "the second run and the other job")
        rerun.isDone = true
        harness.advance(by: 1)  // the next sweep finds the second run done
        #expect(harness.manager.activeTaskCount == 1)
        #expect(harness.diagnostics.kinds.isEmpty)
        withExtendedLifetime((rerun, other)) {}
    }

    /// The new run of a token begun again while a sweep asks is its own: it is reported stuck
    /// once it has lasted the threshold, though the first run was reported already.
    @Test func aRunBegunWhileASweepAsksIsReportedStuckOnItsOwn() {
        let harness = Harness(completionCheckInterval: 1)
        harness.manager.settings.staleTaskThreshold = 5
        let rerun = Job()
        let other = Job()
        harness.manager.beganNetworkTask(withToken: rerun, label: "sync")
        harness.manager.beganNetworkTask(withToken: other, label: "other")
        harness.advance(by: 5)  // both reported stuck
        rerun.isDone = true
        other.onAsked = {
            other.onAsked = nil
            rerun.isDone = false
            harness.manager.beganNetworkTask(withToken: rerun, label: "sync")  // its second run
        }
        harness.advance(by: 1)  // the sweep that ends the first run
        #expect(harness.manager.activeTaskCount == 2)
        harness.advance(by: 4)
        #expect(harness.diagnostics.all.map(\.label).sorted() == ["other", "sync"])
        harness.advance(by: 1)  // the second run has lasted 5 s
        #expect(harness.diagnostics.all.map(\.label).sorted() == ["other", "sync", "sync"])
        withExtendedLifetime((rerun, other)) {}
    }

    @Test func heldCancelledOperationThatNeverRanEndsAtTheNextSweep() {
        let harness = Harness()
        let operation = BlockOperation {}
        harness.manager.beganNetworkTask(withToken: operation)
        operation.cancel()
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        withExtendedLifetime(operation) {}
    }

    @Test func heldCancelledOperationStillRunningStaysActiveUntilItFinishes() async {
        let harness = Harness()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let operation = BlockOperation {
            started.signal()
            release.wait()
        }
        harness.manager.beganNetworkTask(withToken: operation)
        let queue = OperationQueue()
        queue.addOperation(operation)
        started.wait()
        operation.cancel()
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 1, "cancelled but still executing: not finished")
        release.signal()
        await eventually { operation.isFinished }
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
    }

    @Test func trackedURLSessionTaskIsLabelledWithItsMethodHostAndPath() {
        let harness = Harness()
        let session = URLSession(configuration: .ephemeral)
        let url = URL(string: "http://127.0.0.1:9/feed?page=2")!
        let task = session.dataTask(with: url)
        harness.manager.track(task)
        #expect(harness.manager.activitySnapshot().activities.map(\.label) == ["GET 127.0.0.1/feed"])
        harness.manager.finishedNetworkTask(forToken: task)
        session.invalidateAndCancel()
    }

    @Test func customTypeReportsCompletionThroughTheProtocol() {
        let harness = Harness()
        let upload = CompletableToken()
        harness.manager.beganNetworkTask(withToken: upload)
        harness.manager.beganNetworkTask(withToken: upload)
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 2)
        upload.finish()
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0, "completion ends all of the token's tasks")
        #expect(harness.scheduler.pendingWorkCount == 0)
    }

    @Test func completionCheckMayCallBackIntoTheManager() {
        let harness = Harness()
        let reentrant = ReentrantToken(manager: harness.manager)
        harness.manager.beganNetworkTask(withToken: reentrant)
        harness.advance(by: 1)
        #expect(reentrant.observedCounts == [1], "the check ran without the lock held")
        withExtendedLifetime(reentrant) {}
    }

    @Test func heldCompletedURLSessionTaskEndsAtTheNextSweep() async throws {
        let server = try LocalHTTPServer()
        let harness = Harness()
        let session = URLSession(configuration: .ephemeral)
        let done = AsyncStream.makeStream(of: Void.self)
        let task = session.dataTask(with: server.url("/delay/50")) { _, _, _ in
            done.continuation.yield()
        }
        harness.manager.track(task)
        task.resume()
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 1)

        for await _ in done.stream { break }
        // The completion handler may run before the task's state reads `.completed`.
        await eventually { task.state == .completed }
        #expect(task.state == .completed)
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0, "ended by its completed state while still held")
        #expect(harness.manager.activitySnapshot().activities.isEmpty)
        session.finishTasksAndInvalidate()
    }

    /// An operation that finishes inside the start delay never shows the indicator, though the
    /// sweep that notices it is due with the delay (both one second here).
    @Test func anOperationFinishedInsideTheStartDelayNeverShows() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 1
        manager.settings.completionCheckInterval = 1
        let output = RecordingNetworkIndicatorOutput()
        manager.addOutput(output)
        let operation = BlockOperation {}
        manager.beganNetworkTask(withToken: operation)
        scheduler.runPendingWork()
        scheduler.advance(by: 0.3)
        operation.start()
        scheduler.advance(by: 2)
        #expect(manager.activeTaskCount == 0)
        #expect(output.visibilityChanges == [false], "no flash")
        withExtendedLifetime(operation) {}
    }

    /// An `Operation` begun during the hide delay and found finished by the sweep due with that
    /// delay: the indicator hides a whole completion delay after it ended, not at the delay it
    /// interrupted.
    @Test func anOperationSweptAsTheHideDelayEndsHoldsTheIndicatorAWholeDelay() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 0
        manager.settings.completionDelay = 1
        manager.settings.completionCheckInterval = 0.5
        let output = RecordingNetworkIndicatorOutput()
        manager.addOutput(output)
        var first: NetworkActivityToken? = manager.beganNetworkTask()
        scheduler.runPendingWork()
        first = nil
        scheduler.runPendingWork()  // the hide delay runs until 1
        scheduler.advance(by: 0.5)
        let operation = BlockOperation {}
        manager.beganNetworkTask(withToken: operation)
        scheduler.runPendingWork()  // its sweep is due at 1 too
        operation.start()
        scheduler.advance(by: 0.5)
        #expect(manager.activeTaskCount == 0, "swept at 1")
        scheduler.advance(by: 0.9)
        #expect(output.visibilityChanges == [false, true], "still shown 0.9 s after it ended")
        scheduler.advance(by: 0.1)
        #expect(output.visibilityChanges == [false, true, false])
        withExtendedLifetime((first, operation)) {}
    }
}

/// Reads the manager's count from inside its completion check.
private final class ReentrantToken: NetworkActivityCompletionReporting, Sendable {
    let manager: NetworkIndicatorManager
    private let counts = LockedState<[Int]>([])
    init(manager: NetworkIndicatorManager) { self.manager = manager }
    var observedCounts: [Int] { counts.withLock { $0 } }
    var isNetworkActivityFinished: Bool {
        let count = manager.activeTaskCount
        counts.withLock { $0.append(count) }
        return false
    }
}
