import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorOpenAPI

/// The pure decisions about one body's task, without lock, clock or middleware.
@Suite struct ResponseBodyActivityStateTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    /// A request's group with its one operation open, as the middleware makes it.
    private static func openTask(in manager: NetworkIndicatorManager) -> NetworkActivityGroup {
        let task = NetworkActivityGroup(manager: manager, label: "getThing")
        task.operationStarted()
        return task
    }

    private func makeState(now: Double = 100, timeout: Double? = 30) -> ResponseBodyActivityState {
        ResponseBodyActivityState(
            task: Self.openTask(in: manager),
            now: now,
            unreadTimeout: timeout
        )
    }

    @Test func endHandsBackTheTokenOnlyOnce() {
        var state = makeState()
        let first = state.end()
        let second = state.end()
        #expect(first != nil)
        #expect(second == nil)
    }

    @Test func timerWithAPendingReadStopsAndTheReadRearmsItForAWholeTimeout() {
        var state = makeState()
        _ = state.readWillBegin()
        guard case .nothing = state.timerFired(at: 200) else {
            Issue.record("expected the timer to stop")
            return
        }
        #expect(state.readDidEnd(at: 250) == 30)
    }

    @Test func readReturningWhileTheTimerRunsRearmsNothing() {
        var state = makeState()
        _ = state.readWillBegin()
        #expect(state.readDidEnd(at: 120) == nil)
    }

    @Test func onlyTheLastWaitingReadRearmsTheTimer() {
        var state = makeState()
        _ = state.readWillBegin()
        _ = state.readWillBegin()
        _ = state.timerFired(at: 200)
        let first = state.readDidEnd(at: 210)
        let second = state.readDidEnd(at: 220)
        #expect(first == nil)
        #expect(second == 30)
    }

    @Test func readReturningAfterTheTaskEndedRearmsNothing() {
        var state = makeState()
        _ = state.readWillBegin()
        _ = state.timerFired(at: 200)
        _ = state.end()
        #expect(state.readDidEnd(at: 210) == nil)
    }

    @Test(arguments: [0, -5] as [Double])
    func zeroOrNegativeTimeoutArmsAtOnceAndEndsAnIdleBody(timeout: Double) {
        var state = makeState(timeout: timeout)
        #expect(state.firstTimerDelay == 0)
        guard case .end = state.timerFired(at: 100) else {
            Issue.record("expected the task to end")
            return
        }
    }

    @Test(arguments: [0, -5] as [Double])
    func zeroOrNegativeTimeoutRearmsAtOnceWhenAWaitingReadReturns(timeout: Double) {
        var state = makeState(timeout: timeout)
        _ = state.readWillBegin()
        guard case .nothing = state.timerFired(at: 100) else {
            Issue.record("expected the timer to stop")
            return
        }
        #expect(state.readDidEnd(at: 105) == 0)
    }

    @Test func noTimeoutArmsNoTimer() {
        #expect(makeState(timeout: nil).firstTimerDelay == nil)
    }

    @Test func timerAfterARecentReadWaitsOnlyForTheRest() {
        var state = makeState()
        _ = state.readWillBegin()
        _ = state.readDidEnd(at: 120)
        guard case .rearm(let delay) = state.timerFired(at: 130) else {
            Issue.record("expected a rearm")
            return
        }
        #expect(delay == 20)
    }

    @Test func timerAfterAWholeIdleTimeoutEndsTheTask() {
        var state = makeState()
        guard case .end = state.timerFired(at: 130) else {
            Issue.record("expected the task to end")
            return
        }
        #expect(state.end() == nil, "the timer took the task")
    }

    @Test func timerAfterTheTaskEndedDoesNothing() {
        var state = makeState()
        _ = state.end()
        guard case .nothing = state.timerFired(at: 1_000) else {
            Issue.record("expected nothing")
            return
        }
    }

    @Test func readAfterTheTaskEndedDoesNotCount() {
        var state = makeState()
        _ = state.end()
        #expect(state.readWillBegin() == false)
    }

    @Test func aDeadlineToldAfterTheTaskEndedEndsNothing() {
        var state = makeState()
        _ = state.end()
        guard case .nothing = state.timerFired(at: 1_000) else {
            Issue.record("an ended task must not end again")
            return
        }
    }

    @Test func readsAfterTheRearmingOneRearmNothingMore() {
        var state = makeState()
        _ = state.readWillBegin()
        _ = state.timerFired(at: 130)  // finds the read waiting: stops
        let rearmed = state.readDidEnd(at: 140)
        _ = state.readWillBegin()
        let later = state.readDidEnd(at: 142)
        #expect(rearmed == 30)
        #expect(later == nil, "one timer at a time: the re-armed one is still running")
    }
}
