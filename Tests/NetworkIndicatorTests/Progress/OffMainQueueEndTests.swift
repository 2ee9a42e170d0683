import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A caller's plain `Progress` is read on the main queue only. Calls made on other threads
/// between two main-queue readings must still leave what ended as ended: a part is done once
/// its token's tasks all ended, whoever reads next and whatever begins meanwhile.
@MainActor
@Suite("Parts that end while only other threads call")
struct OffMainQueueEndTests {
    private final class RequestToken: Sendable {}

    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    private func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done, execute: body)
        done.wait()
    }

    /// Another download at 0 of 100, and a request on `token` with a plain `Progress` that
    /// reached 30 of 100 and finished, on the main queue.
    private func requestEndedAt30() -> (other: NetworkActivityToken, token: RequestToken, progress: Progress) {
        let other = manager.beganNetworkTask(label: "other", progress: NetworkActivityProgress(totalUnitCount: 100))
        let token = RequestToken()
        let progress = Progress.discreteProgress(totalUnitCount: 100)
        manager.beganNetworkTask(withToken: token, progress: progress)
        progress.completedUnitCount = 30
        #expect(manager.progressSnapshot().fractionCompleted == 0.15)
        manager.finishedNetworkTask(forToken: token)
        return (other, token, progress)
    }

    /// A request at 30 of 100 finishes on the main queue; its retry begins on the same token on
    /// the session's queue. The first request is done, whether or not the bar was read between.
    @Test(arguments: [false, true])
    func aTokenBegunAgainOnAnotherThreadLeavesItsEndedPartDone(readInBetween: Bool) {
        let (other, token, _) = requestEndedAt30()
        if readInBetween { _ = manager.progressSnapshot() }
        let manager = manager
        onAnotherThread {
            manager.beganNetworkTask(withToken: token, progress: NetworkActivityProgress(totalUnitCount: 100))
        }
        #expect(
            manager.progressSnapshot().fractionCompleted == 100.0 / 300,
            "the first request done (100), the retry and the other at 0"
        )
        manager.finishedNetworkTask(forToken: token)
        withExtendedLifetime(other) {}
    }

    /// A group's photo upload completes and its operation finishes on another thread, then the
    /// screen cancels the rest there: the photo stays done, the running upload leaves. (With a
    /// plain `Progress`, unreadable there, the cancel counts the photo as cancelled: documented
    /// on `cancelNetworkTasks()`.)
    @Test func aGroupOperationFinishedOnAnotherThreadStaysDoneThroughACancel() {
        let other = NetworkActivityProgress(totalUnitCount: 100)
        other.completedUnitCount = 50
        let download = manager.beganNetworkTask(label: "other", progress: other)
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        uploads.operationStarted(progress: NetworkActivityProgress(totalUnitCount: 100))
        let photo = NetworkActivityProgress(totalUnitCount: 100)
        uploads.operationStarted(progress: photo)
        photo.completedUnitCount = 100
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "150 of 300")
        let manager = manager
        onAnotherThread {
            uploads.operationFinished()
            manager.cancelNetworkTasks()
        }
        #expect(
            manager.progressSnapshot().fractionCompleted == 150.0 / 200,
            "the photo done (100), the other at 50, the cancelled upload gone"
        )
        withExtendedLifetime((download, uploads)) {}
    }

    /// The documented pause and resume, the resume on the session's queue: the same plain
    /// `Progress` begun again on its token takes its part back, and its units count on.
    @Test func thePartOfAProgressResumedOnAnotherThreadRunsAgain() {
        let (other, token, download) = requestEndedAt30()
        let manager = manager
        onAnotherThread {
            manager.beganNetworkTask(withToken: token, progress: download)
        }
        download.completedUnitCount = 90
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.45, "the resumed download at 90, the other at 0")
        #expect(!snapshot.hasIndeterminateWork, "the resumed task is measured by its progress")
        manager.finishedNetworkTask(forToken: token)
        withExtendedLifetime(other) {}
    }
    /// A group's upload with a plain `Progress` completes; its operation finishes on the
    /// session's queue, where the progress cannot be read, beside an operation without progress
    /// begun first. The next main-queue reading finds the complete part finished: no full bar
    /// while the other operation runs.
    @Test func aGroupsFinishOnAnotherThreadTakesItsCompletePartAtTheNextReading() {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        uploads.operationStarted()
        let upload = Progress.discreteProgress(totalUnitCount: 100)
        uploads.operationStarted(progress: upload)
        upload.completedUnitCount = 100
        onAnotherThread { uploads.operationFinished() }
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == nil)
        #expect(snapshot.hasIndeterminateWork)
        withExtendedLifetime(uploads) {}
    }
    /// A finish on the session's queue, then a new operation with a plain `Progress` begun
    /// there, which completes before the next main-queue reading: the finish came before the
    /// new operation, so it cannot be the new one's. Both uploads run, of known size.
    @Test func aFinishWaitingForAReadingIsNotTheFinishOfAnOperationBegunAfterIt() {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        uploads.operationStarted()
        let first = Progress.discreteProgress(totalUnitCount: 100)
        uploads.operationStarted(progress: first)
        first.completedUnitCount = 50
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        let second = Progress.discreteProgress(totalUnitCount: 100)
        onAnotherThread {
            uploads.operationFinished()  // the first operation's, without progress
            uploads.operationStarted(progress: second)
            second.completedUnitCount = 100
        }
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.75)
        #expect(!snapshot.hasIndeterminateWork, "both running uploads have a known size")
        withExtendedLifetime(uploads) {}
    }

    /// The same, and the screen's cancel: the second upload, open, fails with it, whether the
    /// main queue read between the finish and its begin or not.
    @Test(arguments: [false, true])
    func aCancelAfterAFinishAndALaterBeginOnAnotherThreadFindsTheSameParts(readInBetween: Bool) {
        let other = manager.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 100))
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        uploads.operationStarted()
        let first = Progress.discreteProgress(totalUnitCount: 100)
        uploads.operationStarted(progress: first)
        first.completedUnitCount = 50
        _ = manager.progressSnapshot()
        onAnotherThread { uploads.operationFinished() }
        if readInBetween { _ = manager.progressSnapshot() }
        let second = Progress.discreteProgress(totalUnitCount: 100)
        onAnotherThread {
            uploads.operationStarted(progress: second)
            second.completedUnitCount = 100
        }
        _ = manager.progressSnapshot()
        screen.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0, "both uploads open: both fail")
        withExtendedLifetime((other, uploads)) {}
    }
    /// A batch that ends at a reading on another thread, where a plain `Progress` that ended
    /// cannot be read: that part's end was never read, so the batch is not known to have ended
    /// with every unit, though the other part completed. The overlay's "done as it fades" asks
    /// this, with and without a child scope left out.
    @Test func aBatchEndedWithAPartUnreadIsNotComplete() {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let photo = NetworkActivityProgress(totalUnitCount: 100)
        var upload: NetworkActivityToken? = manager.beganNetworkTask(label: "photo", progress: photo)
        let token = RequestToken()
        let download = Progress.discreteProgress(totalUnitCount: 100)
        manager.beganNetworkTask(withToken: token, progress: download)
        download.completedUnitCount = 30
        #expect(manager.progressSnapshot().fractionCompleted == 0.15)
        photo.completedUnitCount = 100
        upload = nil
        manager.finishedNetworkTask(forToken: token)
        let manager = manager
        onAnotherThread { _ = manager.progressSnapshot() }
        #expect(!manager.lastProgressBatchEndedComplete(), "the download's end was never read")
        #expect(!manager.lastProgressBatchEndedComplete(excluding: [screen]))
        _ = upload
    }
}
