import Foundation
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Activity groups")
struct GroupTests {
    @Test func groupsContributeToTheTotalAndKeepTheirOwnCount() {
        let harness = Harness()
        let feed = NetworkActivityGroup(manager: harness.manager)
        let images = NetworkActivityGroup(manager: harness.manager)
        feed.operationStarted()
        images.operationStarted()
        images.operationStarted()
        #expect(feed.activeOperationCount == 1)
        #expect(images.activeOperationCount == 2)
        #expect(harness.manager.activeTaskCount == 3)
        images.operationFinished()
        #expect(images.activeOperationCount == 1)
        #expect(harness.manager.activeTaskCount == 2)
    }

    @Test func finishWithNothingOpenNeverTakesFromAnotherGroup() {
        let harness = Harness()
        let feed = NetworkActivityGroup(manager: harness.manager, label: "feed")
        let images = NetworkActivityGroup(manager: harness.manager, label: "images")
        images.operationStarted()
        feed.operationFinished()
        #expect(images.activeOperationCount == 1)
        #expect(harness.manager.activeTaskCount == 1)
        #expect(harness.diagnostics.all == [.init(kind: .groupFinishWithoutStart, label: "feed")])
    }

    @Test func cancelEndsOnlyThisGroupsOperations() {
        let harness = Harness()
        let feed = NetworkActivityGroup(manager: harness.manager)
        let images = NetworkActivityGroup(manager: harness.manager)
        feed.operationStarted()
        feed.operationStarted()
        images.operationStarted()
        feed.cancelOperations()
        #expect(feed.activeOperationCount == 0)
        #expect(images.activeOperationCount == 1)
        #expect(harness.manager.activeTaskCount == 1)
        feed.operationStarted()
        #expect(feed.activeOperationCount == 1, "a cancelled group can start again")
    }

    @Test func releasingAGroupEndsWhatItHasOpen() {
        let harness = Harness()
        var group: NetworkActivityGroup? = NetworkActivityGroup(manager: harness.manager)
        group!.operationStarted()
        group!.operationStarted()
        harness.settle()
        group = nil
        #expect(harness.manager.activeTaskCount == 0)
        harness.settle()
        #expect(harness.visibilityChanges == [false, true, false])
        _ = group
    }

    @Test func groupsAreSafeFromManyThreads() async {
        let harness = Harness()
        let group = NetworkActivityGroup(manager: harness.manager)
        await Task.detached {
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<2_000 {
                    group.operationStarted()
                    group.operationFinished()
                }
                group.operationStarted()
            }
        }.value
        #expect(group.activeOperationCount == 4)
        #expect(harness.manager.activeTaskCount == 4)
        #expect(harness.diagnostics.all.isEmpty)
    }
}
