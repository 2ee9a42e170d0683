import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// Work that no longer counts but goes on (a live stream after its headers) is still its
/// screen's: `cancelNetworkTasks()` reaches it until it is released.
@Suite("Cancellable work that no longer counts")
struct UncountedWorkTests {
    private func makeManager(diagnostics: DiagnosticsRecorder? = nil) -> NetworkIndicatorManager {
        NetworkIndicatorManager(
            scheduler: ManualNetworkIndicatorScheduler(),
            diagnosticsHandler: diagnostics?.handler ?? ignoreDiagnostics
        )
    }

    @Test func anOperationThatStoppedCountingNoLongerCountsButIsStillCancelled() {
        let manager = makeManager()
        let group = NetworkActivityGroup(manager: manager, label: "live feed")
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        group.operationStoppedCounting()
        #expect(manager.activeTaskCount == 0, "the spinner is off")
        #expect(group.activeOperationCount == 0)
        manager.cancelNetworkTasks()
        #expect(told.value == 1, "the screen's cancel reaches the work")
        manager.cancelNetworkTasks()
        #expect(told.value == 1, "a cancel reaches it once")
    }

    /// The cancelled operation's own late call (its stream's headers arrived as the cancel ran)
    /// is absorbed: the handler, already told, is not told again at the next cancel, which
    /// would stop the client's next stream.
    @Test func aCancelledOperationsLateStopIsAbsorbed() {
        let diagnostics = DiagnosticsRecorder()
        let manager = makeManager(diagnostics: diagnostics)
        let group = NetworkActivityGroup(manager: manager, label: "live feed")
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        manager.cancelNetworkTasks()
        #expect(told.value == 1)
        group.operationStoppedCounting()
        manager.cancelNetworkTasks()
        #expect(told.value == 1, "nothing open and nothing stopped counting since the cancel")
        #expect(diagnostics.all.isEmpty, "a late call of a cancelled operation is silent")
    }

    @Test func anAncestorsCancelReachesAScopesUncountedWork() {
        let manager = makeManager()
        let screen = NetworkIndicatorManager(parent: manager, label: "feed")
        let group = NetworkActivityGroup(manager: screen)
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        group.operationStoppedCounting()
        manager.cancelNetworkTasks()
        #expect(told.value == 1)
    }

    @Test func aSiblingsCancelLeavesItAlone() {
        let manager = makeManager()
        let feed = NetworkIndicatorManager(parent: manager, label: "feed")
        let profile = NetworkIndicatorManager(parent: manager, label: "profile")
        let group = NetworkActivityGroup(manager: feed)
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        group.operationStoppedCounting()
        profile.cancelNetworkTasks()
        #expect(told.value == 0)
    }

    /// Counted operations and uncounted work of one group: one cancel tells its handler once.
    @Test func aGroupWithCountedAndUncountedWorkIsToldOnce() {
        let manager = makeManager()
        let group = NetworkActivityGroup(manager: manager)
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        group.operationStoppedCounting()
        group.operationStarted()
        #expect(manager.activeTaskCount == 1)
        manager.cancelNetworkTasks()
        #expect(told.value == 1)
        #expect(manager.activeTaskCount == 0)
    }

    @Test func stoppingAnOperationThatNeverStartedIsReportedAndHoldsNothing() {
        let diagnostics = DiagnosticsRecorder()
        let manager = makeManager(diagnostics: diagnostics)
        let group = NetworkActivityGroup(manager: manager, label: "feed")
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStoppedCounting()
        #expect(diagnostics.kinds == [.groupFinishWithoutStart])
        manager.cancelNetworkTasks()
        #expect(told.value == 0, "nothing was held")
    }

    /// One stop too many, with no operation open, is reported and does nothing: the work that
    /// stopped counting before it is still held, and the next cancel still tells the handler. (A
    /// finish with nothing open lets that work go: the client says the work is done.)
    @Test func aStopWithNothingOpenKeepsTheWorkHeldBeforeIt() {
        let diagnostics = DiagnosticsRecorder()
        let manager = makeManager(diagnostics: diagnostics)
        let group = NetworkActivityGroup(manager: manager, label: "feed")
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        group.operationStoppedCounting()
        group.operationStoppedCounting()  // one too many
        #expect(diagnostics.kinds == [.groupFinishWithoutStart])
        manager.cancelNetworkTasks()
        #expect(told.value == 1)
    }

    /// The work ends when the group goes: the manager holds it weakly, so a released group is
    /// neither kept alive nor told.
    @Test func aReleasedGroupIsNotKeptAlive() {
        let manager = makeManager()
        weak var released: NetworkActivityGroup?
        do {
            let group = NetworkActivityGroup(manager: manager)
            released = group
            group.operationStarted()
            group.operationStoppedCounting()
        }
        #expect(released == nil)
        manager.cancelNetworkTasks()
        #expect(manager.activeTaskCount == 0)
    }
}
