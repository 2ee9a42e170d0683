import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// "A new value applies to the next delay": a delay begins again when a task begins after every
/// task ended inside a start delay, or when every task ends again after one began during a hide
/// wait; that delay takes the values in force then, not those of the delay it replaces.
@MainActor
@Suite("Delay settings changed between delays")
struct DelaySettingsTests {
    /// Moves the harness's clock to the absolute time `time`.
    private func at(_ time: Double, _ harness: Harness) {
        harness.advance(by: time - harness.scheduler.now)
    }

    @Test func aLongerStartDelayAppliesToATaskBegunAfterTheLastOneEnded() {
        let harness = Harness(startDelay: 1)
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask()
        at(0.2, harness)
        first = nil
        harness.settle()
        harness.manager.settings.startDelay = 5
        harness.settle()
        at(0.4, harness)
        let second = harness.manager.beganNetworkTask()
        at(5.3, harness)
        #expect(harness.visibilityChanges == [false], "a new 5 s delay began at 0.4")
        at(5.4, harness)
        #expect(harness.visibilityChanges == [false, true])
        withExtendedLifetime((first, second)) {}
    }

    @Test func aStartDelayLoweredToZeroShowsTheNextTaskAtOnce() {
        let harness = Harness(startDelay: 10)
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask()
        at(0.1, harness)
        first = nil
        harness.settle()
        harness.manager.settings.startDelay = 0
        harness.settle()
        at(0.5, harness)
        let second = harness.manager.beganNetworkTask()
        harness.settle()
        #expect(harness.visibilityChanges == [false, true])
        withExtendedLifetime((first, second)) {}
    }

    @Test func aLongerCompletionDelayAppliesToTheHideAfterACancelledOne() {
        let harness = Harness(completionDelay: 0.2)
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask()
        at(1, harness)
        first = nil
        harness.settle()
        at(1.05, harness)
        var second: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.settle()
        harness.manager.settings.completionDelay = 2
        harness.settle()
        at(1.15, harness)
        second = nil
        harness.settle()
        at(3.1, harness)
        #expect(harness.visibilityChanges == [false, true], "the hide begun at 1.15 waits 2 s")
        at(3.15, harness)
        #expect(harness.visibilityChanges == [false, true, false])
        withExtendedLifetime((first, second)) {}
    }

    @Test func aLongerMinimumVisibleDurationAppliesToTheNextHide() {
        let harness = Harness(completionDelay: 0.2)
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask()
        at(1, harness)
        first = nil
        harness.settle()
        at(1.05, harness)
        var second: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.settle()
        harness.manager.settings.minimumVisibleDuration = 5
        harness.settle()
        at(1.15, harness)
        second = nil
        harness.settle()
        at(4.9, harness)
        #expect(harness.visibilityChanges == [false, true], "shown at 0, kept at least 5 s")
        at(5, harness)
        #expect(harness.visibilityChanges == [false, true, false])
        withExtendedLifetime((first, second)) {}
    }

    /// An end and a begin in one turn (a completion handler that starts the next request) inside
    /// a start delay whose setting changed: the begin starts a 5 s delay at 0.9.
    @Test func anEndAndABeginInOneTurnAfterAStartDelayChange() {
        let harness = Harness(startDelay: 1)
        harness.manager.pushNetworkActivity()
        harness.settle()
        at(0.5, harness)
        harness.manager.settings.startDelay = 5
        harness.settle()
        at(0.9, harness)
        harness.manager.popNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        at(5.8, harness)
        #expect(harness.visibilityChanges == [false])
        at(5.9, harness)
        #expect(harness.visibilityChanges == [false, true])
    }

    /// A begin and an end in one turn inside a hide wait whose setting changed: the end starts
    /// a 2 s wait at 1.1.
    @Test func aBeginAndAnEndInOneTurnAfterACompletionDelayChange() {
        let harness = Harness(completionDelay: 0.2)
        harness.manager.pushNetworkActivity()
        harness.settle()
        at(1, harness)
        harness.manager.popNetworkActivity()
        harness.settle()
        at(1.05, harness)
        harness.manager.settings.completionDelay = 2
        harness.settle()
        at(1.1, harness)
        harness.manager.pushNetworkActivity()
        harness.manager.popNetworkActivity()
        harness.settle()
        at(3.05, harness)
        #expect(harness.visibilityChanges == [false, true])
        at(3.1, harness)
        #expect(harness.visibilityChanges == [false, true, false])
    }

    /// The common case keeps its cost: unchanged values are absorbed, with no hop.
    @Test func anEdgeInsideADelayWithUnchangedSettingsAsksNoHop() {
        let harness = Harness(startDelay: 1)
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask()
        at(0.2, harness)
        first = nil
        harness.settle()
        let hops = harness.scheduler.enqueuedWorkCount
        let second = harness.manager.beganNetworkTask()
        #expect(harness.scheduler.enqueuedWorkCount == hops)
        at(1.2, harness)
        #expect(harness.visibilityChanges == [false, true], "the delay begun again at 0.2")
        withExtendedLifetime((first, second)) {}
    }
}
