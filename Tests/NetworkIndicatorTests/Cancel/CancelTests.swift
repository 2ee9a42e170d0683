import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// `cancelNetworkTasks()` on tokens that need no network: operations, a caller's cancellable
/// token, groups, scopes, and the work that has nothing to cancel. Public API only.
@MainActor
@Suite("Cancelling a scope's work")
struct CancelTests {
    /// A caller's token that counts its cancels.
    final class Work: NetworkActivityCancellable, Sendable {
        private let cancels = LockedCounter()
        var cancelCount: Int { cancels.value }
        func cancel() { cancels.increment() }
    }

    private func makeManager(diagnostics: DiagnosticsRecorder? = nil) -> NetworkIndicatorManager {
        let manager = NetworkIndicatorManager(
            scheduler: ManualNetworkIndicatorScheduler(),
            diagnosticsHandler: diagnostics?.handler ?? ignoreDiagnostics
        )
        manager.settings.completionCheckInterval = 3600  // no sweep can end anything here
        return manager
    }

    @Test func operationsAreCancelledAndTheirTasksEndAtOnce() {
        let manager = makeManager()
        let first = BlockOperation {}
        let second = BlockOperation {}
        manager.beganNetworkTask(withToken: first)
        manager.beganNetworkTask(withToken: second)
        manager.beganNetworkTask(withToken: second)
        manager.cancelNetworkTasks()
        #expect(first.isCancelled)
        #expect(second.isCancelled)
        #expect(manager.activeTaskCount == 0, "ended by the cancel, not at a sweep")
    }

    @Test func aCallersCancellableTokenIsCancelledOnceAndEnds() {
        let manager = makeManager()
        let work = Work()
        manager.beganNetworkTask(withToken: work)
        manager.beganNetworkTask(withToken: work)
        manager.cancelNetworkTasks()
        #expect(work.cancelCount == 1)
        #expect(manager.activeTaskCount == 0)
        manager.cancelNetworkTasks()
        #expect(work.cancelCount == 1, "a second cancel finds nothing open")
    }

    /// Work with nothing to cancel stays counted until its own finish, which ends it even while
    /// a cancelled token that lives on may still send its late finish.
    @Test func workWithNothingToCancelStaysCounted() {
        let manager = makeManager()
        let opaque = manager.beganNetworkTask(label: "opaque")
        manager.pushNetworkActivity()
        let plain = NSObject()
        manager.beganNetworkTask(withToken: plain)
        let cancelled = Work()
        manager.beganNetworkTask(withToken: cancelled)
        manager.cancelNetworkTasks()
        #expect(manager.activeTaskCount == 3)
        manager.popNetworkActivity()
        manager.finishedNetworkTask(forToken: plain)
        #expect(manager.activeTaskCount == 1)
        withExtendedLifetime((opaque, cancelled)) {}
    }

    @Test func aCancelWithNothingOpenChangesNothing() {
        let manager = makeManager()
        manager.cancelNetworkTasks()
        #expect(manager.activeTaskCount == 0)
        let work = Work()
        manager.beganNetworkTask(withToken: work)
        #expect(manager.activeTaskCount == 1, "a later begin counts as usual")
    }

    @Test func childScopesAreCancelledButAnAncestorsOwnTasksAreNot() {
        let root = makeManager()
        let screen = NetworkIndicatorManager(parent: root, label: "screen")
        let row = NetworkIndicatorManager(parent: screen, label: "row")
        let rootWork = Work()
        let screenWork = Work()
        let rowWork = Work()
        root.beganNetworkTask(withToken: rootWork)
        screen.beganNetworkTask(withToken: screenWork)
        row.beganNetworkTask(withToken: rowWork)
        #expect(root.activeTaskCount == 3)
        screen.cancelNetworkTasks()
        #expect(screenWork.cancelCount == 1)
        #expect(rowWork.cancelCount == 1)
        #expect(rootWork.cancelCount == 0, "an ancestor's own task is never touched")
        #expect(screen.activeTaskCount == 0)
        #expect(row.activeTaskCount == 0)
        #expect(root.activeTaskCount == 1)
    }

    /// One piece of work counted in a screen and in its row (or in two rows) is one piece of
    /// work to stop: `cancel()` is called once per cancel, as `NetworkActivityCancellable`
    /// promises, however many managers of the subtree count it.
    @Test func workOpenInTwoManagersOfTheSubtreeIsCancelledOnce() {
        let root = makeManager()
        let screen = NetworkIndicatorManager(parent: root, label: "screen")
        let row = NetworkIndicatorManager(parent: screen, label: "row")
        let otherRow = NetworkIndicatorManager(parent: screen, label: "other row")
        let shared = Work()
        let rows = Work()
        screen.beganNetworkTask(withToken: shared)
        row.beganNetworkTask(withToken: shared)
        row.beganNetworkTask(withToken: rows)
        otherRow.beganNetworkTask(withToken: rows)
        screen.cancelNetworkTasks()
        #expect(shared.cancelCount == 1)
        #expect(rows.cancelCount == 1)
        #expect(root.activeTaskCount == 0)
    }

    @Test func aSiblingScopeIsLeftAlone() {
        let root = makeManager()
        let feed = NetworkIndicatorManager(parent: root, label: "feed")
        let profile = NetworkIndicatorManager(parent: root, label: "profile")
        let feedWork = Work()
        let profileWork = Work()
        feed.beganNetworkTask(withToken: feedWork)
        profile.beganNetworkTask(withToken: profileWork)
        feed.cancelNetworkTasks()
        #expect(feedWork.cancelCount == 1)
        #expect(profileWork.cancelCount == 0)
        #expect(profile.activeTaskCount == 1)
        #expect(root.activeTaskCount == 1)
    }

    @Test func theParentsIndicatorFollowsTheCancel() {
        let harness = Harness()
        let screen = NetworkIndicatorManager(parent: harness.manager, label: "screen")
        let work = Work()
        screen.beganNetworkTask(withToken: work)
        harness.settle()
        #expect(harness.visibilityChanges == [false, true])
        screen.cancelNetworkTasks()
        harness.settle()
        #expect(harness.visibilityChanges == [false, true, false])
    }

    @Test func aLateFinishOfACancelledTaskIsAbsorbedNotReported() {
        let diagnostics = DiagnosticsRecorder()
        let manager = makeManager(diagnostics: diagnostics)
        let operation = BlockOperation {}
        manager.beganNetworkTask(withToken: operation)
        manager.cancelNetworkTasks()
        manager.finishedNetworkTask(forToken: operation)  // its completion, arriving late
        #expect(diagnostics.kinds.isEmpty)
        manager.finishedNetworkTask(forToken: operation)  // one finish more than it began
        #expect(diagnostics.kinds == [.unknownFinish])
        #expect(manager.activeTaskCount == 0)
    }

    /// A reset ends everything, the cancel's memory included: a finish after it is reported, as
    /// every finish after a reset is.
    @Test func aFinishAfterAResetIsReportedEvenForACancelledTask() {
        let diagnostics = DiagnosticsRecorder()
        let manager = makeManager(diagnostics: diagnostics)
        let operation = BlockOperation {}
        manager.beganNetworkTask(withToken: operation)
        manager.cancelNetworkTasks()
        manager.resetNetworkActivity()
        manager.finishedNetworkTask(forToken: operation)
        #expect(diagnostics.kinds == [.unknownFinish])
    }

    /// A token of work that can run again (a retrying request) is cancelled and begun again
    /// before the cancelled run's finish arrives: that finish is absorbed, the new run stays.
    @Test func aLateFinishOfATokenBegunAgainIsAbsorbedNotTakenFromTheNewRun() {
        let manager = makeManager()
        let work = Work()
        manager.beganNetworkTask(withToken: work)
        manager.cancelNetworkTasks()
        manager.beganNetworkTask(withToken: work)
        manager.finishedNetworkTask(forToken: work)  // the cancelled run's, late
        #expect(manager.activeTaskCount == 1)
        manager.finishedNetworkTask(forToken: work)
        #expect(manager.activeTaskCount == 0)
    }

    @Test func aTokenBegunAgainAfterTheCancelIsANewTask() {
        let manager = makeManager()
        let work = Work()
        manager.beganNetworkTask(withToken: work)
        manager.cancelNetworkTasks()
        manager.beganNetworkTask(withToken: work)
        #expect(manager.activeTaskCount == 1)
        manager.cancelNetworkTasks()
        #expect(work.cancelCount == 2)
        #expect(manager.activeTaskCount == 0)
    }
}

/// A count behind a lock, for cancels that may arrive on any thread.
final class LockedCounter: Sendable {
    private let count = LockedStateBox(0)
    var value: Int { count.read() }
    func increment() { count.update { $0 += 1 } }
}

/// A value behind an `NSLock`, for tests that use the public API only.
final class LockedStateBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func read() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func update(_ body: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body(&value)
    }
}

/// A diagnostics handler that drops everything.
let ignoreDiagnostics: NetworkIndicatorDiagnosticsHandler = { _ in }
