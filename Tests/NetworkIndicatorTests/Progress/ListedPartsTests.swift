import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Which parts a roll-up keeps listed: memory stays bounded however long a group or a scope
/// stays open, and a group's parts leave as its operations end or are superseded.
@MainActor
@Suite("Progress parts listed")
struct ListedPartsTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    @Test func aGroupThatAlwaysHasAnOperationOpenKeepsFewParts() {
        let group = NetworkActivityGroup(manager: manager)
        group.operationStarted(progress: progress(0, of: 10))
        for _ in 0..<1_000 {
            let part = progress(0, of: 10)
            group.operationStarted(progress: part)
            part.completedUnitCount = 10
            group.operationFinished()
        }
        // Bounded: the open operation, and the last two complete ones until the next begin.
        #expect(manager.progressRollUp.partCount <= 3)
        #expect(manager.progressSnapshot().fractionCompleted != nil)
        group.operationFinished()
    }

    /// A group's first part leaves (the group cannot tell which operation ended) while another
    /// task runs with a known size: the batch goes on, with the part that left counted as done.
    /// Nobody reads in between, so the next begin is what folds it.
    @Test func aPartLeavingUnreadWhileAnotherTaskRunsKeepsTheBatch() throws {
        let group = NetworkActivityGroup(manager: manager)
        let first = progress(0, of: 100)
        group.operationStarted(progress: first)
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        first.completedUnitCount = 50
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        group.operationStarted(progress: progress(0, of: 100))
        group.operationFinished()  // one of the two running: the older part leaves, as done
        group.operationStarted(progress: progress(0, of: 100))
        let fraction = try #require(manager.progressSnapshot().fractionCompleted)
        #expect(abs(fraction - 100.0 / 400) < 1e-9, "the done part's 100 units stay in the batch")
        withExtendedLifetime(other) {}
    }

    @Test func aScopeNobodyReadsKeepsOnlyItsRunningParts() {
        for _ in 0..<1_000 {
            let download = manager.beganNetworkTask(progress: progress(0, of: 10))
            withExtendedLifetime(download) {}
        }
        let running = manager.beganNetworkTask(progress: progress(0, of: 10))
        #expect(manager.progressRollUp.partCount == 1, "each begin with progress folds what ended")
        withExtendedLifetime(running) {}
    }

    /// A group that stays open must not list the parts of its finished operations for ever,
    /// whether their size was never known or they never reached their total.
    @Test func anOpenGroupListsNoMorePartsThanItHasOperations() {
        let group = NetworkActivityGroup(manager: manager)
        group.operationStarted()  // keeps the group open throughout
        for index in 0..<1_000 {
            let size = index.isMultiple(of: 2) ? Progress(totalUnitCount: -1) : progress(10, of: 100)
            group.operationStarted(progress: size)
            group.operationFinished()
        }
        // Which operation a finish ended, the group cannot tell: its newest parts stay, one per
        // open operation, and the older ones leave (as done, or of no size).
        #expect(manager.activeTaskCount == 1)
        #expect(manager.progressRollUp.partCount <= 2, "folded at each begin")
        _ = manager.progressSnapshot().fractionCompleted
        #expect(manager.progressRollUp.partCount == 1, "and at each reading")
        group.operationStarted(progress: progress(30, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted != nil)
        #expect(manager.progressRollUp.partCount == 2)
    }

    @Test func aGroupsPartsLeftOverFromAnEndedBatchStillLeaveWithItsOperations() {
        let group = NetworkActivityGroup(manager: manager)
        group.operationStarted(progress: NetworkActivityProgress(totalUnitCount: -1))
        group.operationStarted(progress: NetworkActivityProgress(totalUnitCount: -1))
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(5, of: 10))
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        download = nil
        #expect(
            manager.progressSnapshot().fractionCompleted == nil,
            "the batch is over; the group's two parts stay listed"
        )
        #expect(manager.progressRollUp.partCount == 2)
        group.operationFinished()
        _ = manager.progressSnapshot().fractionCompleted
        #expect(manager.progressRollUp.partCount == 1, "one open operation, one part")
        _ = download
    }

    /// A begin with progress settles the batch by reading the parts that ended, and the running
    /// ones only until one is found running (ProgressRollUp's `readForSettling`): the downloads
    /// after it are not read, so that a begin costs the same beside two downloads or a thousand.
    @Test func aBeginWithProgressReadsNoRunningPartAfterTheFirst() {
        let first = manager.beganNetworkTask(progress: progress(0, of: 100))
        let token = Token()
        let running = CountingProgress()
        manager.beganNetworkTask(withToken: token, progress: running)
        let readsBefore = running.reads.withLock { $0 }
        let next = manager.beganNetworkTask(progress: progress(0, of: 100))
        #expect(running.reads.withLock { $0 } == readsBefore, "the second download was not read")
        #expect(manager.progressSnapshot().fractionCompleted == 25.0 / 300, "a reading reads it")
        manager.finishedNetworkTask(forToken: token)
        withExtendedLifetime((first, next)) {}
    }

    /// A group's operation begun without progress outlives only the group's own listed parts:
    /// another task's part listed beside it is not read (`operationStarted()` asks for a settle,
    /// which reads every part, only when it outlived one of the group's).
    @Test func aGroupsOperationWithoutProgressReadsNoOtherPart() {
        let token = Token()
        let running = CountingProgress()
        manager.beganNetworkTask(withToken: token, progress: running)
        let group = NetworkActivityGroup(manager: manager)
        let readsBefore = running.reads.withLock { $0 }
        group.operationStarted()
        #expect(running.reads.withLock { $0 } == readsBefore)
        group.operationFinished()
        manager.finishedNetworkTask(forToken: token)
    }

    @Test func aGroupsFinishedPartLeavesOnceALaterOneRuns() {
        let group = NetworkActivityGroup(manager: manager)
        group.operationStarted(progress: progress(10, of: 10))  // done, its operation still open
        group.operationStarted(progress: progress(0, of: 10))
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        #expect(manager.progressRollUp.partCount == 1, "the done part is folded, not listed")
        #expect(manager.activeTaskCount == 2)
    }
}

/// A progress at 25 of 100 that counts how often the manager reads it.
private final class CountingProgress: Progress, SelfReadingProgress, @unchecked Sendable {
    let reads = LockedState(0)

    init() { super.init(parent: nil, userInfo: nil) }

    var reading: ProgressReading {
        reads.withLock { $0 += 1 }
        return ProgressReading(total: 100, completed: 25)
    }
}
