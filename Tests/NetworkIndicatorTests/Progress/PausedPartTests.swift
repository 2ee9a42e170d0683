import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// ShowingProgress.md: "A paused part (its `Progress` paused, or its `URLSessionTask`
/// suspended) keeps the units it had while the batch runs; begin its task again with the same
/// progress (and `resume()` it) and its units count on, once." Here under the other rules a
/// paused part meets: another token or scope for the resume, a weight, a token begun twice, a
/// reset, a group's cancel and finish, and a reading of the scope only later.
@MainActor
@Suite("Paused parts")
struct PausedPartTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    /// A part paused under one opaque token and resumed under another, the pause's end and the
    /// resume on another thread with no main-queue reading between: the paused part still waits
    /// for one when the resume lists the same progress again, and the resume takes its units
    /// on, once, and its pace from the batch's start (70 units in 20 s: 130 more take 37 s).
    @Test func aPartPausedAndResumedUnderAnotherTokenOffTheMainQueueCountsOnce() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let paused = progress(0, of: 100)
        let first = LockedState<NetworkActivityToken?>(manager.beganNetworkTask(progress: paused))
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0)
        scheduler.advance(by: 10)
        paused.completedUnitCount = 30
        let second = LockedState<NetworkActivityToken?>(nil)
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            paused.pause()
            first.withLock { $0 = nil }
            paused.resume()
            let token = manager.beganNetworkTask(progress: paused)
            second.withLock { $0 = token }
        }
        done.wait()
        scheduler.advance(by: 10)
        paused.completedUnitCount = 70
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.35, "70 of 200")
        #expect(snapshot.totalUnitCount == 200)
        #expect(snapshot.estimatedTimeRemaining == 20 * 130 / 70.0)
        withExtendedLifetime((other, second)) {}
    }

    @Test func aPartPausedUnderOneOpaqueTokenCountsOnceResumedUnderAnother() {
        let paused = progress(30, of: 100)
        var first: NetworkActivityToken? = manager.beganNetworkTask(progress: paused)
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        paused.pause()
        first = nil
        #expect(manager.progressSnapshot().fractionCompleted == 0.2, "kept at 30: 40 of 200")
        paused.resume()
        let second = manager.beganNetworkTask(progress: paused)
        paused.completedUnitCount = 70
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.4, "80 of 200")
        #expect(snapshot.totalUnitCount == 200)
        withExtendedLifetime((first, other, second)) {}
    }

    @Test func aPartPausedInOneScopeCountsOnceResumedInItsSibling() {
        let feed = NetworkIndicatorManager(parent: manager, label: "Feed")
        let profile = NetworkIndicatorManager(parent: manager, label: "Profile")
        let task = Token()
        let paused = progress(30, of: 100)
        feed.beganNetworkTask(withToken: task, progress: paused)
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        paused.pause()
        feed.finishedNetworkTask(forToken: task)
        paused.resume()
        profile.beganNetworkTask(withToken: task, progress: paused)
        paused.completedUnitCount = 70
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.4, "80 of 200")
        #expect(snapshot.totalUnitCount == 200)
        #expect(profile.progressSnapshot().fractionCompleted == 0.7)
        #expect(feed.progressSnapshot().fractionCompleted == nil, "the feed is idle")
        withExtendedLifetime((other, task)) {}
    }

    @Test func aPartPausedInAParentCountsOnceResumedInItsScope() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let task = Token()
        let paused = progress(30, of: 100)
        manager.beganNetworkTask(withToken: task, progress: paused)
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.2)
        paused.pause()
        manager.finishedNetworkTask(forToken: task)
        paused.resume()
        screen.beganNetworkTask(withToken: task, progress: paused)
        paused.completedUnitCount = 70
        #expect(manager.progressSnapshot().fractionCompleted == 0.4, "80 of 200")
        withExtendedLifetime((other, task)) {}
    }

    @Test func aPausedWeighedPartKeepsItsWeighedUnits() {
        let task = Token()
        let pages = progress(1, of: 4)
        manager.beganNetworkTask(withToken: task, progress: pages, weight: 400)
        let other = manager.beganNetworkTask(progress: progress(0, of: 400))
        pages.pause()
        manager.finishedNetworkTask(forToken: task)
        var snapshot = manager.progressSnapshot()
        #expect(snapshot.completedUnitCount == 100, "one page of four weighs 100 of 400")
        #expect(snapshot.totalUnitCount == 800)
        pages.resume()
        manager.beganNetworkTask(withToken: task, progress: pages, weight: 400)
        pages.completedUnitCount = 2
        snapshot = manager.progressSnapshot()
        #expect(snapshot.completedUnitCount == 200)
        #expect(snapshot.totalUnitCount == 800)
        withExtendedLifetime((other, task)) {}
    }

    /// Both of a twice-begun token's parts count until its last task ends; then the paused one
    /// keeps what it had and the other counts done.
    @Test func aTokenBegunTwiceKeepsItsPausedPartsUnitsAfterItsLastTask() {
        let task = Token()
        let paused = progress(30, of: 100)
        manager.beganNetworkTask(withToken: task, progress: paused)
        manager.beganNetworkTask(withToken: task, progress: progress(20, of: 100))
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        paused.pause()
        manager.finishedNetworkTask(forToken: task)
        #expect(manager.progressSnapshot().fractionCompleted == 50.0 / 300.0)
        manager.finishedNetworkTask(forToken: task)
        #expect(manager.progressSnapshot().completedUnitCount == 130, "30 paused, 100 done, 0")
        withExtendedLifetime((other, task)) {}
    }

    @Test func aResetLeavesAPausedPartWithTheUnitsItHad() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let task = Token()
        let paused = progress(30, of: 100)
        screen.beganNetworkTask(withToken: task, progress: paused)
        paused.pause()
        screen.resetNetworkActivity()
        #expect(manager.progressSnapshot().fractionCompleted == 0.15, "30 of 200")
        withExtendedLifetime((other, task)) {}
    }

    /// `cancelOperations()` takes a group's running parts out of the batch, a paused one too.
    @Test func aGroupsCancelTakesItsPausedPartOut() {
        let other = manager.beganNetworkTask(progress: progress(10, of: 100))
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let paused = progress(30, of: 100)
        uploads.operationStarted(progress: paused)
        paused.pause()
        uploads.cancelOperations()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.1)
        #expect(snapshot.totalUnitCount == 100)
        withExtendedLifetime((other, uploads)) {}
    }

    /// ShowingProgress.md: a group's finish takes its oldest running part, "which leaves counted
    /// as done (or, paused, with the units it had)".
    @Test func aGroupsFinishOfAPausedOldestPartKeepsItsUnits() {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let paused = progress(30, of: 100)
        uploads.operationStarted(progress: paused)
        uploads.operationStarted(progress: progress(0, of: 100))
        paused.pause()
        uploads.operationFinished()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.completedUnitCount == 30, "30 kept, 0, 0")
        #expect(snapshot.totalUnitCount == 300)
        withExtendedLifetime((other, uploads)) {}
    }

    /// A paused part whose task ended in a scope that nobody read since: the scope's reading and
    /// the root's agree once it is resumed.
    @Test func aPausedPartInAScopeReadsTheSameFromTheScopeAndTheRoot() {
        let screen = NetworkIndicatorManager(parent: manager, label: "Screen")
        let task = Token()
        let keep = Token()
        let paused = progress(30, of: 100)
        screen.beganNetworkTask(withToken: task, progress: paused)
        screen.beganNetworkTask(withToken: keep, progress: progress(10, of: 100))
        paused.pause()
        screen.finishedNetworkTask(forToken: task)
        #expect(manager.progressSnapshot().completedUnitCount == 40)
        paused.resume()
        screen.beganNetworkTask(withToken: task, progress: paused)
        paused.completedUnitCount = 60
        #expect(screen.progressSnapshot().completedUnitCount == 70)
        #expect(manager.progressSnapshot().completedUnitCount == 70)
        withExtendedLifetime((keep, task)) {}
    }
}
