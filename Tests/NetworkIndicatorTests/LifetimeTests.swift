import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Manager lifetime")
struct LifetimeTests {
    @Test func releasedManagerCancelsItsTimersAndReleasesItsOutputs() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let weakManager = WeakReference(manager)
        var output: RecordingNetworkIndicatorOutput? = RecordingNetworkIndicatorOutput()
        let weakOutput = WeakReference(output)
        manager!.addOutput(output!)
        manager!.settings.completionDelay = 0.5
        let token = Token()
        manager!.beganNetworkTask(withToken: token)
        scheduler.runPendingWork()
        manager!.finishedNetworkTask(forToken: token)
        scheduler.runPendingWork()
        #expect(scheduler.pendingWorkCount == 1, "the hide delay is running")

        manager = nil
        #expect(weakManager.object == nil)
        scheduler.runPendingWork()
        #expect(output?.visibilityChanges == [false, true, false], "told the indicator is gone")
        #expect(scheduler.pendingWorkCount == 0, "the hop that told the outputs cancelled the hide delay")
        output = nil
        #expect(weakOutput.object == nil, "and released")
        scheduler.advance(by: 10)
        #expect(scheduler.pendingWorkCount == 0)
    }

    /// A released scope's place in the tree may go to a new scope before the main queue runs: the
    /// old scope's outputs still hear that it is gone, and the new scope's hear only their own.
    @Test func aScopeReleasedAndReplacedBeforeTheMainQueueRunsStillTellsItsOutputs() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        var old: NetworkIndicatorManager? = NetworkIndicatorManager(parent: root, label: "old")
        let oldOutput = RecordingNetworkIndicatorOutput()
        old!.addOutput(oldOutput)
        old!.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(oldOutput.visibilityChanges == [false, true])
        old = nil
        let new = NetworkIndicatorManager(parent: root, label: "new")
        let newOutput = RecordingNetworkIndicatorOutput()
        new.addOutput(newOutput)
        scheduler.runPendingWork()
        #expect(oldOutput.visibilityChanges == [false, true, false], "told its scope is gone")
        #expect(newOutput.visibilityChanges == [false])
        new.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(newOutput.visibilityChanges == [false, true])
        #expect(oldOutput.visibilityChanges == [false, true, false])
    }

    /// Work still queued for a released scope (here its stream's attaching) that runs after a new
    /// scope took its place leaves the new scope alone: its outputs and timers go on.
    @Test func lateWorkForAReleasedScopeLeavesTheScopeInItsPlaceAlone() async {
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        var old: NetworkIndicatorManager? = NetworkIndicatorManager(parent: root, label: "old")
        let stream = old!.visibilityUpdates()
        old = nil
        let new = NetworkIndicatorManager(parent: root, label: "new")
        new.settings.startDelay = 0.5
        let output = RecordingNetworkIndicatorOutput()
        new.addOutput(output)
        new.pushNetworkActivity()
        scheduler.advance(by: 1)
        #expect(output.visibilityChanges == [false, true], "told only its own changes")
        var values: [Bool] = []
        for await value in stream { values.append(value) }
        #expect(values.isEmpty, "the old scope's stream ends without a value")
    }

    /// `visibilityUpdates()`: "A stream of a manager deallocated before that hop ends without a
    /// value, unless an output or an earlier stream was attached to the manager: then it yields
    /// a last `false`, whatever the indicator showed."
    @Test(arguments: [(false, false, []), (true, false, [false]), (true, true, [false])])
    func aStreamOfAManagerGoneBeforeItsFirstHop(withAnOutput: Bool, showing: Bool, expected: [Bool]) async {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let output = RecordingNetworkIndicatorOutput()
        if withAnOutput { manager!.addOutput(output) }
        if showing {
            manager!.pushNetworkActivity()
            scheduler.runPendingWork()
        }
        let stream = manager!.visibilityUpdates()
        manager = nil
        scheduler.runPendingWork()
        var values: [Bool] = []
        for await value in stream { values.append(value) }
        #expect(values == expected)
    }

    /// A process whose main queue never runs (a server in a synchronous `main`) may make a scope
    /// per request: a released scope that shows nothing anywhere leaves no main-queue work behind,
    /// and scopes that had tasks leave the tree's one hop, so its memory stays flat.
    @Test func releasedScopesLeaveNoMainQueueWorkEach() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        for request in 0..<1000 { _ = NetworkIndicatorManager(parent: root, label: "request \(request)") }
        #expect(scheduler.pendingWorkCount == 0, "nothing was shown: nothing to tell")
        for request in 0..<1000 {
            let scope = NetworkIndicatorManager(parent: root, label: "request \(request)")
            _ = scope.beganNetworkTask(label: "load")
        }
        #expect(scheduler.pendingWorkCount == 1, "the tree's one hop")
        scheduler.runPendingWork()
        #expect(root.activeTaskCount == 0)
        #expect(scheduler.pendingWorkCount == 0)
    }

    /// A shown scope released on one thread while another thread's event has asked for the
    /// tree's hop but not yet enqueued it: the scope's owner-bound observations still hear that
    /// it is gone (`false`; the slow period's end) before they go.
    @Test func aScopeReleasedAsAnotherEventAsksForTheHopStillTellsItsObservations() {
        final class Box: @unchecked Sendable { var scope: NetworkIndicatorManager? }
        final class Owner {}
        let scheduler = HookedScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        let box = Box()
        box.scope = NetworkIndicatorManager(parent: root, label: "feed")
        let owner = Owner()
        let seen = LockedState<(visible: [Bool], slow: [Bool])>(([], []))
        box.scope!.observeVisibility(owner: owner) { _, visible in seen.withLock { $0.visible.append(visible) } }
        box.scope!.observeSlowNetworkActivity(after: 1, owner: owner) { _, slow in
            seen.withLock { $0.slow.append(slow) }
        }
        box.scope!.pushNetworkActivity()
        scheduler.base.runPendingWork()
        scheduler.base.advance(by: 2)
        let other = NetworkIndicatorManager(parent: root, label: "other")
        scheduler.beforeNextEnqueue { box.scope = nil }  // between the push's unlock and its enqueue
        other.pushNetworkActivity()
        #expect(box.scope == nil)
        scheduler.base.runPendingWork()
        #expect(seen.withLock { $0.visible } == [false, true, false], "told the scope is gone")
        #expect(seen.withLock { $0.slow } == [false, true, false], "told the slow period ended")
    }

    /// A released root manager that never showed anything leaves no main-queue work either.
    @Test func releasedRootManagersThatShowedNothingLeaveNoMainQueueWork() {
        let scheduler = ManualNetworkIndicatorScheduler()
        for _ in 0..<100 { _ = NetworkIndicatorManager(scheduler: scheduler) }
        #expect(scheduler.pendingWorkCount == 0)
    }

    /// Removing an output that was never added gives the manager nothing to show either: its
    /// release leaves no main-queue work behind.
    @Test func removingAnOutputNeverAddedLeavesNoMainQueueWork() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        for request in 0..<10 {
            let scope = NetworkIndicatorManager(parent: root, label: "request \(request)")
            scope.removeOutput(RecordingNetworkIndicatorOutput())
        }
        #expect(scheduler.pendingWorkCount == 0)
    }

    @Test func releasedHiddenManagerTellsItsOutputsNothing() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let output = RecordingNetworkIndicatorOutput()
        manager!.addOutput(output)
        manager = nil
        scheduler.runPendingWork()
        #expect(output.visibilityChanges == [false])
    }

    @Test func releasedManagerTellsItsCountOutputsZeroEvenWhileHidden() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        manager!.settings.startDelay = 5
        let output = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
        manager!.addOutput(output)
        manager!.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(output.activeTaskCounts.last == 1)
        #expect(output.visibilityChanges == [false], "still in its start delay")
        manager = nil
        scheduler.runPendingWork()
        #expect(output.activeTaskCounts.last == 0, "no stale count outlives the manager")
        #expect(output.visibilityChanges == [false], "and no visibility it was never told")
    }

    @Test func replacingTheDiagnosticsHandlerReleasesTheOldOneOutsideTheLock() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        // The old handler owns a group of this manager: releasing it ends the group's work,
        // which takes the manager's lock.
        let group = NetworkActivityGroup(manager: manager)
        group.operationStarted()
        manager.diagnosticsHandler = { [group] _ in _ = group }
        _ = consume group
        manager.diagnosticsHandler = { _ in }
        #expect(manager.activeTaskCount == 0, "no deadlock, and the group's operation ended")
    }

    @Test func pendingHopDoesNotKeepTheManagerAlive() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let weakManager = WeakReference(manager)
        manager!.pushNetworkActivity()
        #expect(scheduler.pendingWorkCount == 1)
        manager = nil
        #expect(weakManager.object == nil)
        scheduler.runPendingWork()
    }

    @Test func schedulerDroppedWithWorkQueuedKeepsNothingAlive() {
        var scheduler: ManualNetworkIndicatorScheduler? = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler!)
        let weakDriver = WeakReference(manager!.driver)
        manager!.settings.completionDelay = 0.5
        manager!.pushNetworkActivity()  // a hop stays queued
        manager = nil
        #expect(scheduler!.pendingWorkCount > 0)
        scheduler = nil
        #expect(weakDriver.object == nil, "queued work held the driver, and the driver its scheduler")
    }

    @Test func aManagerReleasedDuringItsOwnSweepStartsNoTimerAfterwards() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let holder = LockedState<NetworkIndicatorManager?>(NetworkIndicatorManager(scheduler: scheduler))
        let token = ManagerReleasingToken(holder: holder)
        holder.withLock { manager in
            manager?.settings.completionDelay = 0.5
            manager?.beganNetworkTask(withToken: token)
        }
        scheduler.runPendingWork()
        let timers = scheduler.scheduledTimerCount
        scheduler.advance(by: 1)  // the sweep asks the token, which lets go of the last manager
        #expect(holder.withLock { $0 } == nil)
        #expect(scheduler.scheduledTimerCount == timers, "no hide-delay timer for a manager that is gone")
    }

    @Test func opaqueTokenKeepsItsManagerAlive() {
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let weakManager = WeakReference(manager)
        var token: NetworkActivityToken? = manager!.beganNetworkTask()
        manager = nil
        #expect(weakManager.object != nil)
        #expect(weakManager.object?.activeTaskCount == 1)
        token = nil
        _ = token
        #expect(weakManager.object == nil)
    }

    /// Work that still holds a driver after its manager is gone (a timer being installed, a
    /// progress read) finds its node removed: nothing counts, and the manager's diagnostics
    /// handler (and what it captured) is no longer reached.
    @Test func aDriverOutlivingItsManagerIsIdleAndReportsNowhere() {
        let reported = LockedState<[NetworkIndicatorDiagnostic]>([])
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(
            scheduler: ManualNetworkIndicatorScheduler(),
            diagnosticsHandler: { diagnostic in reported.withLock { $0.append(diagnostic) } }
        )
        let driver = manager!.driver
        driver.apply(.begin(.counter, label: nil, site: .none))
        manager = nil
        driver.apply(.begin(.counter, label: nil, site: .none))
        #expect(driver.read { $0.activeTaskCount } == nil)
        #expect(driver.apply(.pop) == .stale)
        driver.report(.popWithoutPush, label: "late")
        #expect(reported.withLock { $0 }.isEmpty)
    }
}

/// A token whose completion check lets go of its manager (the last reference) and says it is
/// finished.
private final class ManagerReleasingToken: NetworkActivityCompletionReporting, Sendable {
    private let holder: LockedState<NetworkIndicatorManager?>

    init(holder: LockedState<NetworkIndicatorManager?>) {
        self.holder = holder
    }

    var isNetworkActivityFinished: Bool {
        let manager = holder.withLock { manager in
            defer { manager = nil }
            return manager
        }
        _ = consume manager  // released here, outside the holder's lock
        return true
    }
}
