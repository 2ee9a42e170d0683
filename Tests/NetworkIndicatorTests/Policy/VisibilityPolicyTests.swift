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
            _ = policy.activityChanged(isActive: true, startDelay: startDelay, completionDelay: completionDelay)
        case .visible:
            _ = policy.activityChanged(isActive: true, startDelay: 0, completionDelay: completionDelay)
        case .delayingHide:
            _ = policy.activityChanged(isActive: true, startDelay: 0, completionDelay: completionDelay)
            _ = policy.activityChanged(isActive: false, startDelay: startDelay, completionDelay: completionDelay)
        }
        #expect(policy.phase == phase)
        return policy
    }

    @Test func hiddenShowsAtOnceWithoutStartDelay() {
        var policy = policy(in: .hidden)
        #expect(policy.activityChanged(isActive: true, startDelay: 0, completionDelay: 1) == .init(visibility: true))
        #expect(policy.phase == .visible)
    }

    @Test func hiddenWaitsForStartDelay() {
        var policy = policy(in: .hidden)
        #expect(
            policy.activityChanged(isActive: true, startDelay: 0.5, completionDelay: 1)
                == .init(timer: .start(after: 0.5))
        )
        #expect(policy.phase == .delayingStart)
        #expect(!policy.isVisible)
    }

    @Test func delayingStartShowsWhenTheDelayElapses() {
        var policy = policy(in: .delayingStart)
        #expect(policy.timerFired() == .init(visibility: true))
        #expect(policy.phase == .visible)
    }

    @Test func taskEndingInsideStartDelayNeverShows() {
        var policy = policy(in: .delayingStart)
        #expect(policy.activityChanged(isActive: false, startDelay: 1, completionDelay: 1) == .init(timer: .cancel))
        #expect(policy.phase == .hidden)
        #expect(policy.timerFired() == .none, "a start delay that elapses after everything ended does nothing")
        #expect(policy.phase == .hidden)
    }

    @Test func visibleWaitsForCompletionDelay() {
        var policy = policy(in: .visible)
        #expect(
            policy.activityChanged(isActive: false, startDelay: 1, completionDelay: 0.2)
                == .init(timer: .start(after: 0.2))
        )
        #expect(policy.phase == .delayingHide)
        #expect(policy.isVisible)
    }

    @Test func visibleHidesAtOnceWithoutCompletionDelay() {
        var policy = policy(in: .visible)
        #expect(policy.activityChanged(isActive: false, startDelay: 1, completionDelay: 0) == .init(visibility: false))
        #expect(policy.phase == .hidden)
    }

    @Test func delayingHideHidesWhenTheDelayElapses() {
        var policy = policy(in: .delayingHide)
        #expect(policy.timerFired() == .init(visibility: false))
        #expect(policy.phase == .hidden)
    }

    @Test func taskStartingDuringHideDelayCancelsTheHide() {
        var policy = policy(in: .delayingHide)
        #expect(policy.activityChanged(isActive: true, startDelay: 1, completionDelay: 1) == .init(timer: .cancel))
        #expect(policy.phase == .visible)
        #expect(policy.timerFired() == .none, "a late firing of the cancelled hide does nothing")
        #expect(policy.isVisible)
    }

    @Test(arguments: [Policy.Phase.hidden, .delayingStart, .visible, .delayingHide])
    func repeatedActivityNeverRestartsADelay(phase: Policy.Phase) {
        var policy = policy(in: phase)
        let isActive = phase == .delayingStart || phase == .visible
        #expect(policy.activityChanged(isActive: isActive, startDelay: 1, completionDelay: 1) == .none)
        #expect(policy.phase == phase)
    }

    @Test(arguments: [Policy.Phase.hidden, .visible])
    func timerFiringWithoutADelayDoesNothing(phase: Policy.Phase) {
        var policy = policy(in: phase)
        #expect(policy.timerFired() == .none)
        #expect(policy.phase == phase)
    }

    @Test(arguments: [
        (Policy.Phase.hidden, Policy.Actions.none),
        (.delayingStart, .init(timer: .cancel)),
        (.visible, .init(visibility: false)),
        (.delayingHide, .init(visibility: false, timer: .cancel)),
    ])
    func disablingHidesAndCancelsAnyDelay(phase: Policy.Phase, expected: Policy.Actions) {
        var policy = policy(in: phase)
        #expect(policy.enabledChanged(false) == expected)
        #expect(policy.phase == .hidden)
        #expect(policy.enabledChanged(false) == .none)
    }

    @Test func whileDisabledActivityIsOnlyRecorded() {
        var policy = policy(in: .hidden)
        _ = policy.enabledChanged(false)
        #expect(policy.activityChanged(isActive: true, startDelay: 0, completionDelay: 0) == .none)
        #expect(policy.phase == .hidden)
        #expect(policy.isActive)
    }

    @Test func enablingShowsTheTruthAtOnce() {
        var active = policy(in: .hidden)
        _ = active.enabledChanged(false)
        _ = active.activityChanged(isActive: true, startDelay: 5, completionDelay: 0)
        #expect(active.enabledChanged(true) == .init(visibility: true), "no start delay on re-enable")
        #expect(active.phase == .visible)

        var idle = policy(in: .visible)
        _ = idle.enabledChanged(false)
        _ = idle.activityChanged(isActive: false, startDelay: 0, completionDelay: 5)
        #expect(idle.enabledChanged(true) == .none)
        #expect(idle.phase == .hidden)
    }
}

extension VisibilityPolicy.Actions: CustomTestStringConvertible {
    /// Both fields, for readable failure messages.
    public var testDescription: String {
        "visibility: \(String(describing: visibility)), timer: \(String(describing: timer))"
    }
}
