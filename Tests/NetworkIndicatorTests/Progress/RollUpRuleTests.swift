import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The roll-up rules of ``NetworkIndicatorManager/fractionCompleted`` in one manager.
@MainActor
@Suite("Progress roll-up rules")
struct RollUpRuleTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    @Test func anIdleManagerHasNoFraction() {
        #expect(manager.progressSnapshot().fractionCompleted == nil)
    }

    @Test func tasksWithoutProgressGiveNoFraction() {
        let token = manager.beganNetworkTask()
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        withExtendedLifetime(token) {}
    }

    @Test func oneTaskReportsItsOwnFraction() {
        let download = progress(25, of: 100)
        let token = manager.beganNetworkTask(label: "Download", progress: download)
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        download.completedUnitCount = 60
        #expect(manager.progressSnapshot().fractionCompleted == 0.6, "read when asked: no update reaches the manager")
        withExtendedLifetime(token) {}
    }

    @Test func unitsWeighAsBytesNotAsTasks() {
        let small = manager.beganNetworkTask(progress: progress(10, of: 10))
        let large = manager.beganNetworkTask(progress: progress(0, of: 990))
        // Per-task averaging would say 0.5; bytes say 10 of 1000.
        #expect(manager.progressSnapshot().fractionCompleted == 0.01)
        withExtendedLifetime((small, large)) {}
    }

    @Test func anIndeterminateTaskDoesNotDiluteTheFraction() {
        let known = manager.beganNetworkTask(progress: progress(50, of: 100))
        let unknown = manager.beganNetworkTask(progress: Progress(totalUnitCount: -1))
        let zeroTotal = manager.beganNetworkTask(progress: Progress(totalUnitCount: 0))
        let plain = manager.beganNetworkTask()
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime((known, unknown, zeroTotal, plain)) {}
    }

    @Test func onlyIndeterminateTasksGiveNoFraction() {
        let unknown = manager.beganNetworkTask(progress: Progress(totalUnitCount: -1))
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        withExtendedLifetime(unknown) {}
    }

    @Test func aTaskCountsOnceItsTotalBecomesKnown() {
        let response = Progress(totalUnitCount: -1)
        let token = manager.beganNetworkTask(progress: response)
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        response.totalUnitCount = 200
        response.completedUnitCount = 50
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        withExtendedLifetime(token) {}
    }

    @Test func theFractionIsClampedPerTask() {
        let overrun = manager.beganNetworkTask(progress: progress(300, of: 100))
        let other = manager.beganNetworkTask(progress: progress(0, of: 100))
        let negative = manager.beganNetworkTask(progress: progress(-50, of: 100))
        // The overrun counts as its total, the negative one as nothing: 100 of 300.
        #expect(manager.progressSnapshot().fractionCompleted == 1.0 / 3.0)
        withExtendedLifetime((overrun, other, negative)) {}
    }

    @Test func aReleasedTaskCountsAsCompleteWhileTheScopeIsBusy() {
        var first: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(40, of: 100))
        let second = manager.beganNetworkTask(progress: progress(20, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        first = nil
        #expect(manager.progressSnapshot().fractionCompleted == 0.6, "the ended task counts as its full 100 units")
        withExtendedLifetime((first, second)) {}
    }

    @Test func anExplicitlyFinishedTaskCountsAsComplete() {
        let first = manager.beganNetworkTask(progress: progress(0, of: 100))
        let second = manager.beganNetworkTask(progress: progress(0, of: 100))
        manager.finishedNetworkTask(forToken: first)
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime((first, second)) {}
    }

    @Test func theBatchEndsWhenOnlyTasksWithoutProgressRemain() {
        var download: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(10, of: 100))
        let plain = manager.beganNetworkTask()
        download = nil
        #expect(manager.progressSnapshot().fractionCompleted == nil, "a spinner while the plain task runs, not 100 %")
        withExtendedLifetime((download, plain)) {}
    }

    @Test func theFractionIsNilOnceTheScopeIsIdle() {
        var token: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(100, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 1)
        token = nil
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        withExtendedLifetime(token) {}
    }

    @Test func workAfterAnIdleScopeStartsAfresh() {
        var old: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(100, of: 100))
        old = nil
        // No reading in between: the begin itself sees that the scope was idle.
        let new = manager.beganNetworkTask(progress: progress(10, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.1)
        withExtendedLifetime((old, new)) {}
    }

    @Test func anIdleMomentNobodyReadStillForgetsEndedWork() {
        var old: NetworkActivityToken? = manager.beganNetworkTask(progress: progress(100, of: 100))
        old = nil
        // Busy again through a task without progress, then new determinate work.
        let plain = manager.beganNetworkTask()
        let new = manager.beganNetworkTask(progress: progress(10, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.1)
        withExtendedLifetime((old, plain, new)) {}
    }

    @Test func newWorkInABusyScopeMayLowerTheFraction() {
        let first = manager.beganNetworkTask(progress: progress(50, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
        let second = manager.beganNetworkTask(progress: progress(0, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        withExtendedLifetime((first, second)) {}
    }

    @Test func aResetEndsEveryTrackedTask() {
        let token = manager.beganNetworkTask(progress: progress(10, of: 100))
        let child = NetworkIndicatorManager(parent: manager, label: "Busy child")
        manager.resetNetworkActivity()
        // Busy again at once without progress: only the reset, not an idle scope, ends the part.
        let plain = child.beganNetworkTask()
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        withExtendedLifetime((token, plain)) {}
    }

    @Test func beginningWithoutProgressIsThePlainBegin() {
        let token = manager.beganNetworkTask(label: "Plain", progress: nil)
        #expect(manager.activeTaskCount == 1)
        #expect(manager.progressSnapshot().fractionCompleted == nil)
        #expect(manager.progressRollUp.partCount == 0)
        withExtendedLifetime(token) {}
    }
}
