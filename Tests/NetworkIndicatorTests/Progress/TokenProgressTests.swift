import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Progress carried by caller tokens, groups, `withNetworkActivity` and tracked sequences.
@MainActor
@Suite("Progress on every begin form")
struct TokenProgressTests {
    private let scheduler: ManualNetworkIndicatorScheduler
    private let manager: NetworkIndicatorManager

    init() {
        scheduler = ManualNetworkIndicatorScheduler()
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    @Test func aCallerTokenCarriesItsProgress() {
        let request = Token()
        manager.beganNetworkTask(withToken: request, progress: progress(30, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.3)
        #expect(manager.activeTaskCount == 1)
    }

    /// A `Progress` that reports more units than its total (a server that sent more than its
    /// `Content-Length`) reads as done, never past it.
    @Test func aPartPastItsTotalReadsAsDoneAndNoMore() {
        let request = Token()
        manager.beganNetworkTask(withToken: request, progress: progress(150, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 1)
        withExtendedLifetime(request) {}
    }

    /// A task weighed one unit (one file of an export counted per file) has a known size: the
    /// bar reads 0 of 1, not "size unknown".
    @Test func aTaskOfOneUnitIsMeasuredFromItsStart() {
        let export = manager.beganNetworkTask(progress: progress(0, of: 1))
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0)
        #expect(snapshot.totalUnitCount == 1)
        withExtendedLifetime(export) {}
    }

    /// "3 of 3 files" means done: the units done are whole units, rounded down as the
    /// percentage is, so that they reach the total only when the fraction does.
    @Test func theUnitsDoneReachTheTotalOnlyWhenTheBatchIsDone() {
        let files = Progress.discreteProgress(totalUnitCount: 3)
        let third = Progress(totalUnitCount: 10)
        files.addChild(third, withPendingUnitCount: 1)
        files.completedUnitCount = 2
        third.completedUnitCount = 6
        let export = manager.beganNetworkTask(progress: files)
        var snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted.map { abs($0 - 2.6 / 3) < 1e-9 } == true)
        #expect(snapshot.completedUnitCount == 2)
        #expect(snapshot.totalUnitCount == 3)
        third.completedUnitCount = 10
        snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 1)
        #expect(snapshot.completedUnitCount == 3)
        withExtendedLifetime(export) {}
    }

    /// A `Progress` at 29 of 100 is read as its fraction times its total, 28.999999999999996 in
    /// binary floating point: still 29 units done.
    @Test func wholeUnitsDoneAreNotLostToRounding() {
        let upload = manager.beganNetworkTask(progress: progress(29, of: 100))
        #expect(manager.progressSnapshot().completedUnitCount == 29)
        withExtendedLifetime(upload) {}
    }

    @Test func aCallerTokenFinishedExplicitlyCountsAsComplete() {
        let request = Token()
        let other = Token()
        manager.beganNetworkTask(withToken: request, progress: progress(30, of: 100))
        manager.beganNetworkTask(withToken: other, label: "Other", progress: progress(0, of: 100))
        manager.finishedNetworkTask(forToken: request)
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
    }

    @Test func aDeallocatedCallerTokenCountsAsCompleteBeforeTheSweep() {
        var request: Token? = Token()
        let other = Token()
        manager.beganNetworkTask(withToken: request!, progress: progress(0, of: 100))
        manager.beganNetworkTask(withToken: other, progress: progress(0, of: 100))
        request = nil
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
    }

    @MainActor
    @Test func aTokenReportingCompletionCountsAsCompleteAfterTheSweep() {
        let request = CompletableToken()
        let other = Token()
        manager.settings.completionCheckInterval = 1
        manager.beganNetworkTask(withToken: request, progress: progress(0, of: 100))
        manager.beganNetworkTask(withToken: other, progress: progress(0, of: 100))
        request.finish()
        #expect(manager.progressSnapshot().fractionCompleted == 0, "still open until the sweep")
        scheduler.advance(by: 1)
        #expect(manager.progressSnapshot().fractionCompleted == 0.5)
    }

    @Test func aGroupOperationCarriesItsProgress() {
        let group = NetworkActivityGroup(manager: manager, label: "Uploads")
        let first = progress(0, of: 100)
        group.operationStarted(progress: first)
        group.operationStarted(progress: progress(50, of: 100))
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        first.completedUnitCount = 100
        group.operationFinished()
        #expect(manager.progressSnapshot().fractionCompleted == 0.75)
    }

    /// Cancel on a group neither jumps the bar forward nor counts units that never came: its
    /// running parts leave the batch, as a manager's `cancelNetworkTasks()` makes them leave.
    @Test(arguments: [false, true])
    func cancellingAGroupsOperationsTakesTheirRunningPartsOutOfTheBatch(readFirst: Bool) {
        let group = NetworkActivityGroup(manager: manager)
        let download = manager.beganNetworkTask(progress: progress(20, of: 100))
        group.operationStarted(progress: progress(10, of: 100))
        if readFirst { #expect(manager.progressSnapshot().fractionCompleted == 0.15) }
        group.cancelOperations()
        let snapshot = manager.progressSnapshot()
        #expect(snapshot.fractionCompleted == 0.2, "the download alone: the upload's part left")
        #expect(snapshot.totalUnitCount == 100)
        withExtendedLifetime(download) {}
    }

    /// What the group's rules ended before its cancel stays done: a complete part that a later
    /// operation outlived, and the part of an operation that finished.
    @Test func aGroupsCancelLeavesItsEndedPartsDone() {
        let group = NetworkActivityGroup(manager: manager)
        let download = manager.beganNetworkTask(progress: progress(0, of: 100))
        let first = progress(0, of: 100)
        group.operationStarted(progress: first)
        first.completedUnitCount = 100
        group.operationStarted(progress: progress(0, of: 100))  // outlives the first, complete
        let third = progress(0, of: 100)
        group.operationStarted(progress: third)
        third.completedUnitCount = 100
        group.operationFinished()  // a finish ends a complete part first: the third's
        group.cancelOperations()  // the second's part leaves
        #expect(manager.progressSnapshot().fractionCompleted == 200.0 / 300)
        withExtendedLifetime(download) {}
    }

    @Test func aGroupReusedAfterAnIdleMomentForgetsItsEarlierProgress() {
        let group = NetworkActivityGroup(manager: manager, label: "Uploads")
        group.operationStarted(progress: progress(100, of: 100))
        group.operationFinished()  // idle, and nobody reads
        group.operationStarted(progress: progress(0, of: 100))
        #expect(
            manager.progressSnapshot().fractionCompleted == 0,
            "the first upload belongs to the earlier busy period"
        )
    }

    @Test func aCallerTokenReusedAfterAnIdleMomentForgetsItsEarlierProgress() {
        let request = Token()
        manager.beganNetworkTask(withToken: request, progress: progress(100, of: 100))
        manager.finishedNetworkTask(forToken: request)  // idle, and nobody reads
        manager.beganNetworkTask(withToken: request, progress: progress(0, of: 100))
        #expect(
            manager.progressSnapshot().fractionCompleted == 0,
            "the first progress belongs to the earlier busy period"
        )
    }

    @Test func withNetworkActivityCarriesItsProgressWhileTheBodyRuns() async {
        let work = progress(0, of: 4)
        let seen = await manager.withNetworkActivity(label: "Sync", progress: work) { () async -> [Double?] in
            var seen: [Double?] = []
            for _ in 0..<2 {
                work.completedUnitCount += 1
                seen.append(manager.progressSnapshot().fractionCompleted)
            }
            return seen
        }
        #expect(seen == [0.25, 0.5])
        #expect(manager.progressSnapshot().fractionCompleted == nil)
    }

    @Test func withNetworkActivityWithoutALabelIsNamedByWhereItWasCalled() async {
        let work = progress(3, of: 4)
        let line = #line + 1
        let (labels, fraction) = await manager.withNetworkActivity(progress: work) {
            (manager.activitySnapshot().activities.map(\.label), manager.progressSnapshot().fractionCompleted)
        }
        #expect(labels == ["TokenProgressTests.swift:\(line)"])
        #expect(fraction == 0.75)
    }

    @Test func withNetworkActivityEndsWithItsProgressAsSoonAsTheTaskIsCancelled() async {
        let manager = manager
        let work = progress(1, of: 4)
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task.detached {
            await manager.withNetworkActivity(label: "Sync", progress: work) {
                enteredContinuation.yield()
                // Waits in a task of its own, which the cancellation does not reach: the body
                // runs on until released.
                await Task { for await _ in release { break } }.value
            }
        }
        for await _ in entered { break }
        #expect(manager.activeTaskCount == 1)
        #expect(manager.progressSnapshot().fractionCompleted == 0.25)
        task.cancel()
        #expect(manager.activeTaskCount == 0, "ended by the cancellation, though the body still runs")
        #expect(manager.progressSnapshot().fractionCompleted == nil, "its progress left with it")
        releaseContinuation.yield()
        await task.value
        #expect(manager.activeTaskCount == 0)
    }

    @Test func aTrackedSequenceCountsItsElementsAgainstTheExpectedCount() async {
        let elements = AsyncStream<Int> { continuation in
            for element in 0..<4 { continuation.yield(element) }
            continuation.finish()
        }
        var seen: [Double?] = []
        for await _ in elements.trackingNetworkActivity(in: manager, expectedElementCount: 4) {
            seen.append(manager.progressSnapshot().fractionCompleted)
        }
        #expect(seen == [0.25, 0.5, 0.75, 1])
        #expect(manager.progressSnapshot().fractionCompleted == nil)
    }

    @Test func aTrackedSequenceWithoutExpectedCountHasNoFraction() async {
        let elements = AsyncStream<Int> { continuation in
            continuation.yield(1)
            continuation.finish()
        }
        var seen: [Double?] = []
        for await _ in elements.trackingNetworkActivity(in: manager) {
            seen.append(manager.progressSnapshot().fractionCompleted)
        }
        #expect(seen == [nil])
    }
}
