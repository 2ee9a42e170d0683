import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// `estimatedTimeRemaining` is paced by what the batch did since it began: the units a part
/// had done before the batch saw its size are not pace.
@MainActor
@Suite("Time remaining")
struct TimeRemainingTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    /// A download paused at 30 % and resumed later, 1 % more in the next second: at the pace
    /// kept since its batch began, the 69 % left take 69 s. The 30 % done before are not pace.
    @Test func theTimeRemainingOfAResumedDownloadCountsOnlyWhatItsBatchDid() {
        let task = Token()
        let bytes = progress(0, of: 100)
        manager.beganNetworkTask(withToken: task, progress: bytes)
        bytes.completedUnitCount = 30
        bytes.pause()
        manager.finishedNetworkTask(forToken: task)
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        scheduler.advance(by: 600)
        manager.beganNetworkTask(withToken: task, progress: bytes)
        bytes.resume()
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        scheduler.advance(by: 1)
        bytes.completedUnitCount = 31
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 69)
        manager.finishedNetworkTask(forToken: task)
    }

    /// A batch begun with a part already 90 % done (a download resumed from disk): 1 % a second
    /// leaves 9 s.
    @Test func theTimeRemainingOfAPartBegunPartlyDoneCountsOnlyWhatItsBatchDid() {
        let bytes = progress(90, of: 100)
        let download = manager.beganNetworkTask(progress: bytes)
        scheduler.advance(by: 1)
        bytes.completedUnitCount = 91
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 9)
        withExtendedLifetime(download) {}
    }

    /// A download resumed from disk at 90 %, beside twenty small ones that all end in one
    /// reading: its units before stay out of the pace once they leave. At 2 s, 291 of 300 done,
    /// 201 of them since the batch began: the 9 left take 9 × 2 ÷ 201 s.
    @Test func manyPartsLeavingAtOnceLeaveTheOthersPaceAlone() {
        let resumed = progress(90, of: 100)
        let download = manager.beganNetworkTask(progress: resumed)
        let bytes = (0..<20).map { _ in progress(0, of: 10) }
        var small: [NetworkActivityToken?] = bytes.map { manager.beganNetworkTask(progress: $0) }
        scheduler.advance(by: 1)
        for part in bytes { part.completedUnitCount = 10 }
        small = small.map { _ in nil }
        #expect(manager.progressSnapshot().fractionCompleted == 290.0 / 300)
        resumed.completedUnitCount = 91
        scheduler.advance(by: 1)
        let remaining = manager.progressSnapshot().estimatedTimeRemaining ?? 0
        #expect(abs(remaining - 9 * 2 / 201) < 1e-9)
        withExtendedLifetime((download, small)) {}
    }

    /// A part whose size becomes known while its batch runs brings the units it had then; a
    /// cancelled part takes what it had done when it joined out of the pace with its units.
    @Test func theTimeRemainingCountsEachPartFromWhenItsSizeWasKnown() {
        let first = NetworkActivityProgress(totalUnitCount: 100)
        let second = NetworkActivityProgress(totalUnitCount: -1)
        second.completedUnitCount = 40
        let third = progress(50, of: 100)
        let tokens = [first, second, third].map { manager.beganNetworkTask(progress: $0) }
        scheduler.advance(by: 1)
        first.completedUnitCount = 10
        second.totalUnitCount = 100  // 40 done, now of known size
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 20, "200 left at 10 units a second")
        third.cancel()
        scheduler.advance(by: 1)
        first.completedUnitCount = 20
        // 20 units in 2 s, 140 left of 200.
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 14)
        withExtendedLifetime(tokens) {}
    }

    /// A download whose size the app learns, then a second task that begins: the batch began
    /// when that begin first read the size, not at the next reading. 50 units in the 10 s since
    /// leave 10 s for the other 50.
    @Test func aBeginThatFirstReadsAPartsSizeStartsItsBatch() {
        let download = progress(0, of: -1)
        let first = manager.beganNetworkTask(progress: download)
        scheduler.advance(by: 5)
        download.totalUnitCount = 100
        let second = manager.beganNetworkTask(progress: progress(0, of: -1))
        scheduler.advance(by: 10)
        download.completedUnitCount = 50
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 10)
        withExtendedLifetime((first, second)) {}
    }
    /// A resumed download that ended, then another begun at its freed address (malloc reuses
    /// it at once): each keeps the units it had before the batch. 150 of 300 units done, 100 of
    /// them before: 50 in 10 s leave 30 s for the 150 left.
    @Test func aPartBegunAtAnEndedPartsAddressKeepsBothPartsUnitsBefore() {
        let other = manager.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 100))
        var first: NetworkActivityProgress? = resumed(at: 50)
        let identity = ObjectIdentifier(first!)
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: first!)
        scheduler.advance(by: 10)
        download = nil
        first = nil
        #expect(manager.progressSnapshot().completedUnitCount == 100, "the first left as done")
        var keep: [NetworkActivityProgress] = []
        guard let second = progressReusingAddress(of: identity, keeping: &keep) else { return noteNoAddressReuse() }
        download = manager.beganNetworkTask(progress: second)
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 30)
        withExtendedLifetime((other, download, keep)) {}
    }

    /// A screen's upload, resumed at 50, fails with the screen's cancel and is retried with the
    /// same progress: the 50 done before the batch are still not pace. 30 units in 20 s leave
    /// 80 s for the 120 left.
    @Test func aPartRetriedAfterItsCancelKeepsItsUnitsBeforeOutOfThePace() {
        let other = NetworkActivityProgress(totalUnitCount: 100)
        let download = manager.beganNetworkTask(progress: other)
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        let upload = resumed(at: 50)
        uploads.operationStarted(progress: upload)
        _ = manager.progressSnapshot()
        screen.cancelNetworkTasks()
        _ = manager.progressSnapshot()
        uploads.operationStarted(progress: upload)
        _ = manager.progressSnapshot()
        scheduler.advance(by: 20)
        upload.completedUnitCount = 60
        other.completedUnitCount = 20
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 80)
        withExtendedLifetime((download, uploads)) {}
    }

    /// "Passing the same progress to two running tasks counts its units twice": its units done
    /// before the batch, too, whether its tasks run, end one by one, or end before one reading.
    /// 250 of 300 units, 100 of them before: 150 in 10 s leave 10/3 s for the 50 left.
    @Test(arguments: [false, true])
    func aProgressSharedByTwoTasksCountsItsUnitsBeforeTwice(readBetweenTheFinishes: Bool) {
        let other = NetworkActivityProgress(totalUnitCount: 100)
        let download = manager.beganNetworkTask(progress: other)
        let shared = resumed(at: 50)
        let (first, second) = (Token(), Token())
        manager.beganNetworkTask(withToken: first, progress: shared)
        manager.beganNetworkTask(withToken: second, progress: shared)
        scheduler.advance(by: 10)
        shared.completedUnitCount = 100
        other.completedUnitCount = 50
        let expected = 10.0 / 3
        #expect(abs((manager.progressSnapshot().estimatedTimeRemaining ?? 0) - expected) < 1e-9, "both running")
        manager.finishedNetworkTask(forToken: first)
        if readBetweenTheFinishes {
            #expect(abs((manager.progressSnapshot().estimatedTimeRemaining ?? 0) - expected) < 1e-9, "one ended")
        }
        manager.finishedNetworkTask(forToken: second)
        #expect(abs((manager.progressSnapshot().estimatedTimeRemaining ?? 0) - expected) < 1e-9, "both ended")
        withExtendedLifetime(download) {}
    }

    /// A download resumed from disk at 50 %, paused and ended beside another that keeps the batch
    /// running, then begun again: its 50 units before stay out of the pace. In 10 s, 60 of its
    /// units and 40 of the other's are done, 50 of them in the batch: the 100 left take 20 s.
    @Test func aPartBegunAgainWhileItsBatchRunsKeepsItsUnitsBeforeOutOfThePace() {
        let other = resumed(at: 0)
        let download = manager.beganNetworkTask(progress: other)
        let bytes = resumed(at: 50)
        let task = Token()
        manager.beganNetworkTask(withToken: task, progress: bytes)
        bytes.pause()
        manager.finishedNetworkTask(forToken: task)
        #expect(manager.progressSnapshot().fractionCompleted == 0.25, "paused: it left with its 50")
        scheduler.advance(by: 10)
        manager.beganNetworkTask(withToken: task, progress: bytes)
        bytes.resume()
        bytes.completedUnitCount = 60
        other.completedUnitCount = 40
        #expect(manager.progressSnapshot().estimatedTimeRemaining == 20)
        manager.finishedNetworkTask(forToken: task)
        withExtendedLifetime(download) {}
    }

    /// A caller's token begun twice, its second download's size first known at 50 of 100 just
    /// before another download begins: that begin reads it, so its 50 units are the batch's units
    /// before, and the 10 it does after are pace (10 in 10 s): the 340 units left take 340 s.
    @Test func aTokenBegunTwiceHasItsPartsReadByTheNextBegin() {
        let first = manager.beganNetworkTask(progress: progress(0, of: 100))
        let token = Token()
        manager.beganNetworkTask(withToken: token, progress: progress(0, of: 100))
        let second = Progress.discreteProgress(totalUnitCount: -1)
        manager.beganNetworkTask(withToken: token, progress: second)
        second.totalUnitCount = 100
        second.completedUnitCount = 50
        let next = manager.beganNetworkTask(progress: progress(0, of: 100))
        scheduler.advance(by: 10)
        second.completedUnitCount = 60
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 60.0 / 400)
        #expect(snapshot.estimatedTimeRemaining == 340)
        manager.finishedNetworkTask(forToken: token)
        manager.finishedNetworkTask(forToken: token)
        withExtendedLifetime((first, next)) {}
    }

    private func resumed(at completed: Int64) -> NetworkActivityProgress {
        let progress = NetworkActivityProgress(totalUnitCount: 100)
        progress.completedUnitCount = completed
        return progress
    }

    /// Allocates progresses resumed at 50 (kept in `keep`) until one lands at `identity`.
    private func progressReusingAddress(
        of identity: ObjectIdentifier,
        keeping keep: inout [NetworkActivityProgress]
    ) -> NetworkActivityProgress? {
        for _ in 0..<20_000 {
            let candidate = resumed(at: 50)
            if ObjectIdentifier(candidate) == identity { return candidate }
            keep.append(candidate)
        }
        return nil
    }
}
