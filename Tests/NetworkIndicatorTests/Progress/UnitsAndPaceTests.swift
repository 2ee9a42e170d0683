import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// ShowingProgress.md: units weigh as the caller's units (bytes, or a `weight` given for a
/// sequence of pages); "unknown totals neither add nor dilute", and a task of unknown size
/// makes `hasIndeterminateWork`; `estimatedTimeRemaining` comes from the pace the batch has
/// kept since it began, and a part that leaves takes its units out of the pace.
@MainActor
@Suite("Weights, unknown sizes and pace")
struct UnitsAndPaceTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    @Test func aWeighedGroupPartCountsInTheCallersUnits() {
        let pages = NetworkActivityGroup(manager: manager, label: "pages")
        let progressOfPages = progress(1, of: 4)
        pages.operationStarted(progress: progressOfPages, weight: 1_000)
        let other = manager.beganNetworkTask(progress: progress(0, of: 1_000))
        var snapshot = manager.progressSnapshot()
        #expect(snapshot.completedUnitCount == 250)
        #expect(snapshot.totalUnitCount == 2_000)
        pages.operationFinished()
        snapshot = manager.progressSnapshot()
        #expect(snapshot.completedUnitCount == 1_000, "done: its whole weight")
        withExtendedLifetime((other, pages)) {}
    }

    /// A weight scales a known total; it gives a part of unknown total no size until its total
    /// is known.
    @Test func aWeightGivesNoSizeToAPartOfUnknownTotal() {
        let unknown = Progress.discreteProgress(totalUnitCount: 0)
        let weighed = manager.beganNetworkTask(progress: unknown, weight: 1_000)
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        var snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.1)
        #expect(snapshot.totalUnitCount == 100)
        #expect(snapshot.hasIndeterminateWork)
        unknown.totalUnitCount = 10
        unknown.completedUnitCount = 5
        snapshot = manager.progressSnapshot()
        #expect(snapshot.totalUnitCount == 1_100)
        #expect(snapshot.completedUnitCount == 510)
        #expect(!snapshot.hasIndeterminateWork)
        withExtendedLifetime((weighed, other)) {}
    }

    @Test func aPartWhoseTotalBecomesUnknownLeavesTheSums() {
        let bytes = progress(50, of: 100)
        let first = manager.beganNetworkTask(progress: bytes)
        let second = manager.beganNetworkTask(progress: progress(10, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        bytes.totalUnitCount = -1
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.1, "neither adds nor dilutes")
        #expect(snapshot.hasIndeterminateWork)
        withExtendedLifetime((first, second)) {}
    }

    @Test func aScopesGroupOperationWithoutProgressIsUnmeasuredInItsParent() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        uploads.operationStarted(progress: progress(10, of: 100))
        uploads.operationStarted()
        #expect(screen.progressSnapshot().hasIndeterminateWork)
        #expect(manager.progressSnapshot().hasIndeterminateWork)
        #expect(manager.progressSnapshot().fractionCompleted == 0.1)
        withExtendedLifetime(uploads) {}
    }

    @Test func aCancelledPartLeavesThePace() {
        let kept = progress(0, of: 100)
        let cancelled = NetworkActivityProgress(totalUnitCount: 100)
        let first = manager.beganNetworkTask(progress: kept)
        let second = manager.beganNetworkTask(progress: cancelled)
        scheduler.advance(by: 10)
        kept.completedUnitCount = 50
        cancelled.completedUnitCount = 50
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 10)
        cancelled.cancel()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5)
        #expect(snapshot.estimatedTimeRemaining == 10, "50 done in 10 s, 50 left")
        #expect(snapshot.hasIndeterminateWork, "the cancelled part's task runs on unmeasured")
        withExtendedLifetime((first, second)) {}
    }

    /// A scope's batch is paced from when the scope's batch began, its parent's from its own.
    @Test func aScopeJoiningLaterPacesFromItsOwnBatchStart() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let own = progress(0, of: 100)
        let first = manager.beganNetworkTask(progress: own)
        scheduler.advance(by: 10)
        let joined = progress(0, of: 100)
        let second = screen.beganNetworkTask(progress: joined)
        scheduler.advance(by: 10)
        own.completedUnitCount = 40
        joined.completedUnitCount = 20
        #expect(screen.progressSnapshot().estimatedTimeRemaining == 40, "20 in 10 s, 80 left")
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 20 * 140.0 / 60.0, "60 in 20 s, 140 left")
        withExtendedLifetime((first, second)) {}
    }

    /// A batch over and a new one begun at once, unread in between: the new one has no pace
    /// before its first unit, whatever the last one did.
    @Test func aNewBatchHasNoTimeRemainingBeforeItsFirstUnit() {
        let done = progress(0, of: 100)
        var first: NetworkActivityToken? = manager.beganNetworkTask(progress: done)
        scheduler.advance(by: 10)
        done.completedUnitCount = 100
        first = nil
        let second = manager.beganNetworkTask(progress: progress(0, of: 100))
        scheduler.advance(by: 10)
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0)
        #expect(snapshot.estimatedTimeRemaining == nil)
        withExtendedLifetime((first, second)) {}
    }
}
