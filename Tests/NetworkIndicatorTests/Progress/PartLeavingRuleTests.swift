import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// When a part leaves its batch, as the documentation of each begin form states it: a caller's
/// token begun twice keeps both parts until its last task ends; a group's parts leave by the
/// group's rule at the call that makes them leave, so that what a cancel finds never depends on
/// whether anyone read in between.
@MainActor
@Suite("When a part leaves its batch")
struct PartLeavingRuleTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    private func progress(_ completed: Int64, of total: Int64) -> NetworkActivityProgress {
        let progress = NetworkActivityProgress(totalUnitCount: total)
        progress.completedUnitCount = completed
        return progress
    }

    /// `beganNetworkTask(withToken:progress:)`: "beginning the same token twice with two
    /// progresses counts both until the token's last task ends".
    @Test func aTokenBegunTwiceCountsBothProgressesUntilItsLastTaskEnds() {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let token = Token()
        let first = progress(50, of: 100)
        manager.beganNetworkTask(withToken: token, progress: first)
        manager.beganNetworkTask(withToken: token, progress: progress(0, of: 100))
        manager.finishedNetworkTask(forToken: token)
        first.completedUnitCount = 70
        #expect(manager.progressSnapshot().fractionCompleted == 70.0 / 300, "both still count as they report")
        manager.finishedNetworkTask(forToken: token)
        #expect(manager.progressSnapshot().fractionCompleted == 200.0 / 300, "its last task ended: both done")
        withExtendedLifetime(other) {}
    }

    /// A token's complete part measures its task while the token is open: no work of unknown size.
    @Test func aTokenBegunTwiceWithOneProgressCompleteHasNoIndeterminateWork() {
        let token = Token()
        manager.beganNetworkTask(withToken: token, progress: progress(100, of: 100))
        manager.beganNetworkTask(withToken: token, progress: progress(0, of: 100))
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5)
        #expect(!snapshot.hasIndeterminateWork)
        manager.finishedNetworkTask(forToken: token)
        manager.finishedNetworkTask(forToken: token)
    }

    /// A group's complete part leaves when a later operation starts: a cancel after that fails
    /// only the later one, read in between or not.
    @Test(arguments: [false, true])
    func aCancelAfterALaterOperationFailsOnlyTheRunningPart(readInBetween: Bool) {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = progress(0, of: 100)
        uploads.operationStarted(progress: first)
        first.completedUnitCount = 100
        uploads.operationStarted(progress: progress(0, of: 100))
        if readInBetween { _ = manager.progressSnapshot() }
        manager.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "the first upload done, the second gone")
        withExtendedLifetime((other, uploads)) {}
    }

    /// `operationStarted(progress:)`: a group's progress counts "until it is complete (or
    /// cancelled) and a later operation has started"; passing `nil` is exactly
    /// `operationStarted()`, so a later operation without progress counts too. The complete part
    /// leaves, and the running operation without progress shows as work of unknown size, not
    /// as a full bar.
    @Test func aCompleteGroupPartLeavesWhenALaterOperationWithoutProgressStarts() {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = progress(0, of: 100)
        uploads.operationStarted(progress: first)
        first.completedUnitCount = 100
        #expect(manager.progressSnapshot().fractionCompleted == 1, "complete, and nothing later yet")
        uploads.operationStarted()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == nil, "no full bar while work of unknown size runs")
        #expect(snapshot.hasIndeterminateWork)
        withExtendedLifetime(uploads) {}
    }

    /// A part outlived by a later operation leaves once it is complete, not before; a cancel
    /// finds it gone, whether anyone read it complete or not.
    @Test(arguments: [false, true])
    func anOutlivedGroupPartCountsAsItReportsUntilItIsComplete(readWhenComplete: Bool) {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = progress(40, of: 100)
        uploads.operationStarted(progress: first)
        uploads.operationStarted()
        #expect(manager.progressSnapshot().fractionCompleted == 0.2, "still running: 40 of 200")
        first.completedUnitCount = 100
        if readWhenComplete {
            #expect(manager.progressSnapshot().fractionCompleted == 0.5, "complete: it leaves as done")
        }
        manager.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "the cancel finds it gone")
        withExtendedLifetime((other, uploads)) {}
    }

    /// `operationStoppedCounting()` ends a task as `operationFinished()` does: its part leaves at
    /// once by the group's rule, so a cancel after it finds the same parts, read in between or not.
    @Test(arguments: [false, true])
    func aCancelAfterAStoppedOperationFindsTheSamePartsReadOrNot(readInBetween: Bool) {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let feed = NetworkActivityGroup(manager: manager, label: "feed")
        feed.operationStarted(progress: progress(30, of: 100))
        feed.operationStarted(progress: progress(0, of: 100))
        feed.operationStoppedCounting()
        if readInBetween { _ = manager.progressSnapshot() }
        manager.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "the oldest part done, the other gone")
        withExtendedLifetime((other, feed)) {}
    }

    /// A group's part that left as done (complete, outlived by a later operation) still measures
    /// its operation while that one is open: everything running has a known size. Its finish
    /// ends it (the group's finish ends complete parts first), so an operation begun after it
    /// without progress is work of unknown size again.
    @Test(arguments: [false, true])
    func aCompletePartLeftAsDoneMeasuresItsOpenOperation(readInBetween: Bool) {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let first = progress(0, of: 100)
        uploads.operationStarted(progress: first)
        uploads.operationStarted(progress: progress(0, of: 100))
        first.completedUnitCount = 100
        var snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5)
        #expect(!snapshot.hasIndeterminateWork, "the first upload is complete, not unmeasured")
        uploads.operationFinished()
        if readInBetween {
            #expect(!manager.progressSnapshot().hasIndeterminateWork, "one upload open, measured")
        }
        uploads.operationStarted()
        snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.5, "the first upload done, the second at 0")
        #expect(snapshot.hasIndeterminateWork, "the operation begun without progress")
        withExtendedLifetime(uploads) {}
    }

    /// A cancel from an ancestor finds what a cancel of the scope itself finds: a group's part
    /// that the group's rules ended stays done in the scope's own bar and in the ancestor's.
    @Test(arguments: [false, true])
    func anAncestorsCancelLeavesAScopesEndedGroupPartDone(cancelFromRoot: Bool) {
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let other = screen.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        let first = progress(0, of: 100)
        uploads.operationStarted(progress: first)
        uploads.operationStarted(progress: progress(0, of: 100))
        first.completedUnitCount = 100
        (cancelFromRoot ? manager : screen).cancelNetworkTasks()
        #expect(screen.progressSnapshot().fractionCompleted == 0.5, "the first upload done, the second gone")
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime((other, uploads)) {}
    }

    /// The group's finish takes the part done while open (complete parts first), though an
    /// operation without progress is open beside it: that one is then work of unknown size.
    @Test(arguments: [false, true])
    func aFinishTakesThePartDoneWhileOpenBesideAnOperationWithoutProgress(readBefore: Bool) {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        uploads.operationStarted(progress: progress(50, of: 100))
        let second = progress(0, of: 100)
        uploads.operationStarted(progress: second)
        uploads.operationStarted()  // outlives the second
        second.completedUnitCount = 100
        if readBefore { #expect(manager.progressSnapshot().hasIndeterminateWork, "the third is unmeasured") }
        uploads.operationFinished()  // the second's, complete
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.75)
        #expect(snapshot.hasIndeterminateWork, "the third, begun without progress, still runs")
        withExtendedLifetime(uploads) {}
    }
    /// "Complete each progress as its operation finishes": the group's finish takes the
    /// complete part, though the operation without progress began first and nothing outlives
    /// the part. No full bar while that operation runs; the same as when it has a progress
    /// of unknown size.
    @Test(arguments: [false, true], [false, true])
    func aFinishTakesACompletePartBesideAnEarlierOperationWithoutProgress(readBefore: Bool, unknownSize: Bool) {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        if unknownSize {
            uploads.operationStarted(progress: progress(0, of: 100), weight: 0)
        } else {
            uploads.operationStarted()
        }
        let upload = progress(0, of: 100)
        uploads.operationStarted(progress: upload)
        upload.completedUnitCount = 100
        if readBefore { #expect(manager.progressSnapshot().fractionCompleted == 1, "complete, still open") }
        uploads.operationFinished()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == nil, "the upload finished: no batch runs")
        #expect(snapshot.hasIndeterminateWork, "the first operation runs, of unknown size")
        withExtendedLifetime(uploads) {}
    }

    /// The finish's complete part leaves as done at the finish: the screen's cancel right
    /// after it, read in between or not, finds it gone and fails only what runs.
    @Test(arguments: [false, true])
    func aCancelAfterAFinishBesideAnOperationWithoutProgressKeepsTheCompletePartDone(readInBetween: Bool) {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        uploads.operationStarted()
        let upload = progress(0, of: 100)
        uploads.operationStarted(progress: upload)
        upload.completedUnitCount = 100
        uploads.operationFinished()
        if readInBetween { _ = manager.progressSnapshot() }
        screen.cancelNetworkTasks()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5, "the upload done, the other download at 0")
        withExtendedLifetime((other, uploads)) {}
    }

    /// A finish while the upload runs takes no running part (the operation without progress may
    /// be the one that finished): the upload counts as it reports.
    @Test func aFinishBesideARunningPartAndAnOperationWithoutProgressTakesNoPart() {
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        uploads.operationStarted()
        let upload = progress(0, of: 100)
        uploads.operationStarted(progress: upload)
        upload.completedUnitCount = 30
        uploads.operationFinished()
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        withExtendedLifetime(uploads) {}
    }

    /// An operation of unknown size (a weight of 0, or a total not known) counts "as if begun
    /// without progress": a finish beside it and a running upload is taken to be its, not the
    /// upload's, which counts on as it reports; read before the finish or not.
    @Test(arguments: UnknownSize.allCases, [false, true])
    func aFinishBesideAnOperationOfUnknownSizeLeavesTheRunningPartMeasured(size: UnknownSize, readBefore: Bool) {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let uploads = NetworkActivityGroup(manager: manager, label: "uploads")
        let upload = progress(30, of: 100)
        uploads.operationStarted(progress: upload)
        size.start(in: uploads)
        if readBefore { _ = manager.progressSnapshot() }
        uploads.operationFinished()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 30.0 / 200, "the upload at 30, not counted done")
        #expect(!snapshot.hasIndeterminateWork, "the finish was the operation of unknown size's")
        upload.completedUnitCount = 60
        #expect(manager.progressSnapshot().fractionCompleted == 60.0 / 200, "the upload counts as it reports")
        withExtendedLifetime((other, uploads)) {}
    }

    /// The same in a screen's scope: the screen reads its upload, the app the upload and its own
    /// download.
    @Test(arguments: UnknownSize.allCases)
    func aScopesFinishBesideAnOperationOfUnknownSizeLeavesItsUploadMeasured(size: UnknownSize) {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let screen = NetworkIndicatorManager(parent: manager, label: "screen")
        let uploads = NetworkActivityGroup(manager: screen, label: "uploads")
        uploads.operationStarted(progress: progress(30, of: 100))
        size.start(in: uploads)
        uploads.operationFinished()
        #expect(screen.progressSnapshot().fractionCompleted == 0.3)
        #expect(manager.progressSnapshot().fractionCompleted == 30.0 / 200)
        withExtendedLifetime((other, uploads)) {}
    }

    /// A token begun twice with one progress, that progress cancelled and one of its tasks
    /// finished, then begun with another progress: "a cancelled part leaves the batch … while
    /// its task stays open, it runs unmeasured", read before the new begin or not.
    @Test(arguments: [false, true])
    func aCancelledRepeatedPartLeavesItsTaskUnmeasured(readInBetween: Bool) {
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))  // listed first: a settle reads no further
        let token = Token()
        let repeated = Progress.discreteProgress(totalUnitCount: 100)
        manager.beganNetworkTask(withToken: token, progress: repeated)
        manager.beganNetworkTask(withToken: token, progress: repeated)  // twice with one progress: once
        repeated.cancel()
        manager.finishedNetworkTask(forToken: token)  // one task with the cancelled progress stays open
        if readInBetween { _ = manager.progressSnapshot() }
        manager.beganNetworkTask(withToken: token, progress: progress(0, of: 100))
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.hasIndeterminateWork, "the task whose progress was cancelled runs unmeasured")
        #expect(snapshot.fractionCompleted == 0)
        withExtendedLifetime(other) {}
    }
}

/// The two ways to begin an operation of unknown size with a progress.
enum UnknownSize: CaseIterable, Sendable {
    case weightZero, unknownTotal

    func start(in group: NetworkActivityGroup) {
        switch self {
        case .weightZero:
            let progress = NetworkActivityProgress(totalUnitCount: 100)
            group.operationStarted(progress: progress, weight: 0)
        case .unknownTotal: group.operationStarted(progress: NetworkActivityProgress(totalUnitCount: -1))
        }
    }
}
