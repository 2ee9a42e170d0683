import Testing

@testable import NetworkIndicator

/// How the roll-up's state follows the scope's busy periods, read on any thread in any order.
@Suite("Progress roll-up periods")
struct RollUpStateTests {
    private func busy(since period: UInt64) -> ProgressRollUp.State {
        var state = ProgressRollUp.State()
        state.observe(ProgressActivity(count: 1, busyPeriod: period))
        state.finishedUnits = 100
        return state
    }

    @Test func theSameBusyPeriodKeepsEndedWork() {
        var state = busy(since: 3)
        state.observe(ProgressActivity(count: 2, busyPeriod: 3))
        #expect(state.finishedUnits == 100)
    }

    @Test func aLaterBusyPeriodForgetsEndedWork() {
        var state = busy(since: 3)
        let period = state.period
        state.observe(ProgressActivity(count: 1, busyPeriod: 4))
        #expect(state.finishedUnits == 0)
        #expect(state.period != period)
    }

    @Test func anIdleScopeForgetsEndedWork() {
        var state = busy(since: 3)
        state.observe(ProgressActivity(count: 0, busyPeriod: 3))
        #expect(state.finishedUnits == 0)
    }

    @Test func aStaleReadingFromAnEarlierPeriodIsIgnored() {
        var state = busy(since: 3)
        let period = state.period
        state.observe(ProgressActivity(count: 0, busyPeriod: 2))
        #expect(state.finishedUnits == 100)
        #expect(state.period == period)
    }
}
