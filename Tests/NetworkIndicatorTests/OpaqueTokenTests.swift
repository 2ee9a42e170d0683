import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Opaque tokens")
struct OpaqueTokenTests {
    @Test func releasingOpaqueTokenHidesIndicatorWithoutSweep() {
        let harness = Harness()
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        #expect(harness.manager.activeTaskCount == 1)
        harness.settle()
        #expect(harness.visibilityChanges == [false, true])

        token = nil
        #expect(token == nil)
        #expect(harness.manager.activeTaskCount == 0)
        harness.settle()
        #expect(harness.visibilityChanges == [false, true, false])
        #expect(harness.scheduler.scheduledTimerCount == 0, "an opaque token needs no sweep timer")
    }

    @Test func finishingOpaqueTokenEndsItEarlyAndReleaseAddsNothing() {
        let harness = Harness()
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.manager.finishedNetworkTask(forToken: token!)
        #expect(harness.manager.activeTaskCount == 0)
        token = nil
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }

    @Test func opaqueTokenBegunAgainCountsTwiceAndDeathEndsBoth() {
        let harness = Harness()
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.manager.beganNetworkTask(withToken: token!)
        #expect(harness.manager.activeTaskCount == 2)
        harness.manager.finishedNetworkTask(forToken: token!)
        #expect(harness.manager.activeTaskCount == 1)
        token = nil
        #expect(harness.manager.activeTaskCount == 0)
    }

    /// Begun again after its task was finished, the token is still the manager's own: its death
    /// ends the new task at once, with no weak reference to sweep for.
    @Test func opaqueTokenBegunAgainAfterItsFinishIsStillOpaque() {
        let harness = Harness()
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.manager.finishedNetworkTask(forToken: token!)
        harness.manager.beganNetworkTask(withToken: token!)
        #expect(harness.manager.activitySnapshot().activities.map(\.kind) == [.opaqueToken])
        harness.settle()
        #expect(harness.scheduler.scheduledTimerCount == 0, "no sweep was scheduled")
        token = nil
        #expect(harness.manager.activeTaskCount == 0)
    }

    @Test func opaqueTokenReleasedOnAnotherThreadEndsTask() async {
        let harness = Harness()
        let token = harness.manager.beganNetworkTask()
        await Task.detached { withExtendedLifetime(token) {} }.value
        // The detached task's copy is gone; ours is the last one.
        #expect(harness.manager.activeTaskCount == 1)
        _ = consume token
        #expect(harness.manager.activeTaskCount == 0)
    }

    @Test func opaqueTokenOfAnotherManagerIsAWeakTokenHere() {
        let harness = Harness()
        let other = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        var token: NetworkActivityToken? = other.beganNetworkTask()
        harness.manager.beganNetworkTask(withToken: token!)
        #expect(harness.manager.activitySnapshot().activities.map(\.kind) == [.weakToken])
        token = nil
        #expect(other.activeTaskCount == 0)
        #expect(harness.manager.activeTaskCount == 1, "ends at the next sweep, like any weak token")
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
    }
}
