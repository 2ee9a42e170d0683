import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The roll-up's list of entries stays cheap to add to while many tasks with progress are open.
@Suite("Progress roll-up compaction")
struct RollUpCompactionTests {
    @Test func compactionThresholdGrowsWhenNoTaskHasEnded() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let open = ProgressRollUp.minimumCompactionThreshold
        let tokens = (0..<open).map { _ in
            manager.beganNetworkTask(progress: Progress.discreteProgress(totalUnitCount: 10))
        }
        // The last begin reached the threshold and read every entry; none had ended.
        let threshold = manager.progressRollUp.state.withLock { $0.compactionThreshold }
        #expect(threshold == open * 2)
        withExtendedLifetime(tokens) {}
    }
}
