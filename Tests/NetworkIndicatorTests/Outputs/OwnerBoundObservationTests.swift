import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Owner-bound observations: told at once and every change for as long as the owner lives,
/// with nothing stored by the caller; never keeping the owner or the manager alive.
@MainActor
@Suite("Owner-bound observations")
struct OwnerBoundObservationTests {
    /// A main-actor, non-Sendable owner, as a view controller is.
    @MainActor
    private final class Owner {
        var seen: [Bool] = []
        var counts: [Int] = []
    }

    @Test func visibilityIsToldToTheOwnerAtOnceThenEveryChange() {
        let harness = Harness()
        let owner = Owner()
        harness.manager.observeVisibility(owner: owner) { owner, isVisible in owner.seen.append(isVisible) }
        #expect(owner.seen == [false], "the current value, before observeVisibility returns")
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        harness.manager.finishedNetworkTask(forToken: token)
        harness.settle()
        #expect(owner.seen == [false, true, false])
    }

    @Test func aVisibleIndicatorIsToldAtOnce() {
        let harness = Harness()
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        let owner = Owner()
        harness.manager.observeVisibility(owner: owner) { owner, isVisible in owner.seen.append(isVisible) }
        #expect(owner.seen == [true])
        withExtendedLifetime(token) {}
    }

    @Test func countIsToldToTheOwnerAtOnceThenEachNewCount() {
        let harness = Harness()
        harness.manager.pushNetworkActivity()
        harness.settle()
        let owner = Owner()
        harness.manager.observeActiveTaskCount(owner: owner) { owner, count in owner.counts.append(count) }
        #expect(owner.counts == [1], "the current count, before observeActiveTaskCount returns")
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.resetNetworkActivity()
        harness.settle()
        #expect(owner.counts == [1, 2, 0])
    }

    @Test func theOwnerIsHandedToTheBodyEachTime() {
        let harness = Harness()
        let owner = Owner()
        var handed: [ObjectIdentifier] = []
        harness.manager.observeVisibility(owner: owner) { owner, _ in handed.append(ObjectIdentifier(owner)) }
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(handed == [ObjectIdentifier(owner), ObjectIdentifier(owner)])
    }

    @Test func theObservationIsNotKeptAliveByTheCallerYetLastsWhileTheOwnerLives() {
        let harness = Harness()
        let owner = Owner()
        do {
            // The result is dropped here, as a caller storing nothing does.
            harness.manager.observeVisibility(owner: owner) { owner, isVisible in owner.seen.append(isVisible) }
        }
        for _ in 0..<3 {
            harness.manager.pushNetworkActivity()
            harness.settle()
            harness.manager.resetNetworkActivity()
            harness.settle()
        }
        #expect(owner.seen == [false, true, false, true, false, true, false])
    }

    @Test func theOwnerIsNotKeptAlive() {
        let harness = Harness()
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            harness.manager.observeVisibility(owner: owner) { owner, isVisible in owner.seen.append(isVisible) }
            harness.manager.observeActiveTaskCount(owner: owner) { owner, count in owner.counts.append(count) }
        }
        #expect(weakOwner == nil)
    }

    @Test func aFreedOwnerIsToldNothingMore() {
        let harness = Harness()
        var calls = 0
        var owner: Owner? = Owner()
        harness.manager.observeVisibility(owner: owner!) { _, _ in calls += 1 }
        harness.manager.observeActiveTaskCount(owner: owner!) { _, _ in calls += 1 }
        #expect(calls == 2)
        owner = nil
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.resetNetworkActivity()
        harness.settle()
        #expect(calls == 2, "no call once the owner is gone")
    }

    @Test func aFreedOwnersCountObservationStopsAskingForHops() {
        let harness = Harness()
        var owner: Owner? = Owner()
        harness.manager.observeActiveTaskCount(owner: owner!) { _, _ in }
        #expect(harness.hopsForTenCountChanges() == 10, "one hop per count change while the owner lives")
        owner = nil
        harness.manager.pushNetworkActivity()
        harness.settle()  // the body finds its owner gone and ends the observation
        harness.manager.pushNetworkActivity()
        harness.settle()  // this delivery finds the observer gone
        #expect(harness.hopsForTenCountChanges() == 0)
    }

    @Test func aFreedOwnersBodyIsReleasedAtTheNextChange() {
        let harness = Harness()
        final class Capture {}
        weak var captured: Capture?
        var owner: Owner? = Owner()
        do {
            let capture = Capture()
            captured = capture
            harness.manager.observeVisibility(owner: owner!) { _, _ in _ = capture }
        }
        #expect(captured != nil, "the manager keeps the body while the owner lives")
        owner = nil
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(captured == nil)
    }

    @Test func aFreedOwnersEntryIsLetGoAtTheNextRegistration() {
        let harness = Harness()
        final class Capture {}
        weak var captured: Capture?
        weak var kept: Capture?
        var owner: Owner? = Owner()
        do {
            let capture = Capture()
            captured = capture
            harness.manager.observeVisibility(owner: owner!) { _, _ in _ = capture }
        }
        owner = nil
        #expect(captured != nil, "nothing has happened since the owner died")
        let other = Owner()
        do {
            let capture = Capture()
            kept = capture
            harness.manager.observeVisibility(owner: other) { _, _ in _ = capture }
        }
        #expect(captured == nil, "the dead owner's body is let go")
        #expect(kept != nil, "only the living owner's is kept")
    }

    /// The caller may keep the handle: a dead owner's entry let go at the next registration
    /// still ends, its body freed and its handle cancelled.
    @Test func aFreedOwnersBodyIsLetGoAtTheNextRegistrationThoughItsHandleIsKept() {
        let harness = Harness()
        final class Capture {}
        weak var captured: Capture?
        var owner: Owner? = Owner()
        var handle: NetworkIndicatorObservation?
        do {
            let capture = Capture()
            captured = capture
            handle = harness.manager.observeVisibility(owner: owner!) { _, _ in _ = capture }
        }
        owner = nil
        let other = Owner()
        harness.manager.observeVisibility(owner: other) { _, _ in }
        #expect(captured == nil, "the dead owner's body is let go")
        #expect(handle?.isCancelled == true)
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(harness.hopsForTenCountChanges() == 0, "nothing asks for a hop per count change")
    }

    @Test func theManagerIsNotKeptAlive() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let owner = Owner()
        weak var weakManager: NetworkIndicatorManager?
        do {
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            weakManager = manager
            manager.observeVisibility(owner: owner) { owner, isVisible in owner.seen.append(isVisible) }
            manager.observeActiveTaskCount(owner: owner) { owner, count in owner.counts.append(count) }
        }
        scheduler.runPendingWork()
        #expect(weakManager == nil)
    }

    @Test func cancelStopsTheCallsAndFreesTheBody() {
        let harness = Harness()
        final class Capture {}
        weak var captured: Capture?
        let owner = Owner()
        let observation: NetworkIndicatorObservation
        do {
            let capture = Capture()
            captured = capture
            observation = harness.manager.observeActiveTaskCount(owner: owner) { owner, count in
                owner.counts.append(count)
                _ = capture
            }
        }
        #expect(!observation.isCancelled)
        observation.cancel()
        #expect(observation.isCancelled)
        #expect(captured == nil, "freed at once")
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(owner.counts == [0])
    }

    @Test func cancellingOneObservationLeavesTheOwnersOtherOne() {
        let harness = Harness()
        let owner = Owner()
        let cancelled = harness.manager.observeVisibility(owner: owner) { owner, _ in owner.counts.append(-1) }
        harness.manager.observeVisibility(owner: owner) { owner, isVisible in owner.seen.append(isVisible) }
        cancelled.cancel()
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(owner.seen == [false, true])
        #expect(owner.counts == [-1], "only the call made at once")
    }

    /// A screen's scope released while its indicator shows: what the screen observed with an
    /// owner that outlives the scope hears `false`, as the scope's outputs do.
    @Test func aScopeReleasedWhileVisibleTellsItsOwnerBoundObservationsFalse() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        var scope: NetworkIndicatorManager? = NetworkIndicatorManager(parent: root, label: "Feed")
        let (visibility, slow) = (Owner(), Owner())
        scope?.observeVisibility(owner: visibility) { owner, isVisible in owner.seen.append(isVisible) }
        scope?.observeSlowNetworkActivity(after: 2, owner: slow) { owner, isSlow in owner.seen.append(isSlow) }
        let token = Owner()  // a caller's token: an opaque one would keep its scope alive
        scope?.beganNetworkTask(withToken: token)
        scheduler.advance(by: 2)
        #expect(visibility.seen == [false, true])
        #expect(slow.seen == [false, true])
        scope = nil
        scheduler.advance(by: 1)
        #expect(visibility.seen == [false, true, false], "the spinner it drove goes")
        #expect(slow.seen == [false, true, false], "and so does its \"Still loading…\"")
        withExtendedLifetime(token) {}
    }
}

/// The manager's end frees what it kept for a living owner.
@MainActor
@Suite("Owner-bound observations outliving their manager")
struct OwnerBoundObservationManagerLifetimeTests {
    private final class Capture {}

    @Test func theBodyIsFreedWithTheManagerWhileTheOwnerLives() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let owner = Capture()
        weak var captured: Capture?
        do {
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            let capture = Capture()
            captured = capture
            manager.observeActiveTaskCount(owner: owner) { _, _ in _ = capture }
            manager.observeVisibility(owner: owner) { _, _ in _ = capture }
        }
        scheduler.runPendingWork()
        #expect(captured == nil, "nothing keeps the body once the manager is gone")
        withExtendedLifetime(owner) {}
    }
}
