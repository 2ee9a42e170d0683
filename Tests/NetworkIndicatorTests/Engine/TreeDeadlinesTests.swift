import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The tree's one timer as a pure value: which deadline it is armed for, what a firing makes
/// due, and when a firing is stale. No scheduler, no threads. (Mutating calls are made before
/// each expectation: the macros take their operands as constants.)
@Suite("One timer per tree, as a value")
struct TreeDeadlinesTests {
    private typealias Changes = [OutputSchedule.TimerKind: VisibilityPolicy.TimerAction]

    private let screen = IndicatorTree.NodeID(index: 1, generation: 0)
    private let section = IndicatorTree.NodeID(index: 2, generation: 0)
    private let row = IndicatorTree.NodeID(index: 3, generation: 0)
    private let sweep: Changes = [.sweep: .start(after: 1)]

    private func delay(_ seconds: Double) -> Changes {
        [.delay: .start(after: seconds)]
    }

    /// A timer may run a tenth of its interval late (the sweep), or a tenth of its delay but at
    /// most 50 ms (the delay timer, whose firing the user sees).
    @Test func aTimersLeewayIsATenthAndADelaysAtMostFiftyMilliseconds() {
        #expect(abs(TreeDeadlines.leeway(delay: 2, repeating: 2) - 0.2) < 1e-12)
        #expect(abs(TreeDeadlines.leeway(delay: 0.3, repeating: nil) - 0.03) < 1e-12)
        #expect(TreeDeadlines.leeway(delay: 2, repeating: nil) == 0.05)
    }

    @Test func itIsArmedOnceForTheEarliestDeadline() {
        var deadlines = TreeDeadlines()
        deadlines.apply(sweep, of: row, now: 0)
        var arming = deadlines.rearm(now: 0)
        #expect(arming == .start(after: 1, repeating: 1, leeway: 0.1, generation: 1))

        deadlines.apply(delay(0.5), of: screen, now: 0)
        arming = deadlines.rearm(now: 0)
        #expect(arming == .start(after: 0.5, repeating: nil, leeway: 0.05, generation: 2))

        deadlines.apply(delay(0.5), of: section, now: 0)
        arming = deadlines.rearm(now: 0)
        #expect(arming == nil, "due with the armed one: no new timer")

        deadlines.apply([.delay: .cancel], of: screen, now: 0)
        deadlines.apply([.delay: .cancel], of: section, now: 0)
        arming = deadlines.rearm(now: 0)
        #expect(arming == .start(after: 1, repeating: 1, leeway: 0.1, generation: 3))

        deadlines.apply([.sweep: .cancel], of: row, now: 0)
        arming = deadlines.rearm(now: 0)
        #expect(arming == .stop)
    }

    /// The one timer may run late only as far as every deadline allows: a delay due 10 ms after
    /// the earliest, with a leeway of 1 ms, leaves the timer 11 ms, not the earliest's 50.
    @Test func theTimersLeewayIsTheLeastAnyDeadlineAllows() {
        var deadlines = TreeDeadlines()
        deadlines.apply(delay(1), of: screen, now: 0)
        var arming = deadlines.rearm(now: 0)
        #expect(arming == .start(after: 1, repeating: nil, leeway: 0.05, generation: 1))

        deadlines.apply(delay(0.5), of: section, now: 0.9)
        arming = deadlines.rearm(now: 0.9)
        #expect(arming == nil, "due 400 ms after the armed one: it leaves the leeway as it is")

        deadlines.apply(delay(0.02), of: row, now: 0.99)
        arming = deadlines.rearm(now: 0.99)
        guard case .start(let after, nil, let leeway, 2) = arming else {
            Issue.record("expected a new arming, got \(String(describing: arming))")
            return
        }
        #expect(abs(after - 0.01) < 1e-9, "still armed for the earliest")
        #expect(abs(leeway - 0.012) < 1e-9, "the row's delay is due at 1.01 and may wait 2 ms")
    }

    @Test func oneFiringRunsEveryDeadlineDueAndARepeatingOneComesBack() throws {
        var deadlines = TreeDeadlines()
        deadlines.apply(delay(0.5), of: screen, now: 0)
        deadlines.apply(delay(0.5), of: section, now: 0)
        deadlines.apply(sweep, of: row, now: 0)
        _ = deadlines.rearm(now: 0)

        var firing = deadlines.fired(1, now: 0.5)
        var fired = try #require(firing)
        #expect(fired.isSpent)
        #expect(fired.due.map(\.node) == [screen, section])
        var arming = deadlines.rearm(now: 0.5)
        #expect(arming == .start(after: 0.5, repeating: 1, leeway: 0.1, generation: 2))

        firing = deadlines.fired(2, now: 1.25)  // a little late
        fired = try #require(firing)
        #expect(!fired.isSpent, "a repeating timer keeps running")
        #expect(fired.due.map(\.node) == [row])
        #expect(deadlines.pending.map(\.due) == [2], "one interval from the deadline, as the scheduler repeats")
        arming = deadlines.rearm(now: 1.25)
        #expect(arming == nil)

        firing = deadlines.fired(2, now: 3.5)
        fired = try #require(firing)
        #expect(fired.due.map(\.node) == [row])
        #expect(deadlines.pending.map(\.due) == [4.5], "a late firing runs once, then one interval on")
    }

    /// A late firing runs what it finds due by due time, then in the order listed.
    @Test func aLateFiringRunsItsDeadlinesByDueTime() throws {
        var deadlines = TreeDeadlines()
        deadlines.apply(delay(0.5), of: screen, now: 0)
        deadlines.apply(delay(0.25), of: section, now: 0)
        deadlines.apply(delay(0.5), of: row, now: 0)
        _ = deadlines.rearm(now: 0)
        let firing = deadlines.fired(1, now: 1)
        let fired = try #require(firing)
        #expect(fired.due.map(\.node) == [section, screen, row])
    }

    @Test func aFiringOfAReplacedTimerIsStale() {
        var deadlines = TreeDeadlines()
        deadlines.apply(delay(1), of: screen, now: 0)
        _ = deadlines.rearm(now: 0)
        deadlines.apply(delay(0.5), of: screen, now: 0.25)
        _ = deadlines.rearm(now: 0.25)
        let stale = deadlines.fired(1, now: 1)
        #expect(stale == nil)
        #expect(deadlines.pending.count == 1)
    }

    /// A removed node's deadlines leave: the timer is armed again for the earliest of the rest,
    /// and stops when none is left.
    @Test func aRemovedNodesDeadlinesLeaveAndTheTimerFitsTheRest() {
        var deadlines = TreeDeadlines()
        deadlines.apply(delay(0.5), of: screen, now: 0)
        deadlines.apply(sweep, of: row, now: 0)
        _ = deadlines.rearm(now: 0)
        deadlines.removeAll(of: screen)
        var arming = deadlines.rearm(now: 0.25)
        #expect(arming == .start(after: 0.75, repeating: 1, leeway: 0.1, generation: 2), "the row's sweep")
        deadlines.removeAll(of: row)
        arming = deadlines.rearm(now: 0.3)
        #expect(arming == .stop)
        #expect(deadlines.armed == nil)
        arming = deadlines.rearm(now: 0.4)
        #expect(arming == nil, "no timer runs")
    }

    private final class Target: DeadlineTarget {
        func deadlineFired(generation: UInt64) {}
    }

    /// A call whose target went leaves its node's list when another call of the node changes,
    /// even while it is not the earliest.
    @Test func aCallIntoNothingLeavesWhenItsNodesCallsChange() {
        var deadlines = TreeDeadlines()
        let watch = Target()
        do {
            let gone = Target()
            deadlines.call(gone, after: 5, of: screen, now: 0)
        }
        deadlines.call(watch, after: 10, of: screen, now: 0)
        #expect(deadlines.pending.count == 1)
        withExtendedLifetime(watch) {}
    }

    @Test func aPollWhoseManagerWentDoesNotComeBack() throws {
        var deadlines = TreeDeadlines()
        do {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            let rollUp = ProgressRollUp(driver: manager.driver)
            deadlines.call(rollUp, after: 0.1, repeating: 0.1, of: screen, now: 0)
            deadlines.call(rollUp, after: 0.1, repeating: 0.1, of: section, now: 0)
            _ = deadlines.rearm(now: 0)
            let firing = deadlines.fired(1, now: 0.1)
            let fired = try #require(firing)
            #expect(fired.due.count == 2)
            #expect(deadlines.pending.count == 2, "both polls come back while their roll-up lives")
            deadlines.call(rollUp, after: nil, of: section, now: 0.1)
            #expect(deadlines.pending.map(\.node) == [screen])
        }
        let firing = deadlines.fired(1, now: 0.2)
        let fired = try #require(firing)
        #expect(fired.due.count == 1)
        #expect(deadlines.pending.isEmpty)
    }
}
