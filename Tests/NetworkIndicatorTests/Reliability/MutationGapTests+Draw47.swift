import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// Behaviour the fresh mutation draw of issue 46 (seed 47) found no test pinning down. Public
/// API only, manual time only.
@MainActor
@Suite("Mutation gaps, draw 47")
struct MutationGapDraw47Tests {
    /// A caller's token that counts its cancels.
    private final class Work: NetworkActivityCancellable, Sendable {
        private let cancels = LockedCounter()
        var cancelCount: Int { cancels.value }
        func cancel() { cancels.increment() }
    }

    /// A token with nothing to cancel, begun first, must not stop the cancel of those after it.
    @Test func aTokenThatCannotBeCancelledDoesNotShieldTheOnesAfterIt() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let plain = NSObject()
        let work = Work()
        manager.beganNetworkTask(withToken: plain)
        manager.beganNetworkTask(withToken: work)
        manager.cancelNetworkTasks()
        #expect(work.cancelCount == 1)
        #expect(manager.activeTaskCount == 1, "only the plain token's task is left")
        _ = plain
    }

    /// A parent's snapshot lists every busy child, not only the first.
    @Test func aParentsSnapshotListsEveryBusyChild() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let feed = NetworkIndicatorManager(parent: manager, label: "Feed")
        let inbox = NetworkIndicatorManager(parent: manager, label: "Inbox")
        feed.pushNetworkActivity()
        inbox.pushNetworkActivity()
        let children = manager.activitySnapshot().activities.filter { $0.kind == .childManager }
        #expect(children.map(\.label).sorted() == ["Feed", "Inbox"])
    }
}
