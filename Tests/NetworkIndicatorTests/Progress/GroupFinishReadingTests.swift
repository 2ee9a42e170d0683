import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A group's finish after a part that a later operation outlives completed: what the bar reads
/// never depends on whether anyone read before the finish, and two readings with nothing
/// between them agree (ShowingProgress.md: "whether a batch is over … never depends on whether
/// anyone read in between"; "a complete part that left this way still measures its operation
/// … until the group's next finish").
@MainActor
@Suite("A group's finish, read or not")
struct GroupFinishReadingTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    private func bytes(_ completed: Int64, of total: Int64) -> Progress {
        let progress = Progress.discreteProgress(totalUnitCount: total)
        progress.completedUnitCount = completed
        return progress
    }

    /// Two uploads, both complete, then one finish: the first is outlived by the second, the
    /// second is taken by the finish. Both leave and nothing runs: no full bar stays up.
    @Test(arguments: [false, true])
    func twoCompletePartsAndAFinishEndTheBatch(readBeforeFinish: Bool) {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = bytes(0, of: 100)
        let second = bytes(0, of: 100)
        uploads.operationStarted(progress: first)
        uploads.operationStarted(progress: second)
        second.completedUnitCount = 100
        first.completedUnitCount = 100
        if readBeforeFinish { _ = manager.progressSnapshot() }
        uploads.operationFinished()
        #expect(manager.progressSnapshot().fractionCompleted == nil, "nothing runs: no full bar")
        uploads.operationStarted(progress: bytes(10, of: 100))
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.1, "the next upload begins a batch of its own")
        #expect(snapshot.totalUnitCount == 100)
        withExtendedLifetime(uploads) {}
    }

    /// A part outlived by a later operation completes after that operation finished: it leaves
    /// as done, and measures its still-open operation until the group's next finish, on every
    /// reading, not only the one it left on.
    @Test func anOutlivedPartThatLeftCompleteMeasuresItsOperationUntilTheNextFinish() {
        let other = manager.beganNetworkTask(progress: bytes(0, of: 100))
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = bytes(50, of: 100)
        let second = bytes(0, of: 100)
        uploads.operationStarted(progress: first)
        uploads.operationStarted(progress: second)
        second.completedUnitCount = 100
        uploads.operationFinished()  // the complete part's: the second
        first.completedUnitCount = 100
        let firstReading = manager.progressSnapshot()
        let secondReading = manager.progressSnapshot()
        #expect(firstReading == secondReading, "nothing changed between the two readings")
        #expect(!secondReading.hasIndeterminateWork, "the first upload's part still measures its operation")
        #expect(secondReading.fractionCompleted == 200.0 / 300)
        uploads.operationFinished()
        let afterFinish = manager.progressSnapshot()
        #expect(!afterFinish.hasIndeterminateWork, "the group's last operation finished")
        #expect(afterFinish.fractionCompleted == 200.0 / 300)
        withExtendedLifetime((other, uploads)) {}
    }
}
