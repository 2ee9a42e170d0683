import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A cancel records a group's failed parts where it ends their tasks: a reading at any moment
/// counts a cancelled part as failed and a finished one as done.
@Suite("Cancelled group parts")
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
