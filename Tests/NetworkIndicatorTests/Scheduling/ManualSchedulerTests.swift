import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The manual scheduler is public API that users' tests rely on: its clock, its ordering and its
/// counters are pinned down here, not only exercised through the manager.
@MainActor
@Suite("Manual scheduler")
struct ManualSchedulerTests {
    private let scheduler = ManualNetworkIndicatorScheduler(now: 10)
    private let log = RunLog()

    /// Work that logs `name` with the time it ran. It holds the scheduler weakly: work still
    /// pending when a test ends would otherwise keep its scheduler alive, and so itself.
    private func record(_ name: String) -> @MainActor @Sendable () -> Void {
        { [log, weak scheduler] in log.append(name, at: scheduler?.now ?? .nan) }
    }

    @Test func timeStandsStillUntilAdvanced() {
        _ = scheduler.schedule(after: 0, repeating: nil, leeway: 0, record("timer"))
        scheduler.enqueue(record("hop"))
        #expect(scheduler.now == 10)
        #expect(log.names.isEmpty, "nothing runs inside the call that scheduled it")
    }

    @Test func advancingRunsDueWorkInDeadlineOrderAtItsDeadline() {
        _ = scheduler.schedule(after: 0.3, repeating: nil, leeway: 0, record("c"))
        _ = scheduler.schedule(after: 0.1, repeating: nil, leeway: 0, record("a"))
        _ = scheduler.schedule(after: 0.2, repeating: nil, leeway: 0, record("b"))
        scheduler.advance(by: 0.5)
        #expect(log.names == ["a", "b", "c"])
        #expect(log.times == [10.1, 10.2, 10.3])
        #expect(scheduler.now == 10.5)
    }

    @Test func workWithTheSameDeadlineRunsInTheOrderItWasScheduled() {
        for name in ["first", "second", "third"] {
            _ = scheduler.schedule(after: 0.1, repeating: nil, leeway: 0, record(name))
        }
        scheduler.advance(by: 0.1)
        #expect(log.names == ["first", "second", "third"])
    }

    @Test func workDueAfterTheAdvanceWaitsForTheNext() {
        _ = scheduler.schedule(after: 1, repeating: nil, leeway: 0, record("later"))
        scheduler.advance(by: 0.5)
        #expect(log.names.isEmpty)
        #expect(scheduler.nextDeadline == 11)
        scheduler.advance(by: 0.5)
        #expect(log.names == ["later"])
        #expect(scheduler.nextDeadline == nil)
    }

    @Test func runPendingWorkRunsHopsWithoutMovingTheClock() {
        scheduler.enqueue(record("hop"))
        _ = scheduler.schedule(after: 0.1, repeating: nil, leeway: 0, record("timer"))
        scheduler.runPendingWork()
        #expect(log.names == ["hop"])
        #expect(scheduler.now == 10)
    }

    @Test func aRepeatingTimerFiresEveryIntervalUntilCancelled() {
        let timer = scheduler.schedule(after: 0.1, repeating: 0.25, leeway: 0, record("tick"))
        scheduler.advance(by: 1)
        #expect(log.times == [10.1, 10.35, 10.6, 10.85])
        timer.cancel()
        scheduler.advance(by: 1)
        #expect(log.names.count == 4)
    }

    @Test func intervalsUnderAMillisecondCountAsOne() {
        let timer = scheduler.schedule(after: 0, repeating: 0.000_5, leeway: 0, record("tick"))
        scheduler.advance(by: 0.0105)
        #expect(log.names.count == 11, "at 0, 1, …, 10 ms")
        timer.cancel()
    }

    @Test func aNegativeDelayIsDueAtOnce() {
        _ = scheduler.schedule(after: -1, repeating: nil, leeway: 0, record("timer"))
        #expect(scheduler.nextDeadline == 10)
        scheduler.runPendingWork()
        #expect(log.times == [10])
    }

    @Test func aNegativeAdvanceRunsWhatIsDueAndLeavesTheClockWhereItIs() {
        scheduler.enqueue(record("hop"))
        scheduler.advance(by: -1)
        #expect(log.names == ["hop"])
        #expect(scheduler.now == 10)
    }

    @Test func workScheduledWhileAdvancingRunsInTheSameAdvanceIfDue() {
        _ = scheduler.schedule(after: 0.1, repeating: nil, leeway: 0) { [weak scheduler, log] in
            guard let scheduler else { return }
            log.append("outer", at: scheduler.now)
            _ = scheduler.schedule(after: 0.2, repeating: nil, leeway: 0) { [weak scheduler] in
                log.append("inner", at: scheduler?.now ?? .nan)
            }
            _ = scheduler.schedule(after: 0.5, repeating: nil, leeway: 0) { [weak scheduler] in
                log.append("too late", at: scheduler?.now ?? .nan)
            }
        }
        scheduler.advance(by: 0.4)
        #expect(log.names == ["outer", "inner"])
        #expect(log.times.last == 10.3)
    }

    @Test func aCancelledTimerNeverRunsAndIsNoLongerPending() {
        let timer = scheduler.schedule(after: 0.1, repeating: nil, leeway: 0, record("timer"))
        #expect(scheduler.pendingWorkCount == 1)
        timer.cancel()
        #expect(scheduler.pendingWorkCount == 0)
        scheduler.advance(by: 1)
        #expect(log.names.isEmpty)
    }

    @Test func countersCountRequestsRunsAndPendingWork() {
        scheduler.enqueue(record("hop"))
        scheduler.enqueue(record("hop"))
        let timer = scheduler.schedule(after: 0.1, repeating: 0.1, leeway: 0, record("tick"))
        #expect(scheduler.enqueuedWorkCount == 2)
        #expect(scheduler.scheduledTimerCount == 1)
        #expect(scheduler.pendingWorkCount == 3)
        scheduler.advance(by: 0.25)
        #expect(scheduler.executedWorkCount == 4, "two hops and two ticks")
        #expect(scheduler.pendingWorkCount == 1, "a repeating timer stays pending, once")
        timer.cancel()
    }

    /// A timer repeating every 0.1 s fires three times in 0.3 s, as a dispatch timer, which
    /// counts whole nanoseconds, does (three additions of 0.1 make 0.30000000000000004), from
    /// any origin: a date's seconds (7.6e8) or a long uptime's (5e6, 58 days), where a `Double`
    /// of seconds no longer holds a nanosecond.
    @Test(arguments: [0, 5e6, 7.6e8])
    func aRepeatingTimerFiresAtEveryIntervalThatFallsDue(origin: Double) {
        let scheduler = ManualNetworkIndicatorScheduler(now: origin)
        let fired = LockedState(0)
        let timer = scheduler.schedule(after: 0.1, repeating: 0.1, leeway: 0) { fired.withLock { $0 += 1 } }
        scheduler.advance(by: 0.1)
        scheduler.advance(by: 0.2)
        #expect(fired.withLock { $0 } == 3)
        #expect(scheduler.now == origin + 0.3, "the clock stops where it was sent")
        timer.cancel()
    }

    /// A manager's start delay of 0.3 s, advanced in three steps of 0.1 s, shows at 0.3 s,
    /// whatever the clock's origin.
    @Test(arguments: [0, 5e6, 7.6e8])
    func aStartDelayEndsWhenTheClockReachesIt(origin: Double) {
        let scheduler = ManualNetworkIndicatorScheduler(now: origin)
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 0.3
        let output = RecordingNetworkIndicatorOutput()
        manager.addOutput(output)
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        for _ in 0..<3 { scheduler.advance(by: 0.1) }
        #expect(output.visibilityChanges == [false, true])
        withExtendedLifetime(token) {}
    }

    /// A clock advanced to its end (about 292 years) stops there: a repeating timer due then
    /// fires once, rather than forever at the same instant.
    @Test func aRepeatingTimerAtTheClocksEndFiresOnce() {
        scheduler.advance(by: 9e9)
        scheduler.advance(by: 9e9)
        let timer = scheduler.schedule(after: 1, repeating: 1, leeway: 0, record("timer"))
        scheduler.advance(by: 1)
        #expect(log.names == ["timer"])
        #expect(scheduler.pendingWorkCount == 0)
        timer.cancel()
    }

    /// An advance that is not a number is one of zero, as a negative one is: what is due runs.
    @Test func anAdvanceThatIsNotANumberRunsWhatIsDue() {
        scheduler.enqueue(record("hop"))
        scheduler.advance(by: .nan)
        #expect(log.names == ["hop"])
        #expect(scheduler.now == 10)
    }

    /// An interval or a delay that is not a number counts as the shortest one (a millisecond,
    /// and no delay), as the main queue's scheduler takes them: the timer keeps repeating.
    @Test func anIntervalOrADelayThatIsNotANumberCountsAsTheShortest() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let fired = LockedState(0)
        let timer = scheduler.schedule(after: .nan, repeating: .nan, leeway: 0) { fired.withLock { $0 += 1 } }
        #expect(scheduler.nextDeadline == 0)
        scheduler.advance(by: 0.01)
        #expect(fired.withLock { $0 } == 11, "at 0, then every millisecond")
        #expect(scheduler.nextDeadline.map { abs($0 - 0.011) < 1e-9 } == true)
        timer.cancel()
    }

    /// Deadlines equal in whole nanoseconds run first-scheduled first: a timer repeating every
    /// 0.1 s, scheduled before a one-shot after 0.3 s, fires its third time before it.
    @Test func deadlinesEqualInNanosecondsRunFirstScheduledFirst() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let order = LockedState<[String]>([])
        let repeating = scheduler.schedule(after: 0.1, repeating: 0.1, leeway: 0) {
            order.withLock { $0.append("repeating") }
        }
        let oneShot = scheduler.schedule(after: 0.3, repeating: nil, leeway: 0) {
            order.withLock { $0.append("one-shot") }
        }
        scheduler.advance(by: 0.3)
        #expect(order.withLock { $0 } == ["repeating", "repeating", "repeating", "one-shot"])
        repeating.cancel()
        oneShot.cancel()
    }
}

/// What ran, and when by the manual clock.
@MainActor
private final class RunLog: Sendable {
    private(set) var names: [String] = []
    private(set) var times: [Double] = []

    func append(_ name: String, at time: Double) {
        names.append(name)
        times.append((time * 1_000).rounded() / 1_000)
    }
}
