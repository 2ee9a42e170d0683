import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// ShowingProgress.md: "A reset (`resetNetworkActivity()`) is not a cancel: it ends the tasks it
/// finds, and their parts count as any ended part does": done while the batch runs, unless
/// cancelled. A released group's parts end done too. And "begun again *with* the same
/// `Progress`, an ended part that was not paused counts live again: its units fall from all to
/// what it reads."
@MainActor
@Suite("Parts ended by a reset, a release or a retry")
struct EndedPartCountingTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    @Test func aScopesResetCountsItsPartsDoneInTheParentsBar() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let task = Token()
        screen.beganNetworkTask(withToken: task, progress: progress(50, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        screen.resetNetworkActivity()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "100 of 200")
        #expect(screen.progressSnapshot().fractionCompleted == nil, "the screen is idle")
        withExtendedLifetime((other, task)) {}
    }

    /// The reset ends the part at once: its token begun again without progress before anyone
    /// reads does not bring it back.
    @Test func aScopesResetEndsItsPartThoughItsTokenBeginsAgainBeforeAReading() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let task = Token()
        screen.beganNetworkTask(withToken: task, progress: progress(50, of: 100))
        screen.resetNetworkActivity()
        screen.beganNetworkTask(withToken: task)
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5, "100 of 200")
        #expect(snapshot.hasIndeterminateWork, "the task begun again is not measured")
        withExtendedLifetime((other, task)) {}
    }

    /// A part whose `Progress` was cancelled before the reset stays out of the bar.
    @Test func aResetLeavesACancelledPartOutOfTheBar() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        let task = Token()
        let cancelled = progress(30, of: 100)
        screen.beganNetworkTask(withToken: task, progress: cancelled)
        cancelled.cancel()
        screen.resetNetworkActivity()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.1)
        #expect(snapshot.totalUnitCount == 100)
        withExtendedLifetime((other, task)) {}
    }

    /// A reset of the whole tree ends its batch: the next one, begun at once and unread in
    /// between, is paced from its own start.
    @Test func aResetStartsTheNextBatchsPaceAfresh() {
        let first = manager.beganNetworkTask(progress: progress(0, of: 100))
        scheduler.advance(by: 100)
        manager.resetNetworkActivity()
        let bytes = progress(0, of: 100)
        let second = manager.beganNetworkTask(progress: bytes)
        scheduler.advance(by: 10)
        bytes.completedUnitCount = 50
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5)
        #expect(snapshot.estimatedTimeRemaining == 10, "50 in 10 s, 50 left")
        withExtendedLifetime((first, second)) {}
    }

    /// `NetworkActivityGroup`'s progress: a group released with an operation open ends its part
    /// done, as a finish would.
    @Test func aReleasedGroupsPartsCountAsDone() {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        var uploads: NetworkActivityGroup? = NetworkActivityGroup(manager: manager, label: "uploads")
        uploads?.operationStarted(progress: progress(20, of: 100))
        uploads = nil
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "100 of 200")
        withExtendedLifetime((other, uploads)) {}
    }

    @Test func anEndedPartBegunAgainWithTheSameProgressCountsLive() {
        let task = Token()
        let bytes = progress(30, of: 100)
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        manager.beganNetworkTask(withToken: task, progress: bytes)
        manager.finishedNetworkTask(forToken: task)
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "ended done: 100 of 200")
        manager.beganNetworkTask(withToken: task, progress: bytes)
        #expect(manager.progressSnapshot().fractionCompleted == 0.15, "live again: 30 of 200")
        manager.finishedNetworkTask(forToken: task)
        withExtendedLifetime((other, task)) {}
    }

    /// A retry after a reset, with the same progress on the same token, nobody reading in between.
    @Test func aRetryAfterAResetWithTheSameProgressCountsLive() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let task = Token()
        let bytes = progress(30, of: 100)
        screen.beganNetworkTask(withToken: task, progress: bytes)
        screen.resetNetworkActivity()
        screen.beganNetworkTask(withToken: task, progress: bytes)
        #expect(screen.progressSnapshot().fractionCompleted == 0.3)
        #expect(manager.progressSnapshot().fractionCompleted == 0.15, "30 of 200")
        withExtendedLifetime((other, task)) {}
    }
}
