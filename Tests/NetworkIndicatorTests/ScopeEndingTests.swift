import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// PerScreenLoadingState.md: a scope's tasks count in every ancestor; when the screen goes away
/// with its manager, "the child's remaining tasks end in every ancestor at once" and its outputs
/// are told so, while opaque tokens and groups keep their manager alive; a reset or cancel of
/// an ancestor reaches the scope's tasks, and a finish that matches no task is reported.
@MainActor
@Suite("How a scope's tasks end, as its ancestors and outputs see it")
struct ScopeEndingTests {
    private final class Owner {}

    @Test func aScopeKeptAliveByAGroupStaysCountedUntilTheGroupGoes() {
        let harness = Harness()
        var feed: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let weakFeed = WeakReference(feed)
        var images: NetworkActivityGroup? = NetworkActivityGroup(manager: feed!, label: "images")
        images!.operationStarted()
        images!.operationStarted()
        feed!.pushNetworkActivity()
        harness.settle()
        feed = nil
        #expect(weakFeed.object != nil, "the group keeps its manager")
        #expect(harness.manager.activeTaskCount == 3)
        images = nil
        #expect(weakFeed.object == nil)
        #expect(harness.manager.activeTaskCount == 0)
        harness.settle()
        #expect(harness.visibilityChanges == [false, true, false])
        _ = (feed, images)
    }

    /// `visibilityUpdates()`: the stream finishes once its manager is gone, after a last
    /// `false` if the indicator was showing.
    @Test func aReleasedScopesVisibilityStreamEndsWithFalse() async {
        let harness = Harness()
        var feed: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        var iterator = feed!.visibilityUpdates().makeAsyncIterator()
        harness.settle()
        #expect(await iterator.next() == false)
        feed!.pushNetworkActivity()
        harness.settle()
        #expect(await iterator.next() == true)
        feed = nil
        harness.settle()
        #expect(await iterator.next() == false)
        #expect(await iterator.next() == nil)
        _ = feed
    }

    /// Outputs that receive counts are told 0 when their manager goes, and `false` if shown.
    @Test func aReleasedScopeTellsItsCountOutputsZero() {
        let harness = Harness()
        var feed: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let output = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
        feed!.addOutput(output)
        feed!.pushNetworkActivity()
        feed!.pushNetworkActivity()
        harness.settle()
        feed = nil
        harness.settle()
        #expect(output.activeTaskCounts == [0, 2, 0])
        #expect(output.visibilityChanges == [false, true, false])
        _ = feed
    }

    /// One token begun in a parent and in its scope is two tasks there; its death ends both.
    @Test func oneWeakTokenInAParentAndItsScopeEndsInBothAtItsDeath() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        var token: Token? = Token()
        feed.beganNetworkTask(withToken: token!)
        harness.manager.beganNetworkTask(withToken: token!)
        #expect(harness.manager.activeTaskCount == 2)
        harness.settle()
        token = nil
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(feed.activeTaskCount == 0)
        _ = token
    }

    /// `activeOperationCount` is exact: an ancestor's reset or cancel ends the group's
    /// operations, and one started after the reset counts.
    @Test func aGroupsOperationCountFollowsItsAncestorsResetAndCancel() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let images = NetworkActivityGroup(manager: feed, label: "images")
        images.operationStarted()
        images.operationStarted()
        harness.manager.resetNetworkActivity()
        #expect(images.activeOperationCount == 0)
        images.operationStarted()
        #expect(images.activeOperationCount == 1)
        harness.manager.cancelNetworkTasks()
        #expect(images.activeOperationCount == 0)
        #expect(harness.manager.activeTaskCount == 0)
    }

    /// A slow-activity observer is told `false` when the busy period ends, here by a scope's
    /// reset.
    @Test func aScopesResetEndsItsParentsSlowPeriod() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let owner = Owner()
        var told: [Bool] = []
        harness.manager.observeSlowNetworkActivity(after: 2, owner: owner) { _, slow in told.append(slow) }
        feed.pushNetworkActivity()
        harness.settle()
        harness.advance(by: 2.1)
        #expect(told == [false, true])
        feed.resetNetworkActivity()
        harness.settle()
        #expect(told == [false, true, false])
    }

    /// A scope's opaque token passed to its parent's finish matches no task there: it ends
    /// nothing and is reported.
    @Test func aScopesOpaqueTokenFinishedOnItsParentEndsNothing() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let token = feed.beganNetworkTask(label: "page")
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.manager.activeTaskCount == 1)
        #expect(harness.diagnostics.kinds == [.unknownFinish])
        withExtendedLifetime(token) {}
    }
}
