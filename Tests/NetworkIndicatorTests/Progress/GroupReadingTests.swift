import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A group's finish, its operations' end and its next begin, with or without a reading in
/// between: the reading after is the one a reading in between leads to, and two readings with
/// nothing between them agree (ShowingProgress.md: "whether a batch is over … does not depend on
/// whether anyone read in between"; "a complete part that left this way still measures its
/// operation … until the group's next finish"). Some were minimised from
/// `ReadIndependenceTests`' random steps.
@MainActor
@Suite("A group's readings, read in between or not")
struct GroupReadingTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    /// Two uploads, both complete, then one finish: the first is outlived by the second, the
    /// second is taken by the finish. Both leave and nothing runs: no full bar stays up.
    @Test(arguments: [false, true])
    func twoCompletePartsAndAFinishEndTheBatch(readBeforeFinish: Bool) {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = progress(0, of: 100)
        let second = progress(0, of: 100)
        uploads.operationStarted(progress: first)
        uploads.operationStarted(progress: second)
        second.completedUnitCount = 100
        first.completedUnitCount = 100
        if readBeforeFinish { _ = manager.progressSnapshot() }
        uploads.operationFinished()
        #expect(manager.progressSnapshot().fractionCompleted == nil, "nothing runs: no full bar")
        uploads.operationStarted(progress: progress(10, of: 100))
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.1, "the next upload begins a batch of its own")
        #expect(snapshot.totalUnitCount == 100)
        withExtendedLifetime(uploads) {}
    }

    /// A part outlived by a later operation completes after that operation finished: it leaves
    /// as done, and measures its still-open operation until the group's next finish, on every
    /// reading, not only the one it left on.
    @Test func anOutlivedPartThatLeftCompleteMeasuresItsOperationUntilTheNextFinish() {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        completeAnOutlivedPartAfterTheLaterOperationFinished(in: uploads)
        let firstReading = manager.progressSnapshot()
        let secondReading = manager.progressSnapshot()
        #expect(firstReading == secondReading, "nothing changed between the two readings")
        #expect(!secondReading.hasIndeterminateWork, "the first upload's part still measures its operation")
        #expect(secondReading.fractionCompleted == 200.0 / 300)
        uploads.operationFinished()
        let afterFinish = manager.progressSnapshot()
        #expect(!afterFinish.hasIndeterminateWork, "the group's last operation finished")
        #expect(afterFinish.fractionCompleted == 200.0 / 300)
        withExtendedLifetime((other, uploads)) {}
    }

    /// Two uploads, the second completes and finishes (the finish is the complete part's), then
    /// the first, outlived, completes while its operation stays open.
    private func completeAnOutlivedPartAfterTheLaterOperationFinished(in group: NetworkActivityGroup) {
        let first = progress(50, of: 100)
        let second = progress(0, of: 100)
        group.operationStarted(progress: first)
        group.operationStarted(progress: second)
        second.completedUnitCount = 100
        group.operationFinished()  // the complete part's: the second
        first.completedUnitCount = 100
    }

    /// A complete part that left as done while its operation was open is kept to measure that
    /// operation until the group's next finish; once that finish took it, the batch keeps no
    /// reference to it: the caller's `Progress` is freed, though the group's later operation
    /// (without progress) and the batch run on.
    @Test func aDonePartIsLetGoOnceTheGroupsFinishTookIt() {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))  // keeps the batch running
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        var first: Progress? = progress(0, of: 100)
        let weakFirst = WeakReference(first)
        uploads.operationStarted(progress: first!)
        uploads.operationStarted()  // outlives the first
        first!.completedUnitCount = 100
        _ = manager.progressSnapshot()  // the first leaves as done, measuring its open operation
        uploads.operationFinished()  // the first's: its part measures nothing any more
        first = nil
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5, "the first done, the other at 0")
        #expect(snapshot.hasIndeterminateWork, "the later operation, without progress, runs")
        #expect(weakFirst.object == nil, "nothing keeps the first upload's progress")
        withExtendedLifetime((other, uploads)) {}
    }

    /// The same in two groups at once: each group's part measures its own operation on every
    /// reading, whichever group the fold meets first.
    @Test func twoGroupsOutlivedPartsThatLeftCompleteEachMeasureTheirOperation() {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let groups = [
            NetworkActivityGroup(manager: manager, label: "uploads"),
            NetworkActivityGroup(manager: manager, label: "photos"),
        ]
        for group in groups { completeAnOutlivedPartAfterTheLaterOperationFinished(in: group) }
        _ = manager.progressSnapshot()
        let reading = manager.progressSnapshot()
        #expect(!reading.hasIndeterminateWork, "each first upload's part still measures its operation")
        #expect(reading.fractionCompleted == 400.0 / 500)
        withExtendedLifetime((other, groups)) {}
    }

    /// A reset or `cancelOperations()` ended a group's operations, then the group starts one
    /// without progress: its ended part does not come back. Its progress "counts … until the
    /// group has no open operation (or is released, or cancelOperations() is called)".
    @Test(arguments: [false, true], [false, true])
    func aGroupBegunAgainWithoutProgressDoesNotBringBackItsPart(readInBetween: Bool, viaReset: Bool) {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        uploads.operationStarted(progress: progress(0, of: 40))
        if viaReset { manager.resetNetworkActivity() } else { uploads.cancelOperations() }
        if readInBetween { _ = manager.progressSnapshot() }
        uploads.operationStarted()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == nil, "no batch: the new operation has no progress")
        #expect(snapshot.hasIndeterminateWork)
        withExtendedLifetime(uploads) {}
    }

    enum GroupEnd: String, CaseIterable, Sendable {
        case finishThenBeginWithProgress, cancelNetworkTasks, cancelOperations
    }

    /// A group's complete part that left while its operation was open "still measures its
    /// operation … until the group's next finish, which the manager takes to be that
    /// operation's"; a cancel ends that operation too. The end counts though nobody read before
    /// the group began again with progress: a later operation without progress is unmeasured.
    @Test(arguments: [false, true], GroupEnd.allCases)
    func aDonePartStopsMeasuringOnceItsOperationEnded(readInBetween: Bool, end: GroupEnd) {
        let token = Token()
        manager.beganNetworkTask(withToken: token, progress: progress(0, of: 100))  // keeps a batch running
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = progress(0, of: 100)
        uploads.operationStarted(progress: first)
        first.completedUnitCount = 100
        uploads.operationStarted()  // outlives the first, complete: it leaves as done, measuring its operation
        switch end {
        case .finishThenBeginWithProgress: uploads.operationFinished()  // the first's
        case .cancelNetworkTasks: manager.cancelNetworkTasks()
        case .cancelOperations: uploads.cancelOperations()
        }
        if readInBetween { _ = manager.progressSnapshot() }
        uploads.operationStarted(progress: progress(50, of: 100))
        if end != .finishThenBeginWithProgress { uploads.operationStarted() }
        #expect(manager.progressSnapshot().hasIndeterminateWork, "an operation without progress runs")
        withExtendedLifetime(uploads) {}
        manager.finishedNetworkTask(forToken: token)
    }

    /// `cancelNetworkTasks()`, or the group's `cancelOperations()`, ends the batch's last
    /// running part (a group's operation) while a part of unknown size waits: the batch is over
    /// at the cancel, so the total that becomes known afterwards begins a new batch at its own
    /// fraction, read in between or not.
    @Test(arguments: [false, true], [false, true])
    func aTotalKnownAfterACancelEmptiedTheBatchBeginsANewBatch(readInBetween: Bool, groupsOwnCancel: Bool) {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let running = progress(0, of: 100)
        uploads.operationStarted(progress: running)
        var done: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(100, of: 100))
        done = nil  // ended: the next begin with progress folds it into the running batch, as done
        let unknown = progress(0, of: 0)
        let waiting = manager.beganNetworkTask(progress: unknown)
        running.completedUnitCount = 40
        if groupsOwnCancel { uploads.cancelOperations() } else { manager.cancelNetworkTasks() }
        if readInBetween { #expect(manager.progressSnapshot().fractionCompleted == nil, "the batch is over") }
        unknown.totalUnitCount = 200
        unknown.completedUnitCount = 50
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.25, "a new batch, at its own fraction")
        #expect(snapshot.totalUnitCount == 200)
        withExtendedLifetime((done, uploads, waiting)) {}
    }

    /// A group with an operation without progress and an upload of unknown size, read while no
    /// batch runs (the upload's size unknown yet): the upload then completes and the group's
    /// finish takes it ("a complete part's first"), so the operation without progress is left,
    /// unmeasured: no full bar, whether the reading came or not. And the same in a screen's own
    /// reading as in its parent's.
    @Test(arguments: [false, true], [false, true])
    func aFinishAfterAReadingWithNoBatchRunningIsCounted(readWhileUnknown: Bool, inAScope: Bool) {
        let screen = inAScope ? NetworkIndicatorManager(parent: manager, label: "screen") : manager
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        uploads.operationStarted()  // a metadata request, no progress
        let upload = NetworkActivityProgress(totalUnitCount: -1)
        uploads.operationStarted(progress: upload)
        if readWhileUnknown { _ = screen.progressSnapshot() }
        upload.totalUnitCount = 100
        upload.completedUnitCount = 100
        uploads.operationFinished()
        for reader in [screen, manager] {
            let snapshot = reader.progressSnapshot()
            #expect(snapshot.fractionCompleted == nil, "no full bar while an operation runs")
            #expect(snapshot.hasIndeterminateWork)
        }
        withExtendedLifetime(uploads) {}
    }

    /// An upload that completed while its operation waits for its response, outlived by a later
    /// upload of unknown size, still measures its operation ("until the group's next finish")
    /// after a screen's own reading found nothing running there: once the later upload's size is
    /// known, neither the screen nor its parent (whose batch ran on) reads indeterminate work.
    @Test func aDonePartStillMeasuresItsOperationAfterAReadingWithNoBatchRunning() {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))  // the parent's batch runs
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        let first = NetworkActivityProgress(totalUnitCount: 100)
        uploads.operationStarted(progress: first)
        let second = NetworkActivityProgress(totalUnitCount: -1)
        uploads.operationStarted(progress: second)  // outlives the first
        first.completedUnitCount = 100  // leaves as done, measuring its open operation
        _ = screen.progressSnapshot()  // nothing runs in the screen: its batch is over
        second.totalUnitCount = 100
        second.completedUnitCount = 10
        for reader in [screen, manager] {
            #expect(!reader.progressSnapshot().hasIndeterminateWork, "both operations are measured")
        }
        withExtendedLifetime((other, uploads)) {}
    }
}
