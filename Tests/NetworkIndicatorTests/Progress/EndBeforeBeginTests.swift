import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A begin with progress first settles the batch (the parts that ended leave it), then begins
/// its task. A task that ends on another thread between the two, after the settle and before
/// the begin, has ended before the new task began: the new task must find the batch as a begin
/// after that end would. Pinned with a scheduler whose clock, read there, runs the other call.
@MainActor
@Suite("A task that ends just before another begins")
struct EndBeforeBeginTests {
    private final class RequestToken: Sendable {}

    private let scheduler = HookedScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: ignoreDiagnostics)
    }

    /// A download at `completed` of 100 on `token`, read once, so that the batch runs.
    private func download(_ token: RequestToken, completed: Int64) -> NetworkActivityProgress {
        let progress = NetworkActivityProgress(totalUnitCount: 100)
        progress.completedUnitCount = completed
        manager.beganNetworkTask(withToken: token, progress: progress)
        #expect(manager.progressSnapshot().fractionCompleted == Double(completed) / 100)
        return progress
    }

    /// Begins a task of `token` measured by `progress` while `end` runs between the begin's
    /// settle and its hold, as another thread's call would; returns the reading just after.
    private func snapshot(
        afterBeginning token: RequestToken,
        measuredBy progress: NetworkActivityProgress = NetworkActivityProgress(totalUnitCount: 100),
        whileJustBefore end: @escaping @Sendable () -> Void
    ) -> NetworkProgressSnapshot {
        scheduler.beforeNextNow(end)
        manager.beganNetworkTask(withToken: token, progress: progress)
        return manager.progressSnapshot()
    }

    /// The only download completes and finishes just before the next begins: its batch is over,
    /// and the next download starts a batch of its own, at 0.
    @Test func theNextDownloadStartsABatchOfItsOwn() {
        let first = RequestToken()
        let progress = download(first, completed: 50)
        let manager = manager
        let next = RequestToken()
        let snapshot = snapshot(afterBeginning: next) {
            progress.completedUnitCount = 100
            manager.finishedNetworkTask(forToken: first)
        }
        #expect(snapshot.fractionCompleted == 0, "the first download's batch ended before this one began")
        #expect(snapshot.totalUnitCount == 100)
        manager.finishedNetworkTask(forToken: next)
    }

    /// A request at 20 % fails and finishes just before its retry begins on the same token: the
    /// failed part stays ended and the retry reads its own progress.
    @Test func aRetryOnTheSameTokenLeavesTheEndedPartBehind() {
        let token = RequestToken()
        _ = download(token, completed: 20)
        let manager = manager
        let snapshot = snapshot(afterBeginning: token) { manager.finishedNetworkTask(forToken: token) }
        #expect(snapshot.fractionCompleted == 0, "the retry at 0 of 100, alone")
        #expect(snapshot.totalUnitCount == 100)
        manager.finishedNetworkTask(forToken: token)
    }

    /// A sign-out resets the manager just before a new download begins: the reset ended the
    /// batch, and the new download reads its own progress.
    @Test func aResetJustBeforeABeginEndsTheBatch() {
        let first = RequestToken()
        _ = download(first, completed: 50)
        let manager = manager
        let next = RequestToken()
        let progress = NetworkActivityProgress(totalUnitCount: 100)
        progress.completedUnitCount = 10
        let snapshot = snapshot(afterBeginning: next, measuredBy: progress) { manager.resetNetworkActivity() }
        #expect(snapshot.fractionCompleted == 0.1, "the new download alone")
        #expect(snapshot.totalUnitCount == 100)
        manager.finishedNetworkTask(forToken: next)
        withExtendedLifetime(first) {}
    }
}
