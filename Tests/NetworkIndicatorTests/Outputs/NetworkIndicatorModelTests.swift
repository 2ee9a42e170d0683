import NetworkIndicatorTesting
import Observation
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Observable model")
struct NetworkIndicatorModelTests {
    @Test func aNewModelShowsNoIndicatorAndNoTasks() {
        let model = NetworkIndicatorModel()
        #expect(!model.isVisible)
        #expect(model.activeTaskCount == 0)
    }

    @Test func modelFollowsTheManager() {
        let harness = Harness()
        let model = NetworkIndicatorModel(manager: harness.manager)
        #expect(!model.isVisible)
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(model.isVisible)
        #expect(model.activeTaskCount == 2)
        harness.manager.resetNetworkActivity()
        harness.settle()
        #expect(!model.isVisible)
        #expect(model.activeTaskCount == 0)
    }

    /// Removing the model from a manager it is not in leaves it where it is, and it still
    /// leaves that manager when it moves.
    @Test func removingTheModelFromAnotherManagerKeepsItAttached() {
        let harness = Harness()
        let model = NetworkIndicatorModel(manager: harness.manager)
        let other = NetworkIndicatorManager(scheduler: harness.scheduler)
        other.removeOutput(model)
        #expect(harness.manager.outputs.contains { $0 === model })
        let third = NetworkIndicatorManager(scheduler: harness.scheduler)
        third.addOutput(model)
        #expect(!harness.manager.outputs.contains { $0 === model }, "moved, so it left the first")
    }

    @Test func aModelAddedToASecondManagerLeavesTheFirst() {
        let harness = Harness()
        let model = NetworkIndicatorModel(manager: harness.manager)
        let other = NetworkIndicatorManager(scheduler: harness.scheduler)
        other.addOutput(model)
        #expect(!harness.manager.outputs.contains { $0 === model })
        other.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(model.activeTaskCount == 1, "the second manager's count only")
    }

    /// "added to a second manager, it leaves the first (erased at once, then drawn for the
    /// second's load only) … NetworkIndicatorModel does the same." (HowOverlaysDecide.md:31-34)
    @Test func aModelMovedFromABusyManagerToAnIdleOneShowsNothing() {
        let harness = Harness()
        let loader = Token()
        harness.manager.beganNetworkTask(withToken: loader, progress: progress(1, of: 2))
        harness.settle()
        harness.advance(by: 0.1)
        let model = NetworkIndicatorModel(manager: harness.manager)
        #expect(model.isVisible && model.activeTaskCount == 1 && model.fractionCompleted == 0.5)
        let idle = NetworkIndicatorManager(scheduler: harness.scheduler)
        idle.addOutput(model)
        #expect(!model.isVisible)
        #expect(model.activeTaskCount == 0)
        #expect(model.fractionCompleted == nil)
        harness.advance(by: 1)
        #expect(!model.isVisible && model.activeTaskCount == 0 && model.fractionCompleted == nil)
        withExtendedLifetime(loader) {}
    }

    @Test func theModelDoesNotKeepItsManagerAlive() {
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: Harness().scheduler)
        let released = WeakReference(manager)
        let model = NetworkIndicatorModel(manager: manager!)
        manager = nil
        withExtendedLifetime(model) { #expect(released.object == nil) }
    }

    @Test func observersAreToldOfChanges() {
        let harness = Harness()
        let model = NetworkIndicatorModel(manager: harness.manager)
        let changed = LockedState(0)
        withObservationTracking {
            _ = model.isVisible
        } onChange: {
            changed.withLock { $0 += 1 }
        }
        harness.manager.pushNetworkActivity()
        #expect(changed.withLock { $0 } == 0, "nothing before the main-queue hop")
        harness.settle()
        #expect(changed.withLock { $0 } == 1)
    }

    @Test func countChangesNotifyCountObserversOnly() {
        let harness = Harness()
        let model = NetworkIndicatorModel(manager: harness.manager)
        harness.manager.pushNetworkActivity()
        harness.settle()
        let visibilityChanged = LockedState(false)
        let countChanged = LockedState(false)
        withObservationTracking {
            _ = model.isVisible
        } onChange: {
            visibilityChanged.withLock { $0 = true }
        }
        withObservationTracking {
            _ = model.activeTaskCount
        } onChange: {
            countChanged.withLock { $0 = true }
        }
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(countChanged.withLock { $0 })
        #expect(!visibilityChanged.withLock { $0 })
    }

    @Test func modelAttachedLateCatchesUpWithTheCount() {
        let harness = Harness()
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        let model = NetworkIndicatorModel(manager: harness.manager)
        #expect(model.isVisible)
        harness.settle()
        #expect(model.activeTaskCount == 3)
    }

    /// A scope released while its download runs: a model (and any progress listener) that
    /// follows the scope is told the scope has no determinate work any more, as it is told
    /// `false` and `0`, and shows no stale bar.
    @Test func aReleasedScopesModelLosesItsFraction() {
        let harness = Harness()
        var scope: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let model = NetworkIndicatorModel(manager: scope!)
        let download = progress(5, of: 10)
        let loader = Token()
        scope!.beganNetworkTask(withToken: loader, progress: download)
        harness.settle()
        harness.advance(by: 0.2)
        #expect(model.fractionCompleted == 0.5)
        scope = nil
        harness.settle()
        harness.advance(by: 0.5)
        #expect(!model.isVisible && model.activeTaskCount == 0)
        #expect(model.fractionCompleted == nil)
        withExtendedLifetime(loader) {}
    }

    /// A model moved from a scope released in the same turn to a sibling scope follows the
    /// sibling only: the released scope's late goodbye (`false`, `0`, no fraction) is not its.
    @Test func aModelMovedOffAReleasedScopeKeepsItsNewScopesValues() {
        let harness = Harness()
        var old: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Old")
        let new = NetworkIndicatorManager(parent: harness.manager, label: "New")
        let (oldLoader, newLoader) = (Token(), Token())
        let model = NetworkIndicatorModel(manager: old!)
        old!.beganNetworkTask(withToken: oldLoader, progress: progress(5, of: 10))
        new.beganNetworkTask(withToken: newLoader, progress: progress(3, of: 10))
        harness.settle()
        harness.advance(by: 0.2)
        #expect(model.fractionCompleted == 0.5)
        old = nil
        new.addOutput(model)
        harness.settle()
        harness.advance(by: 0.5)
        #expect(model.fractionCompleted == 0.3)
        #expect(model.isVisible && model.activeTaskCount == 1)
        withExtendedLifetime((oldLoader, newLoader)) {}
    }

    /// The same move to a manager of another tree (another root, as an app's second window's
    /// might be): the old manager's goodbye, queued when it went, is not for the model either.
    @Test func aModelMovedOffAReleasedManagerToAnotherTreeKeepsItsValues() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var old: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let other = NetworkIndicatorManager(scheduler: scheduler)
        let model = NetworkIndicatorModel(manager: old!)
        old!.pushNetworkActivity()
        other.pushNetworkActivity()
        scheduler.runPendingWork()
        old = nil  // its removal is queued on the main queue
        other.addOutput(model)
        scheduler.runPendingWork()
        #expect(model.isVisible && model.activeTaskCount == 1)
    }
}
