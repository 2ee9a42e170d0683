import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Main-queue hops, outputs and streams")
struct MainQueueTests {
    @Test func callsFromManyThreadsShareOnePendingHop() async {
        let harness = Harness()
        let hopsBefore = harness.scheduler.enqueuedWorkCount
        let manager = harness.manager
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<1_000 {
                        let token = Token()
                        manager.beganNetworkTask(withToken: token)
                        manager.finishedNetworkTask(forToken: token)
                        manager.pushNetworkActivity()
                        manager.popNetworkActivity()
                    }
                }
            }
        }
        #expect(harness.scheduler.enqueuedWorkCount - hopsBefore == 1)
        #expect(harness.scheduler.pendingWorkCount == 1)
        harness.settle()
        #expect(harness.visibilityChanges == [false], "activity that began and ended between hops never shows")
    }

    @Test func countChangesAwayFromZeroNeedNoHop() {
        let harness = Harness()
        let first = Token()
        harness.manager.beganNetworkTask(withToken: first)
        harness.settle()
        let hops = harness.scheduler.enqueuedWorkCount
        for _ in 0..<100 {
            harness.manager.pushNetworkActivity()
            harness.settle()
            harness.manager.popNetworkActivity()
            harness.settle()
        }
        #expect(harness.scheduler.enqueuedWorkCount == hops, "visibility cannot change while a task stays open")
    }

    @Test func countObservingOutputGetsEveryReconciledCount() {
        let harness = Harness(receivesCounts: true)
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.resetNetworkActivity()
        harness.settle()
        #expect(harness.output.activeTaskCounts == [0, 1, 3, 0])
    }

    @Test func everyOutputIsToldAndNewOutputsLearnTheCurrentValue() {
        let harness = Harness()
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        var seen: [Bool] = []
        let late = ClosureObserver(.visibility { seen.append($0) })
        harness.manager.addOutput(late)
        harness.manager.addOutput(late)
        #expect(seen == [true])
        #expect(harness.manager.outputs.count == 2)
        harness.manager.finishedNetworkTask(forToken: token)
        harness.settle()
        #expect(seen == [true, false])
        #expect(harness.visibilityChanges == [false, true, false])
        #expect(harness.manager.isIndicatorVisible == false)
    }

    @Test func removedOutputIsToldNothingMore() {
        let harness = Harness()
        harness.manager.removeOutput(harness.output)
        harness.manager.removeOutput(harness.output)
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        #expect(harness.visibilityChanges == [false])
        #expect(harness.manager.outputs.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func outputRemovedDuringADeliveryMissesIt() {
        let harness = Harness()
        let second = RecordingNetworkIndicatorOutput()
        let remover = ClosureObserver(
            .visibility { [unowned manager = harness.manager] isVisible in
                if isVisible { manager.removeOutput(second) }
            }
        )
        harness.manager.addOutput(remover)
        harness.manager.addOutput(second)
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        #expect(second.visibilityChanges == [false])
        withExtendedLifetime(token) {}
    }

    @Test func visibilityUpdatesStartWithTheCurrentValueThenEveryChange() async throws {
        // Read in step: only the newest value waits for a slow consumer.
        let harness = Harness()
        var iterator = harness.manager.visibilityUpdates().makeAsyncIterator()
        harness.settle()
        #expect(await iterator.next() == false)
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.settle()
        #expect(await iterator.next() == true)
        token = nil
        harness.settle()
        _ = token
        #expect(await iterator.next() == false)
    }

    @Test func aStreamOpenedWhileVisibleStartsWithTrue() async throws {
        let harness = Harness()
        let token = harness.manager.beganNetworkTask()
        harness.settle()
        let stream = harness.manager.visibilityUpdates()
        #expect(harness.scheduler.pendingWorkCount == 1, "priming the stream takes a hop")
        harness.settle()
        let values = try await firstValues(1, of: stream)
        #expect(values == [true])
        withExtendedLifetime(token) {}
    }

    @Test func streamsFinishWhenTheManagerGoesAway() async {
        var harness: Harness? = Harness()
        let stream = harness!.manager.visibilityUpdates()
        harness!.settle()
        harness = nil
        var values: [Bool] = []
        for await value in stream { values.append(value) }
        #expect(values == [false])
    }

    /// A scope's stream ends when the scope goes, while its root and the main queue live on; a
    /// visible scope's stream hears `false` first, as every output of a released manager does.
    /// (Its time limit guards a stream that never ends: see `UpdateStreamTests`.)
    @Test(.timeLimit(.minutes(10))) func aScopesStreamFinishesWhenTheScopeGoes() async {
        let harness = Harness()
        var scope: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager)
        var values = scope!.visibilityUpdates().makeAsyncIterator()
        harness.settle()
        #expect(await values.next() == false)
        scope!.pushNetworkActivity()
        harness.settle()
        #expect(await values.next() == true)
        scope = nil
        harness.settle()
        #expect(await values.next() == false)
        #expect(await values.next() == nil, "finished")
    }

    @Test func nothingIsScheduledWhileNothingIsTracked() {
        let harness = Harness(completionDelay: 0.2)
        let work = harness.scheduler.enqueuedWorkCount + harness.scheduler.scheduledTimerCount
        harness.advance(by: 3_600)
        #expect(harness.scheduler.enqueuedWorkCount + harness.scheduler.scheduledTimerCount == work)
        #expect(harness.scheduler.pendingWorkCount == 0)

        let token = Token()
        harness.manager.beganNetworkTask(withToken: token)
        harness.advance(by: 5)
        harness.manager.finishedNetworkTask(forToken: token)
        harness.advance(by: 1)
        #expect(harness.scheduler.pendingWorkCount == 0, "after the hide, no timer or hop is left")
        let settled = harness.scheduler.executedWorkCount
        harness.advance(by: 3_600)
        #expect(harness.scheduler.executedWorkCount == settled)
    }
}
