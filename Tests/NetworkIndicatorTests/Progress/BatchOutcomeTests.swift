import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// How a batch ended, as an overlay reads it at the end of a load
/// (`lastProgressBatchEndedComplete()`): with every unit of every part, or not.
@MainActor
@Suite("Progress batches, how they ended")
struct BatchOutcomeTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    /// What an overlay reads at the end of a load (`lastProgressBatchEndedComplete()`): every
    /// unit of every part, or not (a cancelled part, a paused one), and nothing while a batch
    /// runs or after a new one begins.
    @Test func aBatchSaysWhetherItEndedWithEveryUnit() {
        #expect(!manager.lastProgressBatchEndedComplete(), "none ended yet")
        let download = progress(30, of: 100)
        var token: NetworkActivityToken? = manager.beganNetworkTask(progress: download)
        #expect(!manager.lastProgressBatchEndedComplete(), "it runs")
        token = nil
        #expect(manager.lastProgressBatchEndedComplete(), "ended, not cancelled: done")

        token = manager.beganNetworkTask(progress: progress(0, of: 100))
        #expect(!manager.lastProgressBatchEndedComplete(), "a new batch runs")
        let cancelled = progress(50, of: 100)
        let other = manager.beganNetworkTask(progress: cancelled)
        cancelled.cancel()
        token = nil
        withExtendedLifetime(other) {}
        #expect(!manager.lastProgressBatchEndedComplete(), "a part was cancelled")
        _ = token
    }

    /// A batch of one single-unit part (a one-step job) that ended ended complete: a part's size
    /// does not decide, only whether it had one.
    @Test func aBatchOfOneUnitEndsComplete() {
        var token: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(1, of: 1))
        token = nil
        #expect(manager.lastProgressBatchEndedComplete())
        _ = token
    }

    /// A batch whose last part ended with no known size (its size became unknown after it began
    /// the batch) has no unit left to show done: its bar does not fade out as complete.
    @Test func aBatchWhosePartEndedOfUnknownSizeDidNotEndComplete() {
        let download = progress(30, of: 100)
        var token: NetworkActivityToken? = manager.beganNetworkTask(progress: download)
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        download.totalUnitCount = -1
        token = nil
        #expect(!manager.lastProgressBatchEndedComplete())
        _ = token
    }

    /// Review finding: a part paused short and then resumed and completed leaves its batch
    /// complete; only a pause that stays short makes it incomplete.
    @Test func aPauseTakenBackLeavesTheBatchComplete() {
        let task = NSObject()
        let bytes = progress(30, of: 100)
        var other: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(100, of: 100))
        manager.beganNetworkTask(withToken: task, progress: bytes)
        bytes.pause()
        manager.finishedNetworkTask(forToken: task)
        _ = manager.progressSnapshot()
        bytes.resume()
        manager.beganNetworkTask(withToken: task, progress: bytes)
        bytes.completedUnitCount = 100
        manager.finishedNetworkTask(forToken: task)
        other = nil
        #expect(manager.lastProgressBatchEndedComplete())

        let paused = progress(30, of: 100)
        manager.beganNetworkTask(withToken: task, progress: paused)
        paused.pause()
        manager.finishedNetworkTask(forToken: task)
        #expect(!manager.lastProgressBatchEndedComplete(), "paused short, and left so")
        _ = other
    }
}
