import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Managers hold outputs weakly: attaching one never builds a cycle a user must break.
@MainActor
@Suite("Output retention")
struct OutputRetentionTests {
    @Test func anOutputThatCapturesItsManagerIsFreedWhenItsOwnerLetsGo() {
        let harness = Harness()
        let manager = harness.manager
        var calls: [Bool] = []
        var output: ClosureObserver? = ClosureObserver(
            .visibility { isVisible in
                calls.append(isVisible)
                _ = manager.activeTaskCount  // a strong capture of the manager: no cycle
            }
        )
        let weakOutput = WeakReference(output)
        manager.addOutput(output!)
        output = nil
        #expect(weakOutput.object == nil, "the manager does not keep it")
        manager.pushNetworkActivity()
        harness.settle()
        #expect(calls == [false], "told the current value when added, nothing after release")
        #expect(manager.outputs.count == 1, "the harness's own output is still attached")
    }

    @Test func aModelCreatedForEachViewRebuildIsFreedWithItsView() {
        let harness = Harness()
        weak var first: NetworkIndicatorModel?
        for _ in 0..<3 {
            let model = NetworkIndicatorModel(manager: harness.manager)  // a view's default value
            if first == nil { first = model }
        }
        #expect(first == nil)
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(harness.manager.outputs.count == 1)
    }

    @Test func aReleasedCountObserverStopsAskingForHops() {
        let harness = Harness()
        var observer: RecordingNetworkIndicatorOutput? = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
        harness.manager.addOutput(observer!)
        harness.manager.pushNetworkActivity()
        harness.settle()
        observer = nil
        harness.manager.pushNetworkActivity()
        harness.settle()  // this delivery finds the observer gone
        #expect(harness.hopsForTenCountChanges() == 0, "count changes away from zero need no hop")
        _ = observer
    }

    @Test func removingAnOutputThatWasFreedDoesNothing() {
        let harness = Harness()
        var output: RecordingNetworkIndicatorOutput? = RecordingNetworkIndicatorOutput()
        harness.manager.addOutput(output!)
        let other = RecordingNetworkIndicatorOutput()
        output = nil
        harness.manager.removeOutput(other)
        #expect(harness.manager.outputs.count == 1)
        _ = output
    }
}
