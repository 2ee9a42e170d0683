import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A manager's progress as its overlay sees it while child scopes draw their own overlays
/// (`progressSnapshot(excluding:)`, issue 63 item 10): their parts and their tasks leave its
/// units and its unmeasured work, running or ended; the whole snapshot still counts them.
@MainActor
@Suite("Progress leaving out covered scopes")
struct ExcludedScopeProgressTests {
    private let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    @Test func aCoveredChildsPartsLeaveTheUnitsRunningOrEnded() {
        let detail = NetworkIndicatorManager(parent: root, label: "Detail")
        let own = root.beganNetworkTask(progress: progress(50, of: 100))
        let upload = progress(0, of: 300)
        var uploading: NetworkActivityToken? = detail.beganNetworkTask(progress: upload)
        #expect(root.progressSnapshot().fractionCompleted == 0.125, "50 of 400, both counted")
        let mine = root.progressSnapshot(excluding: [detail])
        #expect(mine.fractionCompleted == 0.5)
        #expect(mine.totalUnitCount == 100 && !mine.hasIndeterminateWork)

        upload.completedUnitCount = 300
        uploading = nil
        #expect(root.progressSnapshot().fractionCompleted == 0.875, "the ended upload counts as done")
        #expect(root.progressSnapshot(excluding: [detail]).fractionCompleted == 0.5, "not in the root's own bar")
        withExtendedLifetime((own, uploading)) {}
    }

    /// Leaving out a scope that has no part changes nothing, pace included: a part that ended
    /// still takes the units it brought (begun at 30 of 100) out of the pace.
    @Test func leavingOutAScopeWithoutPartsChangesNoReading() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        let detail = NetworkIndicatorManager(parent: root, label: "Detail")
        let resumed = progress(30, of: 100)
        var resuming: NetworkActivityToken? = root.beganNetworkTask(progress: resumed)
        let fresh = progress(0, of: 100)
        let loading = root.beganNetworkTask(progress: fresh)
        scheduler.advance(by: 10)
        resumed.completedUnitCount = 100
        fresh.completedUnitCount = 20
        resuming = nil
        let whole = root.progressSnapshot()
        #expect(whole.estimatedTimeRemaining == 10.0 * 80 / 90, "90 units in 10 s, 80 to go")
        #expect(root.progressSnapshot(excluding: [detail]) == whole)
        withExtendedLifetime((loading, resuming)) {}
    }

    @Test func aCoveredChildsUnmeasuredTaskIsNotTheParentsUnknownWork() {
        let detail = NetworkIndicatorManager(parent: root, label: "Detail")
        let own = root.beganNetworkTask(progress: progress(20, of: 100))
        let plain = detail.beganNetworkTask()
        #expect(root.progressSnapshot().hasIndeterminateWork)
        #expect(!root.progressSnapshot(excluding: [detail]).hasIndeterminateWork)
        withExtendedLifetime((own, plain)) {}
    }

    /// Only a covered scope's parts are running: the overlay's own bar has no fraction (the
    /// spinner), though the whole batch runs on.
    @Test func withOnlyACoveredScopeMeasuredThereIsNoFraction() {
        let detail = NetworkIndicatorManager(parent: root, label: "Detail")
        let plain = root.beganNetworkTask()
        let upload = detail.beganNetworkTask(progress: progress(10, of: 100))
        #expect(root.progressSnapshot().fractionCompleted == 0.1)
        let mine = root.progressSnapshot(excluding: [detail])
        #expect(mine.fractionCompleted == nil && mine.hasIndeterminateWork)
        withExtendedLifetime((plain, upload)) {}
    }

    /// A covered scope inside another covered one is left out once; a grandchild of a covered
    /// scope is left out with it; a scope that is not below changes nothing.
    @Test func nestedAndForeignScopesAreCountedRightly() {
        let list = NetworkIndicatorManager(parent: root, label: "List")
        let row = NetworkIndicatorManager(parent: list, label: "Row")
        let sibling = NetworkIndicatorManager(parent: root, label: "Sibling")
        let own = list.beganNetworkTask(progress: progress(30, of: 100))
        let rowTask = row.beganNetworkTask(progress: progress(0, of: 100))
        let rowPlain = row.beganNetworkTask()
        let listPlain = list.beganNetworkTask()
        let rootTask = root.beganNetworkTask(progress: progress(40, of: 100))
        let siblingPlain = sibling.beganNetworkTask()
        let both = root.progressSnapshot(excluding: [row, list])
        #expect(both.fractionCompleted == 0.4, "list and row out")
        #expect(both.hasIndeterminateWork, "the sibling's plain task, not hidden by counting the row twice")
        let fromList = list.progressSnapshot(excluding: [row, sibling])
        #expect(fromList.fractionCompleted == 0.3)
        #expect(fromList.hasIndeterminateWork, "the list's own plain task; the sibling is not the list's")
        withExtendedLifetime((own, rowTask, rowPlain, listPlain, rootTask, siblingPlain)) {}
    }

    /// Review finding: the manager itself, or a manager of another tree (whose node ids may
    /// match this tree's), is no descendant and leaves nothing out.
    @Test func onlyDescendantsAreLeftOut() {
        let other = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let otherChild = NetworkIndicatorManager(parent: other, label: "Elsewhere")
        let detail = NetworkIndicatorManager(parent: root, label: "Detail")
        let own = root.beganNetworkTask(progress: progress(50, of: 100))
        let upload = detail.beganNetworkTask(progress: progress(0, of: 100))
        let plain = detail.beganNetworkTask()
        let whole = root.progressSnapshot()
        #expect(root.progressSnapshot(excluding: [root]) == whole)
        #expect(root.progressSnapshot(excluding: [other, otherChild]) == whole)
        withExtendedLifetime((own, upload, plain)) {}
    }

    /// A group's complete part that left before its operation finished still measures that
    /// operation in the reader's own bar.
    @Test func anUncoveredGroupsPartDoneWhileOpenMeasuresItsOperation() {
        let detail = NetworkIndicatorManager(parent: root, label: "Detail")
        let covered = detail.beganNetworkTask()
        let uploads = NetworkActivityGroup(manager: root, label: "uploads")
        let first = progress(0, of: 100)
        uploads.operationStarted(progress: first)
        uploads.operationStarted(progress: progress(0, of: 100))
        first.completedUnitCount = 100
        let mine = root.progressSnapshot(excluding: [detail])
        #expect(mine.fractionCompleted == 0.5)
        #expect(!mine.hasIndeterminateWork, "the covered task left out, both uploads measured")
        withExtendedLifetime((covered, uploads)) {}
    }
}
