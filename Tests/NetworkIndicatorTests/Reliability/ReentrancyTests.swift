import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// An output that does everything a callback might do to the manager that called it.
@MainActor
private final class MeddlingOutput: NetworkIndicatorOutput {
    unowned let manager: NetworkIndicatorManager
    var observed: [(isVisible: Bool, count: Int)] = []
    var heldToken: NetworkActivityToken?
    let companion = RecordingNetworkIndicatorOutput()

    init(manager: NetworkIndicatorManager) { self.manager = manager }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        observed.append((isVisible, manager.activeTaskCount))
        _ = manager.isIndicatorVisible
        _ = manager.activitySnapshot()
        if isVisible {
            heldToken = manager.beganNetworkTask(label: "begun by the output")
            manager.addOutput(companion)
            manager.pushNetworkActivity()
            manager.popNetworkActivity()
        } else {
            manager.removeOutput(companion)
        }
    }
}

/// Removes itself from its manager on its second callback.
@MainActor
private final class SelfRemovingOutput: NetworkIndicatorOutput {
    unowned let manager: NetworkIndicatorManager
    var calls = 0
    init(manager: NetworkIndicatorManager) { self.manager = manager }
    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        calls += 1
        if calls == 2 { manager.removeOutput(self) }
    }
}

@MainActor
@Suite("Re-entrancy")
struct ReentrancyTests {
    @Test func outputCallingBackIntoTheManagerNeitherDeadlocksNorLosesUpdates() {
        let harness = Harness()
        let meddler = MeddlingOutput(manager: harness.manager)
        harness.manager.addOutput(meddler)
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.settle()
        #expect(meddler.observed.map(\.isVisible) == [false, true])
        #expect(meddler.companion.visibilityChanges == [true], "added during the delivery, told the current value")
        #expect(harness.manager.activeTaskCount == 2)

        token = nil
        meddler.heldToken = nil
        harness.settle()
        #expect(meddler.observed.map(\.isVisible) == [false, true, false])
        #expect(harness.manager.outputs.count == 2)
        #expect(harness.visibilityChanges == [false, true, false])
        _ = token
    }

    @Test func outputRemovingItselfDuringDeliveryIsFine() {
        let harness = Harness()
        let selfRemoving = SelfRemovingOutput(manager: harness.manager)
        harness.manager.addOutput(selfRemoving)
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.popNetworkActivity()
        harness.settle()
        #expect(selfRemoving.calls == 2)
        #expect(harness.manager.outputs.count == 1)
        #expect(harness.visibilityChanges == [false, true, false])
    }

    @Test func streamConsumerEndingDuringDeliveryIsFine() async {
        let harness = Harness()
        let stream = harness.manager.visibilityUpdates()
        harness.settle()
        let consumer = Task { for await _ in stream {} }
        consumer.cancel()
        harness.manager.pushNetworkActivity()
        harness.settle()
        await consumer.value
        #expect(harness.visibilityChanges == [false, true])
    }
}
