import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Owner-bound closure observations: the hops they ask for, and a cancel from anywhere (the
/// lifetime rules are in `OwnerBoundObservationTests`).
@MainActor
@Suite("Closure observations")
struct ObservationTests {
    /// The object the observations last as long as.
    private final class Owner {}

    private let owner = Owner()

    /// The package's overlays hear each change of `isEnabled`, visible or not, and nothing else;
    /// a visibility observation hears no change of its own value.
    @Test func anEnabledObservationHearsEachChangeOfIsEnabledOnly() {
        let harness = Harness(startDelay: 600)
        var enabled: [Bool] = []
        var visible: [Bool] = []
        harness.manager.observeEnabled(owner: owner) { _, isEnabled in enabled.append(isEnabled) }
        harness.manager.observeVisibility(owner: owner) { _, isVisible in visible.append(isVisible) }
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.settings.isEnabled = false
        harness.settle()
        harness.manager.settings.completionDelay = 3
        harness.settle()
        #expect(enabled == [false])
        #expect(visible == [false], "the indicator waited for its start delay: no visibility changed")
        harness.manager.settings.isEnabled = true
        harness.settle()
        #expect(enabled == [false, true])
    }

    @Test func aVisibilityObservationIsNotToldCounts() {
        let harness = Harness()
        var seen: [Bool] = []
        harness.manager.observeVisibility(owner: owner) { _, isVisible in seen.append(isVisible) }
        let hops = harness.scheduler.enqueuedWorkCount
        harness.manager.pushNetworkActivity()
        harness.settle()
        for _ in 0..<5 {
            harness.manager.pushNetworkActivity()
            harness.settle()
        }
        #expect(seen == [false, true])
        #expect(harness.scheduler.enqueuedWorkCount == hops + 1, "one hop, for the edge; none per count")
    }

    @Test func cancellingFromTheClosureItselfStopsLaterCalls() {
        let harness = Harness()
        var seen: [Bool] = []
        var observation: NetworkIndicatorObservation?
        observation = harness.manager.observeVisibility(owner: owner) { _, isVisible in
            seen.append(isVisible)
            if isVisible { observation?.cancel() }
        }
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        harness.manager.finishedNetworkTask(forToken: token)
        harness.settle()
        #expect(seen == [false, true])
        #expect(observation?.isCancelled == true)
    }

    /// "the closure is not called again, even by a delivery already under way"
    /// (NetworkIndicatorObservation.swift:56)
    @Test func anObservationCancelledByAnEarlierOutputMissesThatDelivery() {
        let harness = Harness()
        var observation: NetworkIndicatorObservation?
        let canceller = ClosureObserver(.visibility { _ in observation?.cancel() })
        harness.manager.addOutput(canceller)
        var seen: [Bool] = []
        observation = harness.manager.observeVisibility(owner: owner) { _, isVisible in seen.append(isVisible) }
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(seen == [false], "cancelled by the output told before it")
        #expect(observation?.isCancelled == true)
    }

    @Test func anObservationThatOutlivesItsManagerIsHarmless() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var seen: [Bool] = []
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        manager?.settings.completionDelay = 0
        let observation = manager!.observeVisibility(owner: owner) { _, isVisible in seen.append(isVisible) }
        manager?.pushNetworkActivity()
        scheduler.runPendingWork()
        manager = nil
        scheduler.runPendingWork()
        #expect(seen == [false, true, false], "told the indicator is gone")
        observation.cancel()
        #expect(observation.isCancelled)
    }

    @Test func removingAPlainOutputLeavesTheCountObserversAsTheyWere() {
        // Detaching an output that never asked for counts changes nothing about who asks.
        let harness = Harness()
        let plain = RecordingNetworkIndicatorOutput()
        harness.manager.addOutput(plain)
        harness.manager.removeOutput(plain)
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(harness.hopsForTenCountChanges() == 0, "nobody asks for counts")
        harness.manager.observeActiveTaskCount(owner: owner) { _, _ in }
        harness.manager.addOutput(plain)
        harness.manager.removeOutput(plain)
        harness.settle()  // the observation's catch-up with the count
        #expect(harness.hopsForTenCountChanges() == 10, "the count observation still asks")
    }

    @Test func cancellingOneCountObservationLeavesTheOtherAsking() {
        let harness = Harness()
        harness.manager.observeActiveTaskCount(owner: owner) { _, _ in }
        let cancelled = harness.manager.observeActiveTaskCount(owner: owner) { _, _ in }
        cancelled.cancel()
        harness.manager.pushNetworkActivity()
        harness.settle()  // this delivery finds one observer gone, and only one
        #expect(harness.hopsForTenCountChanges() == 10, "the other observation still asks")
    }

    @Test func aCountObservationAsksForAHopPerCountUntilCancelled() {
        let harness = Harness()
        let observation = harness.manager.observeActiveTaskCount(owner: owner) { _, _ in }
        #expect(harness.hopsForTenCountChanges() == 10, "one hop per count change while it lives")
        observation.cancel()
        harness.manager.pushNetworkActivity()
        harness.settle()  // this delivery finds the observer gone
        #expect(harness.hopsForTenCountChanges() == 0, "count changes away from zero need no hop")
    }
}
