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
}
