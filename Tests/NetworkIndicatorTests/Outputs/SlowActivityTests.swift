import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// `observeSlowNetworkActivity(after:owner:_:)` and its stream, on the manual scheduler (one
/// test on the real main queue). Public API only.
@MainActor
@Suite("Slow network activity")
struct SlowActivityTests {
    @MainActor
    private final class Owner {
        var seen: [Bool] = []
    }

    private func makeManager() -> (NetworkIndicatorManager, ManualNetworkIndicatorScheduler) {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.completionCheckInterval = 3600
        return (manager, scheduler)
    }

    @Test func toldFalseAtOnceThenTrueAfterTheThresholdThenFalseWhenThePeriodEnds() {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 8, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        #expect(owner.seen == [false], "before it returns")
        var token: NetworkActivityToken? = manager.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 7.9)
        #expect(owner.seen == [false])
        scheduler.advance(by: 0.1)
        #expect(owner.seen == [false, true])
        token = nil
        scheduler.runPendingWork()
        #expect(owner.seen == [false, true, false])
        _ = token
    }

    /// `.infinity` never reports a period as slow (as it turns the stale-task check off); a
    /// negative threshold, or NaN, reports it at once.
    @Test(arguments: [(TimeInterval.infinity, [false]), (-1, [false, true]), (.nan, [false, true])])
    func anInfiniteThresholdNeverReportsAPeriodAsSlow(threshold: TimeInterval, expected: [Bool]) {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: threshold, owner: owner) { owner, isSlow in owner.seen.append(isSlow)
        }
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 3600)
        #expect(owner.seen == expected)
        withExtendedLifetime(token) {}
    }

    /// A screen that starts watching during a load: the busy period is the manager's, not the
    /// observation's, so 10 s into it an 8 s watch is slow at once, and a 12 s one 2 s later.
    @Test func aWatchBegunDuringABusyPeriodCountsItFromItsStart() {
        let (manager, scheduler) = makeManager()
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 10)
        let (eight, twelve) = (Owner(), Owner())
        manager.observeSlowNetworkActivity(after: 8, owner: eight) { owner, isSlow in owner.seen.append(isSlow) }
        manager.observeSlowNetworkActivity(after: 12, owner: twelve) { owner, isSlow in owner.seen.append(isSlow) }
        scheduler.runPendingWork()
        #expect(eight.seen == [false, true])
        scheduler.advance(by: 1.9)
        #expect(twelve.seen == [false])
        scheduler.advance(by: 0.1)
        #expect(twelve.seen == [false, true])
        withExtendedLifetime(token) {}
    }

    /// A watch begun during a load that no hop has counted yet (here begun while an earlier
    /// load's completion delay runs, which takes the edge without a hop; in an app, a load begun
    /// off the main thread while the main queue is busy): the load is measured from its begin,
    /// so 4 s into it a 3 s watch is slow at once, not 3 s after the next hop.
    @Test func aWatchBegunBeforeAHopCountedTheLoadCountsItFromItsBegin() {
        let (manager, scheduler) = makeManager()
        manager.settings.completionDelay = 5
        var first: NetworkActivityToken? = manager.beganNetworkTask()
        scheduler.runPendingWork()
        first = nil
        scheduler.runPendingWork()  // the count told is 0; the indicator fades out
        let second = manager.beganNetworkTask()  // inside the delay: no hop
        scheduler.advance(by: 4)
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 3, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        scheduler.advance(by: 0.1)
        #expect(owner.seen == [false, true])
        withExtendedLifetime((first, second)) {}
    }

    /// The watch waits on the tree's one timer: beside a weak token's sweep, and with a second
    /// watch on a scope, one timer is pending, and each watch still fires at its own time.
    @Test func watchesAndTheSweepShareTheTreesOneTimer() {
        let (manager, scheduler) = makeManager()
        manager.settings.completionCheckInterval = 1
        let scope = NetworkIndicatorManager(parent: manager, label: "feed")
        let owner = Owner()
        let scopeOwner = Owner()
        manager.observeSlowNetworkActivity(after: 8, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        scope.observeSlowNetworkActivity(after: 3, owner: scopeOwner) { owner, isSlow in owner.seen.append(isSlow) }
        let loader = Owner()
        scope.beganNetworkTask(withToken: loader)
        scheduler.runPendingWork()
        #expect(scheduler.pendingWorkCount == 1, "one timer: two watches and a sweep")
        scheduler.advance(by: 3)
        #expect(scopeOwner.seen == [false, true])
        #expect(owner.seen == [false])
        scheduler.advance(by: 5)
        #expect(owner.seen == [false, true])
        #expect(scheduler.pendingWorkCount == 1, "the sweep goes on")
        withExtendedLifetime(loader) {}
    }

    /// A period that ends before the threshold takes its deadline with it: once the hide is
    /// done, no timer is left pending.
    @Test func aShortPeriodLeavesNoTimerBehind() {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 8, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        var token: NetworkActivityToken? = manager.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        token = nil
        scheduler.runPendingWork()
        scheduler.advance(by: 0.3)  // the hide's completion delay
        #expect(scheduler.pendingWorkCount == 0, "the watch's deadline went with the period")
        _ = token
    }

    @Test func aLoadShorterThanTheThresholdIsNeverReported() {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 2, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        var token: NetworkActivityToken? = manager.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 1.9)
        token = nil
        scheduler.runPendingWork()
        scheduler.advance(by: 10)
        #expect(owner.seen == [false])
        _ = token
    }

    @Test func aBreakStartsTheThresholdAgain() {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 2, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        for _ in 0..<3 {
            var token: NetworkActivityToken? = manager.beganNetworkTask()
            scheduler.runPendingWork()
            scheduler.advance(by: 1.5)
            token = nil
            scheduler.runPendingWork()
            _ = token
        }
        #expect(owner.seen == [false], "three short periods never add up")
    }

    @Test func tasksThatOverlapAreOneBusyPeriod() {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 2, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        var first: NetworkActivityToken? = manager.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 1.5)
        let second = manager.beganNetworkTask()
        scheduler.runPendingWork()
        first = nil
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(owner.seen == [false, true], "measured from the first begin, without a break")
        _ = first
        withExtendedLifetime(second) {}
    }

    @Test func aChildScopesWorkKeepsItsParentBusy() {
        let (manager, scheduler) = makeManager()
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 1, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        let token = screen.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(owner.seen == [false, true])
        withExtendedLifetime(token) {}
    }

    /// "The period is the manager's own and its descendants' tasks, whatever the indicator's
    /// delays" (NetworkIndicatorManager+SlowActivity.swift:17)
    @Test func aStartDelayLongerThanTheThresholdDoesNotHoldBackTheReport() {
        let (manager, scheduler) = makeManager()
        manager.settings.startDelay = 10
        let indicator = RecordingNetworkIndicatorOutput()
        manager.addOutput(indicator)
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 1, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(owner.seen == [false, true])
        #expect(indicator.visibilityChanges == [false], "the indicator itself is still waiting")
        withExtendedLifetime(token) {}
    }

    /// "whatever the indicator's delays" — a disabled indicator does not stop the report.
    /// (NetworkIndicatorManager+SlowActivity.swift:17)
    @Test func aDisabledIndicatorStillReportsASlowPeriod() {
        let (manager, scheduler) = makeManager()
        manager.settings.isEnabled = false
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 1, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(owner.seen == [false, true])
        withExtendedLifetime(token) {}
    }

    /// "`false` when that period ends" then a second period reports again.
    /// (…+SlowActivity.swift:5)
    @Test func eachSlowPeriodIsReportedAndSoIsItsEnd() {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 1, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        for _ in 0..<2 {
            var token: NetworkActivityToken? = manager.beganNetworkTask()
            scheduler.runPendingWork()
            scheduler.advance(by: 1.5)
            token = nil
            scheduler.runPendingWork()
            _ = token
        }
        #expect(owner.seen == [false, true, false, true, false])
    }

    /// "if the manager is busy as you call this, from when its count left zero" and "The period
    /// is the manager's own and its descendants' tasks" (…+SlowActivity.swift:17-20)
    @Test func aWatchBegunDuringAChildScopesLongLoadIsToldAtOnce() {
        let (manager, scheduler) = makeManager()
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let token = screen.beganNetworkTask()
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 1, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        scheduler.runPendingWork()
        #expect(owner.seen == [false, true])
        withExtendedLifetime(token) {}
    }

    /// "when the manager goes away its observations are told false … and nothing more"; slow
    /// activity: "`false` when that period ends" (NetworkIndicatorObservation.swift:24,
    /// NetworkIndicatorManager+SlowActivity.swift:5)
    @Test func aSlowPeriodEndsWhenTheRootManagerGoes() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let owner = Owner()
        manager!.observeSlowNetworkActivity(after: 1, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        manager!.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(owner.seen == [false, true])
        manager = nil
        scheduler.advance(by: 1)
        #expect(owner.seen == [false, true, false])
    }

    @Test func nothingIsToldOnceTheOwnerIsGone() {
        let (manager, scheduler) = makeManager()
        var owner: Owner? = Owner()
        let seen = Owner()
        manager.observeSlowNetworkActivity(after: 1, owner: owner!) { _, isSlow in seen.seen.append(isSlow) }
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        owner = nil
        scheduler.advance(by: 5)
        #expect(seen.seen == [false])
        withExtendedLifetime(token) {}
    }

    @Test func nothingIsToldAfterTheObservationIsCancelled() {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        let observation = manager.observeSlowNetworkActivity(after: 1, owner: owner) { owner, isSlow in
            owner.seen.append(isSlow)
        }
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        observation.cancel()
        scheduler.advance(by: 5)
        #expect(owner.seen == [false])
        withExtendedLifetime(token) {}
    }

    @Test func neitherTheOwnerNorTheManagerIsKeptAlive() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        var owner: Owner? = Owner()
        let weakManager = WeakReference(manager)
        let weakOwner = WeakReference(owner)
        manager?.observeSlowNetworkActivity(after: 1, owner: owner!) { owner, isSlow in owner.seen.append(isSlow) }
        owner = nil
        #expect(weakOwner.object == nil)
        manager = nil
        scheduler.runPendingWork()
        #expect(weakManager.object == nil)
    }

    /// The real main queue and `MainQueueScheduler`, with a short threshold.
    @Test func onTheRealMainQueueASlowLoadIsReportedAndItsEndToo() async {
        let manager = NetworkIndicatorManager()
        manager.settings.completionCheckInterval = 3600
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 0.05, owner: owner) { owner, isSlow in owner.seen.append(isSlow) }
        var token: NetworkActivityToken? = manager.beganNetworkTask()
        await eventually { owner.seen == [false, true] }
        token = nil
        await eventually { owner.seen == [false, true, false] }
        #expect(owner.seen == [false, true, false])
        _ = token
    }

    /// A watch cancelled while its deadline waits leaves no timer behind once the busy period
    /// ends.
    @Test func aCancelledWatchLeavesNoTimerBehind() {
        let (manager, scheduler) = makeManager()
        let owner = Owner()
        let observation = manager.observeSlowNetworkActivity(after: 8, owner: owner) { owner, isSlow in
            owner.seen.append(isSlow)
        }
        var token: NetworkActivityToken? = manager.beganNetworkTask()
        scheduler.advance(by: 1)
        observation.cancel()
        token = nil
        scheduler.advance(by: 1)
        #expect(manager.activeTaskCount == 0)
        #expect(scheduler.nextDeadline == nil, "nothing tracked, no timer")
        #expect(owner.seen == [false])
        _ = token
    }
}
