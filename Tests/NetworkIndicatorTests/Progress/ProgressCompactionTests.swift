import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The roll-up compacts its entries when their number doubles, not on every begin.
@Suite("Progress compaction")
struct ProgressCompactionTests {
    /// A progress that counts how often its total is read: each read is one roll-up pass.
    final class CountingProgress: Progress, @unchecked Sendable {
        // @unchecked Sendable: its only stored property is a lock-protected box.
        private let reads = LockedState(0)

        var readCount: Int { reads.withLock { $0 } }

        override var totalUnitCount: Int64 {
            get {
                reads.withLock { $0 += 1 }
                return super.totalUnitCount
            }
            set { super.totalUnitCount = newValue }
        }
    }

    @Test func beginningPastTheThresholdWithNothingEndedDoesNotReadEveryTask() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let watched = CountingProgress(parent: nil, userInfo: nil)
        watched.totalUnitCount = 100
        var tokens = [manager.beganNetworkTask(progress: watched)]
        for _ in 1..<(ProgressRollUp.minimumCompactionThreshold + 5) {
            tokens.append(manager.beganNetworkTask(progress: Progress(totalUnitCount: 100)))
        }
        let readsBefore = watched.readCount
        for _ in 0..<10 {
            tokens.append(manager.beganNetworkTask(progress: Progress(totalUnitCount: 100)))
        }
        #expect(watched.readCount == readsBefore, "ten begins, no roll-up pass: nothing ended to fold")
        withExtendedLifetime(tokens) {}
    }
}
