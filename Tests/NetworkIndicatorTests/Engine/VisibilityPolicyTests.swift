import Testing

@testable import NetworkIndicator

@Suite("Visibility policy state machine")
struct VisibilityPolicyTests {
    typealias Policy = VisibilityPolicy

    private func policy(in phase: Policy.Phase, startDelay: Double = 1, completionDelay: Double = 1) -> Policy {
        var policy = Policy()
        switch phase {
        case .hidden:
            break
        case .delayingStart:
            _ = policy.activityChanged(isActive: true, now: 0, startDelay: startDelay, completionDelay: completionDelay)
        case .visible:
            _ = policy.activityChanged(isActive: true, now: 0, startDelay: 0, completionDelay: completionDelay)
        case .delayingHide:
            _ = policy.activityChanged(isActive: true, now: 0, startDelay: 0, completionDelay: completionDelay)
            _ = policy.activityChanged(
                isActive: false,
                now: 0,
                startDelay: startDelay,
                completionDelay: completionDelay
            )
        }
        #expect(policy.phase == phase)
        return policy
    }

    @Test func hiddenShowsAtOnceWithoutStartDelay() {
        var policy = policy(in: .hidden)
        #expect(
            policy.activityChanged(isActive: true, now: 0, startDelay: 0, completionDelay: 1) == nil
        )
        #expect(policy.phase == .visible)
    }

    @Test func hiddenWaitsForStartDelay() {
        var policy = policy(in: .hidden)
        #expect(
            policy.activityChanged(isActive: true, now: 0, startDelay: 0.5, completionDelay: 1)
                == .start(after: 0.5)
        )
        #expect(policy.phase == .delayingStart)
        #expect(!policy.isVisible)
    }

    @Test func delayingStartShowsWhenTheDelayElapses() {
        var policy = policy(in: .delayingStart)
        #expect(policy.timerFired(now: 10) == nil)
        #expect(policy.phase == .visible)
    }

    @Test func taskEndingInsideStartDelayNeverShows() {
        var policy = policy(in: .delayingStart)
        #expect(
            policy.activityChanged(isActive: false, now: 0, startDelay: 1, completionDelay: 1) == .cancel
        )
        #expect(policy.phase == .hidden)
        #expect(policy.timerFired(now: 10) == nil, "a start delay that elapses after everything ended does nothing")
        #expect(policy.phase == .hidden)
    }

    @Test func visibleWaitsForCompletionDelay() {
        var policy = policy(in: .visible)
        #expect(
            policy.activityChanged(isActive: false, now: 0, startDelay: 1, completionDelay: 0.2)
                == .start(after: 0.2)
        )
        #expect(policy.phase == .delayingHide)
        #expect(policy.isVisible)
    }

    @Test func visibleHidesAtOnceWithoutCompletionDelay() {
        var policy = policy(in: .visible)
        #expect(
            policy.activityChanged(isActive: false, now: 0, startDelay: 1, completionDelay: 0)
                == nil
        )
        #expect(policy.phase == .hidden)
    }

    @Test func delayingHideHidesWhenTheDelayElapses() {
        var policy = policy(in: .delayingHide)
        #expect(policy.timerFired(now: 10) == nil)
        #expect(policy.phase == .hidden)
    }

    @Test func taskStartingDuringHideDelayCancelsTheHide() {
        var policy = policy(in: .delayingHide)
        #expect(
            policy.activityChanged(isActive: true, now: 0, startDelay: 1, completionDelay: 1) == .cancel
        )
        #expect(policy.phase == .visible)
        #expect(policy.timerFired(now: 10) == nil, "a late firing of the cancelled hide does nothing")
        #expect(policy.isVisible)
    }

    /// A delay timer that fires up to a microsecond before its deadline counts as on time (a
    /// scheduler's clock and the policy's sums round differently). In binary, 2e-6 - 1e-6 is
    /// exactly 1e-6, so the firing at 1e-6 falls exactly on that edge.
    @Test(arguments: [(Policy.Phase.delayingStart, true), (.delayingHide, false)])
    func aDelayThatFiresAMicrosecondEarlyCountsAsElapsed(phase: Policy.Phase, shows: Bool) {
        var onTheEdge = policy(in: phase, startDelay: 2e-6, completionDelay: 2e-6)
        #expect(onTheEdge.timerFired(now: 1e-6) == nil)
        #expect(onTheEdge.isVisible == shows)
        var early = policy(in: phase, startDelay: 2e-6, completionDelay: 2e-6)
        #expect(early.timerFired(now: 0.5e-6) != nil, "1.5 µs early waits for the rest")
        #expect(early.phase == phase)
    }

    @Test(arguments: [Policy.Phase.hidden, .delayingStart, .visible, .delayingHide])
    func repeatedActivityNeverRestartsADelay(phase: Policy.Phase) {
        var policy = policy(in: phase)
        let isActive = phase == .delayingStart || phase == .visible
        #expect(policy.activityChanged(isActive: isActive, now: 0, startDelay: 1, completionDelay: 1) == nil)
        #expect(policy.phase == phase)
    }

    @Test(arguments: [Policy.Phase.hidden, .visible])
    func timerFiringWithoutADelayDoesNothing(phase: Policy.Phase) {
        var policy = policy(in: phase)
        #expect(policy.timerFired(now: 10) == nil)
        #expect(policy.phase == phase)
    }

    @Test(arguments: [
        (Policy.Phase.hidden, Policy.TimerAction?.none),
        (.delayingStart, .cancel),
        (.visible, nil),
        (.delayingHide, .cancel),
    ])
    func disablingHidesAndCancelsAnyDelay(phase: Policy.Phase, expected: Policy.TimerAction?) {
        var policy = policy(in: phase)
        #expect(policy.enabledChanged(false, now: 0) == expected)
        #expect(policy.phase == .hidden)
        #expect(policy.enabledChanged(false, now: 0) == nil)
    }

    @Test func edgesDuringAStartDelayAreAbsorbedAndMoveItsReference() {
        var policy = policy(in: .delayingStart)  // began at 0, start delay 1
        #expect(policy.absorbEdge(isActive: false, now: 0.2) == true)
        #expect(policy.absorbEdge(isActive: true, now: 0.5) == true)
        #expect(policy.absorbEdge(isActive: true, now: 0.6) == false, "not an edge")
        #expect(policy.timerFired(now: 1) == .start(after: 0.5))
        #expect(policy.phase == .delayingStart)
        #expect(policy.timerFired(now: 1.5) == nil)
        #expect(policy.phase == .visible)
    }

    @Test func activityThatEndedDuringAStartDelayNeverShows() {
        var policy = policy(in: .delayingStart)
        #expect(policy.absorbEdge(isActive: false, now: 0.2) == true)
        #expect(policy.timerFired(now: 1) == nil)
        #expect(policy.phase == .hidden)
    }

    @Test func edgesDuringAHideDelayAreAbsorbedAndTheHideWaitsForTheLastEnd() {
        var policy = policy(in: .delayingHide)  // idle since 0, completion delay 1
        #expect(policy.absorbEdge(isActive: true, now: 0.3) == true)
        #expect(policy.absorbEdge(isActive: false, now: 0.7) == true)
        #expect(policy.timerFired(now: 1) == .start(after: 0.7))
        #expect(policy.isVisible)
        #expect(policy.timerFired(now: 1.7) == nil)
        #expect(policy.phase == .hidden)
    }

    @Test func activityThatRestartedDuringAHideDelayKeepsTheIndicator() {
        var policy = policy(in: .delayingHide)
        #expect(policy.absorbEdge(isActive: true, now: 0.3) == true)
        #expect(policy.timerFired(now: 1) == nil)
        #expect(policy.phase == .visible)
    }

    @Test(arguments: [Policy.Phase.hidden, .visible])
    func edgesOutsideADelayAreNotAbsorbed(phase: Policy.Phase) {
        var policy = policy(in: phase)
        #expect(policy.absorbEdge(isActive: phase == .hidden, now: 1) == false)
        #expect(policy.phase == phase)
    }

    @Test func whileDisabledActivityIsOnlyRecorded() {
        var policy = policy(in: .hidden)
        _ = policy.enabledChanged(false, now: 0)
        #expect(policy.activityChanged(isActive: true, now: 0, startDelay: 0, completionDelay: 0) == nil)
        #expect(policy.phase == .hidden)
        #expect(policy.isActive)
    }

    @Test func enablingShowsTheTruthAtOnce() {
        var active = policy(in: .hidden)
        _ = active.enabledChanged(false, now: 0)
        _ = active.activityChanged(isActive: true, now: 0, startDelay: 5, completionDelay: 0)
        #expect(active.enabledChanged(true, now: 3) == nil, "no start delay on re-enable")
        #expect(active.shownAt == 3, "the minimum visible duration counts from the re-enable")
        #expect(active.phase == .visible)

        var idle = policy(in: .visible)
        _ = idle.enabledChanged(false, now: 0)
        _ = idle.activityChanged(isActive: false, now: 0, startDelay: 0, completionDelay: 5)
        #expect(idle.enabledChanged(true, now: 3) == nil)
        #expect(idle.phase == .hidden)
    }
}
