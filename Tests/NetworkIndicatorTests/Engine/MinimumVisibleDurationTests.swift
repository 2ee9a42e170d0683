import Testing

@testable import NetworkIndicator

@Suite("Minimum visible duration: the policy")
struct MinimumVisibleDurationPolicyTests {
    private func shown(at time: Double) -> VisibilityPolicy {
        var policy = VisibilityPolicy()
        _ = policy.activityChanged(isActive: true, now: time, startDelay: 0, completionDelay: 0)
        return policy
    }

    /// Everything ended at `now`.
    private func idle(
        _ policy: inout VisibilityPolicy,
        at now: Double,
        completionDelay: Double,
        minimum: Double
    ) -> VisibilityPolicy.TimerAction? {
        policy.activityChanged(
            isActive: false,
            now: now,
            startDelay: 0,
            completionDelay: completionDelay,
            minimumVisibleDuration: minimum
        )
    }

    @Test func idleSoonAfterShowingHidesWhenTheMinimumIsReached() {
        var policy = shown(at: 0)
        let actions = idle(&policy, at: 0.1, completionDelay: 0.2, minimum: 1)
        #expect(actions == .start(after: 0.9))
        #expect(policy.phase == .delayingHide)
        #expect(policy.timerFired(now: 1) == nil)
        #expect(policy.phase == .hidden)
    }

    @Test func aLongerCompletionDelayWins() {
        var policy = shown(at: 0)
        let actions = idle(&policy, at: 5, completionDelay: 0.2, minimum: 1)
        #expect(actions == .start(after: 0.2))
    }

    @Test func withoutACompletionDelayTheMinimumStillHolds() {
        var policy = shown(at: 0)
        let actions = idle(&policy, at: 0.3, completionDelay: 0, minimum: 0.5)
        #expect(actions == .start(after: 0.2))
    }

    @Test func aLateEndDuringTheHoldWaitsItsCompletionDelayPastTheHold() {
        var policy = shown(at: 0)
        _ = idle(&policy, at: 0.125, completionDelay: 0.25, minimum: 1)
        let begin = policy.absorbEdge(isActive: true, now: 0.5)
        let end = policy.absorbEdge(isActive: false, now: 0.875)
        #expect(begin && end, "edges during the hold are absorbed")
        #expect(policy.timerFired(now: 1) == .start(after: 0.125), "0.25 s after the last end")
        #expect(policy.timerFired(now: 1.125) == nil)
        #expect(policy.phase == .hidden)
    }

    @Test func taskStartingDuringTheHoldKeepsTheIndicator() {
        var policy = shown(at: 0)
        _ = idle(&policy, at: 0.1, completionDelay: 0, minimum: 1)
        #expect(
            policy.activityChanged(
                isActive: true,
                now: 0.5,
                startDelay: 0,
                completionDelay: 0,
                minimumVisibleDuration: 1
            )
                == .cancel
        )
        #expect(policy.phase == .visible)
    }

    @Test func theMinimumCountsFromTheLastShowing() {
        var policy = shown(at: 0)
        _ = policy.activityChanged(isActive: false, now: 0, startDelay: 0, completionDelay: 0)
        _ = policy.activityChanged(isActive: true, now: 10, startDelay: 0, completionDelay: 0)
        let actions = idle(&policy, at: 10.25, completionDelay: 0, minimum: 1)
        #expect(actions == .start(after: 0.75))
    }

    @Test func afterAStartDelayTheMinimumCountsFromWhenItShowed() {
        var policy = VisibilityPolicy()
        _ = policy.activityChanged(isActive: true, now: 0, startDelay: 1, completionDelay: 0)
        #expect(policy.timerFired(now: 1) == nil)
        #expect(policy.isVisible)
        let actions = idle(&policy, at: 1.5, completionDelay: 0, minimum: 1)
        #expect(actions == .start(after: 0.5))
    }

    @Test func disablingHidesAtOnceDuringTheHold() {
        var policy = shown(at: 0)
        _ = idle(&policy, at: 0.1, completionDelay: 0, minimum: 1)
        #expect(policy.enabledChanged(false, now: 0.2) == .cancel)
        #expect(!policy.isVisible)
    }
}

@MainActor
@Suite("Minimum visible duration through the manager")
struct MinimumVisibleDurationTests {
    @Test func aThirtyMillisecondRequestKeepsTheOverlayForTheMinimum() {
        let harness = Harness()
        harness.manager.settings.minimumVisibleDuration = 0.5
        #expect(harness.manager.settings.minimumVisibleDuration == 0.5)
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.settle()
        harness.advance(by: 0.03)
        token = nil
        harness.advance(by: 0.469)
        #expect(harness.visibilityChanges == [false, true])
        harness.advance(by: 0.001)
        #expect(harness.visibilityChanges == [false, true, false])
        _ = token
    }

    /// Enabled again while a task runs, the indicator shows at once, and the minimum counts
    /// from that moment, not from the task's begin while it was disabled.
    @Test func aReEnabledIndicatorStaysItsMinimumFromTheReEnable() {
        let harness = Harness()
        harness.manager.settings.minimumVisibleDuration = 0.5
        harness.manager.settings.isEnabled = false
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.advance(by: 2)
        harness.manager.settings.isEnabled = true
        harness.settle()
        #expect(harness.visibilityChanges == [false, true])
        harness.advance(by: 0.125)
        token = nil
        harness.advance(by: 0.25)
        #expect(harness.visibilityChanges == [false, true], "0.375 s after the re-enable")
        harness.advance(by: 0.125)
        #expect(harness.visibilityChanges == [false, true, false])
        _ = token
    }

    @Test func defaultIsZeroAndInvalidValuesAreReplacedAndReported() {
        let harness = Harness()
        #expect(harness.manager.settings.minimumVisibleDuration == 0)
        harness.manager.settings.minimumVisibleDuration = -1
        #expect(harness.manager.settings.minimumVisibleDuration == 0)
        #expect(harness.diagnostics.kinds == [.invalidSetting(name: "minimumVisibleDuration", replacement: 0)])
    }
}
