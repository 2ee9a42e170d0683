import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// ShowingProgress.md: a part whose work a cancel stops leaves its batch unless complete: "its
/// units drop out of both sums". A manager's cancel reaches its scopes' work, so an ancestor's
/// cancel takes a scope's cancellable parts out of every bar above them, and leaves a complete
/// one done.
@MainActor
@Suite("Parts an ancestor's cancel takes out")
struct AncestorCancelPartTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    @Test func anAncestorsCancelTakesAScopesCancellableTokenPartOut() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let other = manager.beganNetworkTask(progress: progress(20, of: 100))
        let download = CancelTests.Work()
        screen.beganNetworkTask(withToken: download, progress: progress(50, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.35)
        manager.cancelNetworkTasks()
        #expect(download.cancelCount == 1)
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.2)
        #expect(snapshot.totalUnitCount == 100)
        withExtendedLifetime(other) {}
    }

    @Test func anAncestorsCancelLeavesAScopesCompleteCancellablePartDone() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let download = CancelTests.Work()
        screen.beganNetworkTask(withToken: download, progress: progress(100, of: 100))
        manager.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "its bytes came: 100 of 200")
        withExtendedLifetime(other) {}
    }

    /// A cancellable token begun twice, one of its progresses complete: the cancel takes out the
    /// other only.
    @Test func aCancelledTokenBegunTwiceKeepsItsCompletePart() {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let download = CancelTests.Work()
        manager.beganNetworkTask(withToken: download, progress: progress(100, of: 100))
        manager.beganNetworkTask(withToken: download, progress: progress(40, of: 100))
        manager.cancelNetworkTasks()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.completedUnitCount == 100)
        #expect(snapshot.totalUnitCount == 200)
        withExtendedLifetime(other) {}
    }

    /// A tracked sequence's iteration is cancelled by its manager's cancel: a cancel of the
    /// scope's parent takes its part out too.
    @Test func anAncestorsCancelTakesAScopesTrackedSequenceOut() async {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let other = manager.beganNetworkTask(progress: progress(20, of: 100))
        let (pages, input) = AsyncStream.makeStream(of: Int.self)
        var iterator = pages.trackingNetworkActivity(in: screen, expectedElementCount: 2, weight: 100)
            .makeAsyncIterator()
        input.yield(1)
        _ = await iterator.next()
        #expect(manager.progressSnapshot().fractionCompleted == 0.35, "20 and 50 of 200")
        manager.cancelNetworkTasks()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.2)
        #expect(snapshot.totalUnitCount == 100)
        input.finish()
        withExtendedLifetime(other) {}
    }
}
