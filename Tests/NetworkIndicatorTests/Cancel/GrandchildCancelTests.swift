import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// PerScreenLoadingState.md: a scope's cancel ends its cancellable work at once, its ancestors'
/// counts drop with it and its siblings are left alone; opaque tokens, pushes and
/// `withNetworkActivity` bodies, which have no work to cancel, stay counted; late finishes of
/// the cancelled work are absorbed.
@MainActor
@Suite("A cancel deep in the tree")
struct GrandchildCancelTests {
    @Test func aGrandchildsCancelEndsItsCancellableWorkOnly() {
        let harness = Harness(completionDelay: 0.2)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let detail = NetworkIndicatorManager(parent: feed, label: "Detail")
        let work = CancelTests.Work()
        detail.beganNetworkTask(withToken: work)
        detail.beganNetworkTask(withToken: work)
        let images = NetworkActivityGroup(manager: detail, label: "images")
        let handled = LockedCounter()
        images.cancellationHandler = { handled.increment() }
        images.operationStarted()
        let page = detail.beganNetworkTask(label: "page")
        detail.pushNetworkActivity()
        feed.pushNetworkActivity()
        #expect(harness.manager.activeTaskCount == 6)
        detail.cancelNetworkTasks()
        #expect(detail.activeTaskCount == 2, "the opaque token and the push")
        #expect(feed.activeTaskCount == 3)
        #expect(harness.manager.activeTaskCount == 3)
        #expect(work.cancelCount == 1, "once, however many tasks it had")
        #expect(handled.value == 1)
        detail.finishedNetworkTask(forToken: work)
        detail.finishedNetworkTask(forToken: work)
        images.operationFinished()
        #expect(harness.manager.activeTaskCount == 3)
        #expect(harness.diagnostics.kinds.isEmpty, "late finishes of cancelled work are absorbed")
        withExtendedLifetime(page) {}
    }

    @Test func withNetworkActivityInAScopeStaysCountedThroughTheScopesCancel() async {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let root = harness.manager
        await feed.withNetworkActivity(label: "save") {
            feed.cancelNetworkTasks()
            #expect(feed.activeTaskCount == 1)
            #expect(root.activeTaskCount == 1)
        }
        #expect(feed.activeTaskCount == 0)
        #expect(root.activeTaskCount == 0)
    }
}
