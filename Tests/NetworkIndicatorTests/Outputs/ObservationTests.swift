import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Closure observations: told at once and then every change for as long as the observation
/// lives; never lost silently, never leaking.
@MainActor
@Suite("Closure observations")
struct ObservationTests {
    /// Something a closure captures, to see when the closure is freed.
    private final class Capture {}

    @Test func visibilityIsToldAtOnceThenEveryChange() {
        let harness = Harness()
        var seen: [Bool] = []
        let observation = harness.manager.observeVisibility { seen.append($0) }
        #expect(seen == [false], "the current value, before observeVisibility returns")
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        harness.manager.finishedNetworkTask(forToken: token)
        harness.settle()
        #expect(seen == [false, true, false])
        withExtendedLifetime(observation) {}
    }

    @Test func aNewObservationOfAVisibleIndicatorHearsTrue() {
        let harness = Harness()
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        var seen: [Bool] = []
        let observation = harness.manager.observeVisibility { seen.append($0) }
        #expect(seen == [true])
        withExtendedLifetime((observation, token)) {}
    }

    @Test func countIsToldAtOnceThenEachNewCount() {
        let harness = Harness()
        var counts: [Int] = []
        let observation = harness.manager.observeActiveTaskCount { counts.append($0) }
        #expect(counts == [0])
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.resetNetworkActivity()
        harness.settle()
        #expect(counts == [0, 1, 2, 0])
        withExtendedLifetime(observation) {}
    }

    @Test func aVisibilityObservationIsNotToldCounts() {
        let harness = Harness()
        var seen: [Bool] = []
        let observation = harness.manager.observeVisibility { seen.append($0) }
        let hops = harness.scheduler.enqueuedWorkCount
        harness.manager.pushNetworkActivity()
        harness.settle()
        for _ in 0..<5 {
            harness.manager.pushNetworkActivity()
            harness.settle()
        }
        #expect(seen == [false, true])
        #expect(harness.scheduler.enqueuedWorkCount == hops + 1, "one hop, for the edge; none per count")
        withExtendedLifetime(observation) {}
    }

    @Test func droppingTheObservationStopsTheCallsAndFreesTheClosure() {
        let harness = Harness()
        var seen: [Bool] = []
        weak var captured: Capture?
        var observation: NetworkIndicatorObservation?
        do {
            let capture = Capture()
            captured = capture
            observation = harness.manager.observeVisibility {
                seen.append($0)
                _ = capture
            }
        }
        #expect(captured != nil, "the observation keeps its closure")
        observation = nil
        #expect(captured == nil, "released with the observation, at once")
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(seen == [false])
        _ = observation
    }

    @Test func cancelStopsTheCallsAndFreesTheClosure() {
        let harness = Harness()
        var counts: [Int] = []
        weak var captured: Capture?
        let observation: NetworkIndicatorObservation
        do {
            let capture = Capture()
            captured = capture
            observation = harness.manager.observeActiveTaskCount {
                counts.append($0)
                _ = capture
            }
        }
        #expect(!observation.isCancelled)
        observation.cancel()
        #expect(observation.isCancelled)
        #expect(captured == nil)
        harness.manager.pushNetworkActivity()
        harness.settle()
        observation.cancel()  // again: nothing
        #expect(counts == [0])
    }

    @Test func cancellingFromTheClosureItselfStopsLaterCalls() {
        let harness = Harness()
        var seen: [Bool] = []
        var observation: NetworkIndicatorObservation?
        observation = harness.manager.observeVisibility { isVisible in
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

    @Test func aClosureThatCapturesItsManagerLeaksNothing() {
        let scheduler = ManualNetworkIndicatorScheduler()
        weak var weakManager: NetworkIndicatorManager?
        var observation: NetworkIndicatorObservation?
        do {
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            weakManager = manager
            observation = manager.observeVisibility { _ in _ = manager.activeTaskCount }
        }
        #expect(weakManager != nil, "the closure, kept by the observation, keeps the manager")
        observation = nil
        scheduler.runPendingWork()
        #expect(weakManager == nil, "the manager's only owner was the closure")
        _ = observation
    }

    @Test func anObservationThatOutlivesItsManagerIsHarmless() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var seen: [Bool] = []
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        manager?.completionDelay = 0
        let observation = manager!.observeVisibility { seen.append($0) }
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
        let observation = harness.manager.observeActiveTaskCount { _ in }
        harness.manager.addOutput(plain)
        harness.manager.removeOutput(plain)
        harness.settle()  // the observation's catch-up with the count
        #expect(harness.hopsForTenCountChanges() == 10, "the count observation still asks")
        withExtendedLifetime(observation) {}
    }

    @Test func releasingOneCountObservationLeavesTheOtherAsking() {
        let harness = Harness()
        let kept = harness.manager.observeActiveTaskCount { _ in }
        var released: NetworkIndicatorObservation? = harness.manager.observeActiveTaskCount { _ in }
        released = nil
        harness.manager.pushNetworkActivity()
        harness.settle()  // this delivery finds one observer gone, and only one
        #expect(harness.hopsForTenCountChanges() == 10, "the kept observation still asks")
        withExtendedLifetime(kept) {}
        _ = released
    }

    @Test func aCountObservationAsksForAHopPerCountUntilReleased() {
        let harness = Harness()
        var observation: NetworkIndicatorObservation? = harness.manager.observeActiveTaskCount { _ in }
        #expect(harness.hopsForTenCountChanges() == 10, "one hop per count change while it lives")
        observation = nil
        harness.manager.pushNetworkActivity()
        harness.settle()  // this delivery finds the observer gone
        #expect(harness.hopsForTenCountChanges() == 0, "count changes away from zero need no hop")
        _ = observation
    }
}
