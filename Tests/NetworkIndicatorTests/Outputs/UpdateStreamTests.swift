import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The visibility stream keeps only the newest value for a slow consumer.
///
/// The time limits guard against a stream that never ends; they are not timing checks. Every
/// main-actor test of the run shares one thread: here the shortest of these takes 11-15 s of
/// wall time, and a loaded CI machine once took 54 s (a one-minute limit failed there).
@MainActor
@Suite("Update streams")
struct UpdateStreamTests {
    @Test func aSlowVisibilityConsumerSeesOnlyTheNewestValue() async {
        let harness = Harness()
        let stream = harness.manager.visibilityUpdates()
        harness.settle()
        for _ in 0..<3 {
            harness.manager.pushNetworkActivity()
            harness.settle()
            harness.manager.popNetworkActivity()
            harness.settle()
        }
        harness.manager.pushNetworkActivity()
        harness.settle()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == true, "seven values were produced; the newest waits")
    }

    @Test func visibilityUpdatesReadInStepSeeEveryChange() async {
        let harness = Harness()
        var iterator = harness.manager.visibilityUpdates().makeAsyncIterator()
        harness.settle()
        #expect(await iterator.next() == false)
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(await iterator.next() == true)
        harness.manager.popNetworkActivity()
        harness.settle()
        #expect(await iterator.next() == false)
    }

    /// Streams are outputs: two opened at once each hear the current value, then the changes;
    /// one that ends is let go, and the other goes on.
    @Test func streamsOpenedAtOnceEachHearTheValueAndEndOnTheirOwn() async {
        let harness = Harness()
        let outputsBefore = harness.manager.outputs.count
        let first = harness.manager.visibilityUpdates()
        var second: AsyncStream<Bool>? = harness.manager.visibilityUpdates()
        harness.settle()
        #expect(harness.manager.outputs.count == outputsBefore + 2)
        var firstValues = first.makeAsyncIterator()
        var secondValues = second!.makeAsyncIterator()
        #expect(await firstValues.next() == false)
        #expect(await secondValues.next() == false)
        second = nil
        secondValues = AsyncStream<Bool> { $0.finish() }.makeAsyncIterator()  // the last holder of the second stream
        harness.settle()
        #expect(harness.manager.outputs.count == outputsBefore + 1, "the ended stream was let go")
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(await firstValues.next() == true)
    }

    /// "the first one at the next main-queue hop: it is the visibility then, so a stream of a
    /// manager deallocated before that hop yields only its last `false`." (The indicator was
    /// showing when the stream was made.)
    @Test(.timeLimit(.minutes(10))) func aStreamOfAManagerGoneBeforeItsFirstHopYieldsOnlyFalse() async throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        manager?.settings.completionDelay = 0
        let output = RecordingNetworkIndicatorOutput()
        manager?.addOutput(output)
        manager?.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(output.isVisible)
        let stream = try #require(manager?.visibilityUpdates())
        manager = nil
        scheduler.runPendingWork()
        var values: [Bool] = []
        for await value in stream { values.append(value) }
        #expect(values == [false])
    }

    /// "cancelling the consuming task unsubscribes it" (NetworkIndicatorManager+Outputs.swift:73)
    @Test(.timeLimit(.minutes(10))) func aStreamWhoseConsumingTaskIsCancelledIsLetGo() async {
        let harness = Harness()
        let outputsBefore = harness.manager.outputs.count
        let stream = harness.manager.visibilityUpdates()
        harness.settle()
        #expect(harness.manager.outputs.count == outputsBefore + 1)
        let consumer = Task { for await _ in stream {} }
        consumer.cancel()
        await consumer.value
        await eventually {
            harness.settle()
            return harness.manager.outputs.count == outputsBefore
        }
    }

    /// "Callable from any thread." (NetworkIndicatorManager+Outputs.swift:74)
    @Test(.timeLimit(.minutes(10))) func aStreamMadeOffTheMainActorStartsWithTheCurrentValue() async {
        let harness = Harness()
        harness.manager.pushNetworkActivity()
        harness.settle()
        let manager = harness.manager
        let stream = await Task.detached { manager.visibilityUpdates() }.value
        harness.settle()
        var values = stream.makeAsyncIterator()
        #expect(await values.next() == true)
    }
}
