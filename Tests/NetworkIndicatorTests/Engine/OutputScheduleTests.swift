import Foundation
import Testing

@testable import NetworkIndicator

/// The engine's pure state machine, driven directly: no lock, no thread, no scheduler. Each test
/// plays the driver's part (an event, then the reconcile it asked for) and checks the actions.
@Suite("Indicator state machine")
struct OutputScheduleTests {
    private var schedule = OutputSchedule()

    private func activity(_ count: Int, weak: Bool = false) -> OutputSchedule.Activity {
        OutputSchedule.Activity(count: count, tracksWeakTokens: weak)
    }

    /// `tasksChanged`, as the driver calls it: whether a hop must be enqueued.
    private mutating func change(_ old: Int, _ new: Int, weak: Bool = false, now: TimeInterval = 0) -> Bool {
        schedule.tasksChanged(from: old, to: activity(new, weak: weak), now: now)
    }

    @Test mutating func theFirstTaskAsksForOneHopAndLaterChangesShareIt() {
        #expect(change(0, 1) == true)
        #expect(change(1, 0) == false, "a hop is pending already")
        #expect(change(0, 1) == false)
        _ = schedule.reconcile(activity(1), now: 0)
        #expect(change(1, 0) == true, "the next edge asks again")
    }

    @Test mutating func aCountChangeWithoutAnEdgeOrAListenerAsksForNothing() {
        _ = change(0, 1)
        _ = schedule.reconcile(activity(1), now: 0)
        #expect(change(1, 2) == false)
    }

    @Test mutating func aReconcileReportsTheVisibilityOnce() {
        _ = change(0, 1)
        let shown = schedule.reconcile(activity(1), now: 0)
        #expect(shown.visibility == true)
        #expect(shown.count == nil, "no output wants counts")
        let again = schedule.reconcile(activity(1), now: 0)
        #expect(again.visibility == nil, "nothing new to report")
    }

    @Test mutating func theCompletionDelayHidesThroughTheDelayTimer() {
        _ = change(0, 1)
        _ = schedule.reconcile(activity(1), now: 0)
        _ = change(1, 0, now: 1)
        let ending = schedule.reconcile(activity(0), now: 1)
        #expect(ending.visibility == nil, "still shown during the completion delay")
        #expect(ending.timerChanges[.delay] == .start(after: 0.2))
        let fired = schedule.delayTimerFired(activity(0), now: 1.2)
        #expect(fired.visibility == false)
        #expect(fired.timerChanges[.delay] == .cancel, "the spent one-shot timer is released")
    }

    @Test mutating func theStartDelayShowsOnlyWhenItsTimerFires() {
        _ = schedule.settingsChanged { $0.startDelay = 0.5 }
        let waiting = schedule.reconcile(activity(1), now: 0)
        #expect(waiting.visibility == nil)
        #expect(waiting.timerChanges[.delay] == .start(after: 0.5))
        let fired = schedule.delayTimerFired(activity(1), now: 0.5)
        #expect(fired.visibility == true)
    }

    /// A delay's firing that comes after the delay was cancelled (the schedule keeps no timer
    /// numbers: the tree's deadlines drop a cancelled timer) shows nothing and starts nothing.
    @Test mutating func aDelayFiringAfterItsCancelChangesNothing() {
        let counting = schedule.outputAttached(receivesCount: true, activity: activity(0))
        #expect(counting.count == 0)
        _ = schedule.settingsChanged { $0.startDelay = 0.5 }
        let first = schedule.reconcile(activity(1), now: 0)
        #expect(first.timerChanges[.delay] == .start(after: 0.5))
        let ended = schedule.reconcile(activity(0), now: 0.1)
        #expect(ended.timerChanges[.delay] == .cancel)
        let late = schedule.delayTimerFired(activity(0), now: 0.5)
        #expect(late.visibility == nil)
        #expect(late.timerChanges[.delay] == .cancel, "only the spent timer's release")
        #expect(!schedule.policy.isVisible)
    }

    @Test mutating func theSweepRunsOnlyWhileWeakTokensAreTracked() {
        #expect(change(0, 1, weak: true) == true)
        let started = schedule.reconcile(activity(1, weak: true), now: 0)
        #expect(started.timerChanges[.sweep] == .start(after: 1))
        #expect(schedule.sweepInterval == 1)
        let stopped = schedule.sweepFinished(activity(0), now: 1)
        #expect(stopped.timerChanges[.sweep] == .cancel)
        #expect(schedule.sweepInterval == nil)
    }

    @Test mutating func aNewSweepIntervalRestartsTheSweep() {
        _ = schedule.reconcile(activity(1, weak: true), now: 0)
        let hop = schedule.settingsChanged { $0.completionCheckInterval = 3 }
        #expect(hop)
        let restarted = schedule.reconcile(activity(1, weak: true), now: 0)
        #expect(restarted.timerChanges[.sweep] == .start(after: 3), "the sweep kept its old interval")
    }

    @Test mutating func anOutputThatWantsCountsHearsEveryChange() {
        let attached = schedule.outputAttached(receivesCount: true, activity: activity(0))
        #expect(attached.count == 0)
        #expect(!attached.needsReconcile)
        #expect(change(0, 1) == true)
        let first = schedule.reconcile(activity(1), now: 0)
        #expect(first.count == 1)
        #expect(change(1, 2) == true, "no edge, but a listener")
        let second = schedule.reconcile(activity(2), now: 0)
        #expect(second.count == 2)
        schedule.countObserversLeft(1)
        #expect(change(2, 3) == false)
    }

    @Test mutating func anOutputAttachedAfterTheCountMovedAsksToCatchUp() {
        _ = schedule.reconcile(activity(0), now: 0)
        let attached = schedule.outputAttached(receivesCount: true, activity: activity(3))
        #expect(attached.count == 0, "told the last reconciled count at once")
        #expect(attached.needsReconcile)
        let caughtUp = schedule.reconcile(activity(3), now: 0)
        #expect(caughtUp.count == 3)
    }

    @Test mutating func disablingHidesAtTheNextReconcileAndEnablingShowsAgain() {
        _ = schedule.reconcile(activity(1), now: 0)
        let disabling = schedule.settingsChanged { $0.isEnabled = false }
        #expect(disabling)
        let hidden = schedule.reconcile(activity(1), now: 0)
        #expect(hidden.visibility == false)
        _ = schedule.settingsChanged { $0.isEnabled = true }
        let shown = schedule.reconcile(activity(1), now: 0)
        #expect(shown.visibility == true)
    }
}
