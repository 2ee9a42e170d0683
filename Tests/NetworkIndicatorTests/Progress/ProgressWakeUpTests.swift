import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// What makes a manager read progress without being asked: a listener, while one is live, and
/// a `NetworkActivityProgress` whose unknown total becomes known.
@MainActor
@Suite("What wakes progress reading")
struct ProgressWakeUpTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager
    private let owner = Owner()

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
        // No delay timers of the engine's own: the only timer left is the progress timer.
        manager.settings.startDelay = 0
        manager.settings.completionDelay = 0
    }

    final class Owner {}

    /// `NetworkIndicatorObservation.cancel()`: "the body is freed at once and never called
    /// again". A cancelled observation is no listener, though its owner lives on: the poll
    /// stops at its next firing.
    @Test func aCancelledObservationWhoseOwnerLivesLeavesNoPollRunning() {
        let download = Progress(totalUnitCount: 10)
        let token = manager.beganNetworkTask(progress: download)
        let observation = manager.observeProgress(owner: owner) { _, _ in }
        scheduler.runPendingWork()
        #expect(scheduler.pendingWorkCount == 1, "the poll runs while the observation listens")
        observation.cancel()
        download.completedUnitCount = 5
        scheduler.advance(by: 1)
        #expect(scheduler.pendingWorkCount == 0, "no poll for a cancelled observation")
        withExtendedLifetime((token, owner)) {}
    }

    /// `NetworkActivityProgress.totalUnitCount`: "giving an unknown total a value tells the
    /// managers listing the progress at once". A total of one unit is known: a progress left
    /// behind by an ended task, its total changed from 1 to 4, wakes nobody.
    @Test func aTotalChangedFromOneUnitIsNoTotalBecomingKnown() {
        manager.observeProgress(owner: owner) { _, _ in }
        let pages = NetworkActivityProgress(totalUnitCount: 1)
        var token: NetworkActivityToken? = manager.beganNetworkTask(progress: pages)
        scheduler.advance(by: 1)
        token = nil
        scheduler.advance(by: 1)  // read: the batch ended
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        let enqueued = scheduler.enqueuedWorkCount
        pages.totalUnitCount = 4
        #expect(scheduler.enqueuedWorkCount == enqueued, "its size was known already")
        withExtendedLifetime(token) {}
    }
}
