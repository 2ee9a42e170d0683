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
}
