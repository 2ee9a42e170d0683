import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The update streams keep only the newest value for a slow consumer; the count stream starts
/// with the current count, follows each new one and lasts as long as the stream.
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

    @Test func countUpdatesStartWithTheCurrentCountThenEachNewCount() async {
        let harness = Harness()
        harness.manager.pushNetworkActivity()
        harness.settle()
        var iterator = harness.manager.activeTaskCountUpdates().makeAsyncIterator()
        harness.settle()
        #expect(await iterator.next() == 1)
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(await iterator.next() == 2)
        harness.manager.resetNetworkActivity()
        harness.settle()
        #expect(await iterator.next() == 0)
    }

    @Test func aSlowCountConsumerSeesOnlyTheNewestCount() async {
        let harness = Harness()
        let stream = harness.manager.activeTaskCountUpdates()
        harness.settle()
        for _ in 0..<4 {
            harness.manager.pushNetworkActivity()
            harness.settle()
        }
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 4)
    }

    @Test func countStreamsFinishWhenTheManagerGoesAway() async {
        var harness: Harness? = Harness()
        let stream = harness!.manager.activeTaskCountUpdates()
        harness!.settle()
        harness = nil
        var values: [Int] = []
        for await value in stream { values.append(value) }
        #expect(values == [0])
    }

    @Test func aCountStreamAsksForHopsOnlyWhileItIsOpen() {
        let harness = Harness()
        var stream: AsyncStream<Int>? = harness.manager.activeTaskCountUpdates()
        harness.settle()
        #expect(harness.hopsForTenCountChanges() == 10, "one hop per count change while open")
        stream = nil  // terminates it: nobody can read it any more
        harness.manager.pushNetworkActivity()
        harness.settle()  // the observation finds its stream gone and ends
        harness.manager.pushNetworkActivity()
        harness.settle()  // this delivery finds the observer gone
        #expect(harness.hopsForTenCountChanges() == 0)
        _ = stream
    }

    @Test func aCountStreamTerminatedBeforeItsHopObservesNothing() {
        let harness = Harness()
        var stream: AsyncStream<Int>? = harness.manager.activeTaskCountUpdates()
        stream = nil
        harness.settle()
        harness.manager.pushNetworkActivity()
        harness.settle()  // the edge away from zero takes a hop in any case
        #expect(harness.hopsForTenCountChanges() == 0)
        _ = stream
    }
}
