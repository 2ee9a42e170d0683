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

    @Test func theModelKnowsTheManagerItIsAttachedTo() {
        // What NetworkIndicatorUI's model-based overlay follows.
        let harness = Harness()
        let model = NetworkIndicatorModel(manager: harness.manager)
        #expect(model.attachedManager === harness.manager)
        let other = NetworkIndicatorManager(scheduler: harness.scheduler)
        other.removeOutput(model)
        #expect(model.attachedManager === harness.manager, "removed from a manager it was not in")
        harness.manager.removeOutput(model)
        #expect(model.attachedManager == nil)
        other.addOutput(model)
        #expect(model.attachedManager === other)
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
        #expect(model.attachedManager === other)
    }

    /// The model-based overlay reads `attachedManager` in its body: attaching the model later,
    /// or moving it, must redraw the view.
    @Test func attachingOrMovingTheModelTellsItsObservers() {
        let harness = Harness()
        let model = NetworkIndicatorModel()
        let changes = LockedState(0)
        func observe() {
            withObservationTracking {
                _ = model.attachedManager
            } onChange: {
                changes.withLock { $0 += 1 }
            }
        }
        observe()
        harness.manager.addOutput(model)
        #expect(changes.withLock { $0 } == 1, "attached after the view read it")
        observe()
        let other = NetworkIndicatorManager(scheduler: harness.scheduler)
        other.addOutput(model)
        #expect(changes.withLock { $0 } == 2, "moved")
        #expect(model.attachedManager === other)
        observe()
        other.removeOutput(model)
        #expect(changes.withLock { $0 } == 3, "detached")
    }

    @Test func theModelDoesNotKeepItsManagerAlive() {
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: Harness().scheduler)
        let model = NetworkIndicatorModel(manager: manager!)
        manager = nil
        #expect(model.attachedManager == nil)
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
}
