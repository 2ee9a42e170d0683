import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The visibility stream keeps only the newest value for a slow consumer.
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
}
