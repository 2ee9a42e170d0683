import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Opaque tokens")
struct OpaqueTokenTests {
    /// The caller's reference is the token's only one: letting it go frees the token (nothing in
    /// the manager keeps it), and the token's `deinit` ends its task at once, with no sweep.
    @Test func releasingOpaqueTokenHidesIndicatorWithoutSweep() {
        let harness = Harness()
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        let released = WeakReference(token)
        #expect(harness.manager.activeTaskCount == 1)
        harness.settle()
        #expect(harness.visibilityChanges == [false, true])

        token = nil
        #expect(released.object == nil, "the token outlived the caller's last reference")
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

    /// Each finish of a token begun three times ends one of its tasks: the third ends the last,
    /// and a fourth is reported.
    @Test func eachFinishOfAnOpaqueTokenBegunThriceEndsOneTask() {
        let harness = Harness()
        let token = harness.manager.beganNetworkTask()
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.beganNetworkTask(withToken: token)
        var counts: [Int] = []
        for _ in 0..<3 {
            harness.manager.finishedNetworkTask(forToken: token)
            counts.append(harness.manager.activeTaskCount)
        }
        #expect(counts == [2, 1, 0])
        #expect(harness.diagnostics.all.isEmpty)
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.diagnostics.kinds == [.unknownFinish])
    }

    /// A labelled opaque token begun twice keeps its label, in snapshots, until its last task
    /// ends: the first finish ends one task, not the token's name.
    @Test func aLabelledOpaqueTokenBegunTwiceKeepsItsLabelUntilItsLastFinish() {
        let harness = Harness()
        let token = harness.manager.beganNetworkTask(label: "sync")
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.manager.activitySnapshot().activities.map(\.label) == ["sync"])
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.manager.activitySnapshot().activities.isEmpty)
        #expect(harness.diagnostics.all.isEmpty)
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

/// Opaque tokens keep the registry slot they were made with until they are released: whatever
/// ends their tasks in between, they are found there.
@MainActor
@Suite("Opaque tokens: pinned slots")
struct OpaqueTokenSlotTests {
    /// A token made at a slot that a sweep cut and the registry appended again is a new token:
    /// finished on the wrong manager, the diagnostic names it by its own label, not by the
    /// label of an ended token that once held the slot (no stale pair matches it).
    @Test func aTokenAtASlotCutAndAppendedAgainIsNamedByItsOwnLabel() {
        let harness = Harness()
        let other = NetworkIndicatorManager(parent: harness.manager, label: "Other")
        let keeper = Token()  // a caller's token: sweeps run while it is tracked
        harness.manager.beganNetworkTask(withToken: keeper)
        var many: [NetworkActivityToken] = (0..<70).map { _ in harness.manager.beganNetworkTask() }
        many = []
        harness.advance(by: 1)  // a sweep packs the slots
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask(label: "first")
        harness.manager.finishedNetworkTask(forToken: first!)  // its label is remembered
        many = (0..<70).map { _ in harness.manager.beganNetworkTask() }
        many = []
        first = nil
        harness.advance(by: 1)  // packed again
        let second = harness.manager.beganNetworkTask(label: "second")
        other.finishedNetworkTask(forToken: second)
        #expect(harness.diagnostics.all.map(\.label) == ["second"])
        #expect(harness.manager.activeTaskCount == 2)
        harness.manager.finishedNetworkTask(forToken: keeper)
        withExtendedLifetime((keeper, many, first, second)) {}
    }

    @Test func anOpaqueTokenOutlivesASweepThatPacksTheRegistry() {
        let harness = Harness()
        let manager = harness.manager
        var weakTokens: [Token] = (0..<150).map { _ in Token() }
        for token in weakTokens.prefix(100) { manager.beganNetworkTask(withToken: token) }
        let opaque = manager.beganNetworkTask(label: "download")
        for token in weakTokens.suffix(50) { manager.beganNetworkTask(withToken: token) }
        weakTokens.removeAll()
        harness.settle()
        harness.advance(by: 1)  // one sweep: 150 dead entries, packed around the opaque token's
        #expect(manager.activeTaskCount == 1)
        manager.beganNetworkTask(withToken: opaque)
        #expect(manager.activeTaskCount == 2)
        manager.finishedNetworkTask(forToken: opaque)
        manager.finishedNetworkTask(forToken: opaque)
        #expect(manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
        manager.finishedNetworkTask(forToken: opaque)
        #expect(harness.diagnostics.kinds == [.unknownFinish], "a third finish has no task to end")
    }

    @Test func anOpaqueTokenBegunAgainAfterAResetCountsOnceAndEndsWithItsRelease() {
        let harness = Harness()
        let manager = harness.manager
        var opaque: NetworkActivityToken? = manager.beganNetworkTask(label: "sync")
        manager.resetNetworkActivity()
        #expect(manager.activeTaskCount == 0)
        let line = #line + 1
        manager.beganNetworkTask(withToken: opaque!)
        #expect(manager.activeTaskCount == 1)
        #expect(
            manager.activitySnapshot().activities.map(\.label) == ["OpaqueTokenTests.swift:\(line)"],
            "unlabelled this time: named by where it began again"
        )
        opaque = nil
        #expect(manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }

    @Test func theSlotsOfReleasedOpaqueTokensAreReused() {
        let harness = Harness()
        let manager = harness.manager
        for _ in 0..<1_000 {
            let first = manager.beganNetworkTask()
            let second = manager.beganNetworkTask()
            #expect(first.pinned.slot != second.pinned.slot)
            #expect(manager.activeTaskCount == 2)
        }
        #expect(manager.activeTaskCount == 0)
        let token = manager.beganNetworkTask()
        #expect(token.pinned.slot < 2, "two slots served a thousand pairs")
    }

    /// The driver's release, given a released token's (slot, generation) after a new token took
    /// the slot, leaves the new token's task alone: the generation compare, not the slot.
    @Test func aStaleReleaseOfAReusedSlotLeavesItsNewTokenAlone() {
        let harness = Harness()
        let manager = harness.manager
        var released: NetworkActivityToken? = manager.beganNetworkTask(label: "old")
        let stale = released!.pinned
        released = nil
        let current = manager.beganNetworkTask(label: "new")
        #expect(current.pinned.slot == stale.slot, "the released slot is reused")
        manager.driver.apply(.release(stale))
        #expect(manager.activeTaskCount == 1)
        #expect(manager.activitySnapshot().activities.map(\.label) == ["new"])
        manager.finishedNetworkTask(forToken: current)
        #expect(manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }

    @Test func anotherManagersOpaqueTokenIsAWeakTokenHereAndLeavesItsOwnSlotAlone() {
        let harness = Harness()
        let other = NetworkIndicatorManager(scheduler: harness.scheduler)
        let foreign = other.beganNetworkTask()
        harness.manager.beganNetworkTask(withToken: foreign)
        #expect(harness.manager.activeTaskCount == 1)
        #expect(harness.manager.activitySnapshot().activities.map(\.kind) == [.weakToken])
        harness.manager.finishedNetworkTask(forToken: foreign)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(other.activeTaskCount == 1, "its own manager still counts it")
        #expect(harness.diagnostics.all.isEmpty)
    }
}
