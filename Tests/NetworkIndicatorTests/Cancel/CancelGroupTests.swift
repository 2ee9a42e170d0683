import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// `cancelNetworkTasks()` and groups: the operations end, the handler hears it.
@Suite("Cancelling groups")
struct CancelGroupTests {
    private func makeManager(diagnostics: DiagnosticsRecorder? = nil) -> NetworkIndicatorManager {
        NetworkIndicatorManager(
            scheduler: ManualNetworkIndicatorScheduler(),
            diagnosticsHandler: diagnostics?.handler ?? ignoreDiagnostics
        )
    }

    @Test func aGroupsOperationsEndAndItsHandlerIsToldOnce() {
        let manager = makeManager()
        let group = NetworkActivityGroup(manager: manager, label: "feed")
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        group.operationStarted()
        manager.cancelNetworkTasks()
        #expect(told.value == 1)
        #expect(group.activeOperationCount == 0)
        #expect(manager.activeTaskCount == 0)
    }

    @Test func aGroupWithNothingOpenIsNotTold() {
        let manager = makeManager()
        let group = NetworkActivityGroup(manager: manager)
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        manager.cancelNetworkTasks()
        #expect(told.value == 0)
    }

    @Test func aGroupOfAChildScopeIsToldByItsAncestorsCancel() {
        let root = makeManager()
        let screen = NetworkIndicatorManager(parent: root, label: "screen")
        let group = NetworkActivityGroup(manager: screen)
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        root.cancelNetworkTasks()
        #expect(told.value == 1)
        #expect(root.activeTaskCount == 0)
    }

    @Test func lateFinishesOfCancelledOperationsAreAbsorbed() {
        let diagnostics = DiagnosticsRecorder()
        let manager = makeManager(diagnostics: diagnostics)
        let group = NetworkActivityGroup(manager: manager, label: "feed")
        group.operationStarted()
        group.operationStarted()
        manager.cancelNetworkTasks()
        group.operationFinished()
        group.operationFinished()
        #expect(diagnostics.kinds.isEmpty)
        group.operationFinished()
        #expect(diagnostics.kinds == [.groupFinishWithoutStart])
    }

    /// A refresh: the cancel stops the old load, a new one starts at once, and the old load's
    /// completion arrives after it. That finish is the cancelled one's, absorbed: the new load
    /// stays counted until its own finish.
    @Test func aLateFinishAfterANewOperationBeganIsAbsorbedNotTakenFromIt() {
        let diagnostics = DiagnosticsRecorder()
        let manager = makeManager(diagnostics: diagnostics)
        let group = NetworkActivityGroup(manager: manager, label: "feed")
        group.operationStarted()
        manager.cancelNetworkTasks()
        group.operationStarted()  // the refresh
        group.operationFinished()  // the cancelled load's completion, late
        #expect(group.activeOperationCount == 1)
        #expect(manager.activeTaskCount == 1)
        group.operationFinished()  // the refresh's own
        #expect(manager.activeTaskCount == 0)
        #expect(diagnostics.kinds.isEmpty)
    }

    @Test func theHandlerMayCallBackIntoTheManager() {
        let manager = makeManager()
        let group = NetworkActivityGroup(manager: manager)
        let seen = LockedStateBox<Int?>(nil)
        group.cancellationHandler = { [manager] in seen.update { $0 = manager.activeTaskCount } }
        group.operationStarted()
        manager.cancelNetworkTasks()
        #expect(seen.read() == 0, "told after the operations ended, outside the lock")
    }

    @Test func cancelOperationsDoesNotCallTheHandler() {
        let manager = makeManager()
        let group = NetworkActivityGroup(manager: manager)
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        group.cancelOperations()
        #expect(told.value == 0)
        group.cancellationHandler = nil
        #expect(group.cancellationHandler == nil)
    }
}
