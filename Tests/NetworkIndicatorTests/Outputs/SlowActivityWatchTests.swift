import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The watch behind `observeSlowNetworkActivity`, driven directly: a deadline of an earlier busy
/// period, due in the same firing as the change that began a new one, is not the new one's.
@MainActor
@Suite("Slow-activity watch")
struct SlowActivityWatchTests {
    private final class Owner {}

    @Test func aDeadlineOfAnEarlierPeriodDoesNotReportTheNewOne() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let owner = Owner()
        // An output on the node, as the count observation that feeds a watch is one.
        manager.observeVisibility(owner: owner) { _, _ in }
        var told: [Bool] = []
        let watch = SlowActivityWatch(threshold: 5, delivery: manager.driver.delivery, node: manager.driver.node) {
            told.append($0)
        }
        watch.countChanged(1)  // period 1
        watch.countChanged(0)
        watch.countChanged(2)  // period 2, begun before period 1's due deadline ran
        watch.deadlineFired(generation: 1)
        #expect(told.isEmpty, "period 1's deadline")
        watch.deadlineFired(generation: 2)
        #expect(told == [true])
        withExtendedLifetime(owner) {}
    }

    /// The threshold's timer follows every one-shot timer's rule: it may run a tenth of its delay
    /// late, but at most 50 ms, so that the system can coalesce the wake-up.
    @Test func theThresholdsTimerMayRunAtMostFiftyMillisecondsLate() {
        let recording = SchedulingRecorder()
        let manager = NetworkIndicatorManager(scheduler: recording)
        manager.settings.completionCheckInterval = 3600
        let owner = Owner()
        manager.observeSlowNetworkActivity(after: 8, owner: owner) { _, _ in }
        let token = manager.beganNetworkTask()
        recording.base.runPendingWork()
        let thresholds = recording.requests.filter { $0.delay == 8 }
        #expect(thresholds.count == 1)
        #expect(thresholds.first?.leeway == 0.05)
        withExtendedLifetime((owner, token)) {}
    }

    /// The tree's one timer serves every deadline: armed for the earliest, it may run late only
    /// as far as every deadline due in that window allows. A screen's 20 ms threshold, due 10 ms
    /// after the app's 1 s one (which alone could wait 50 ms), is reported at most 2 ms late.
    @Test func aDeadlineDueJustAfterTheEarliestIsNotDelayedByItsLeeway() {
        let recording = SchedulingRecorder()
        let app = NetworkIndicatorManager(scheduler: recording)
        app.settings.completionCheckInterval = 3600
        let screen = NetworkIndicatorManager(parent: app, label: "screen")
        let owner = Owner()
        app.observeSlowNetworkActivity(after: 1, owner: owner) { _, _ in }
        screen.observeSlowNetworkActivity(after: 0.02, owner: owner) { _, _ in }
        let appToken = app.beganNetworkTask()
        recording.base.runPendingWork()
        recording.base.advance(by: 0.99)
        let screenToken = screen.beganNetworkTask()
        recording.base.runPendingWork()
        // The screen's threshold is due at 1.01 and may run until 1.012; the timer was armed at 0.99.
        let last = recording.requests.last
        #expect(last.map { $0.delay + $0.leeway } ?? .infinity <= 0.022 + 1e-9)
        withExtendedLifetime((owner, appToken, screenToken)) {}
    }
}
