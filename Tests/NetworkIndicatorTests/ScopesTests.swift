import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A root manager on a manual scheduler with two children and a grandchild under the first,
/// each with its own recording output, delays zeroed unless asked for.
@MainActor
private final class Tree {
    let root: Harness
    let feed: NetworkIndicatorManager
    let profile: NetworkIndicatorManager
    let feedImages: NetworkIndicatorManager
    let feedOutput = RecordingNetworkIndicatorOutput()
    let profileOutput = RecordingNetworkIndicatorOutput()
    let imagesOutput = RecordingNetworkIndicatorOutput()

    init(startDelay: TimeInterval = 0, completionDelay: TimeInterval = 0) {
        root = Harness(startDelay: startDelay, completionDelay: completionDelay)
        feed = NetworkIndicatorManager(parent: root.manager, label: "Feed")
        profile = NetworkIndicatorManager(parent: root.manager, label: "Profile")
        feedImages = NetworkIndicatorManager(parent: feed, label: "Feed images")
        for (manager, output) in [(feed, feedOutput), (profile, profileOutput), (feedImages, imagesOutput)] {
            manager.settings.completionDelay = completionDelay
            manager.settings.startDelay = startDelay
            manager.addOutput(output)
        }
        settle()
    }

    var manager: NetworkIndicatorManager { root.manager }
    func settle() { root.settle() }
    var counts: [Int] { [manager, feed, profile, feedImages].map(\.activeTaskCount) }
}

@MainActor
@Suite("Scopes: child managers")
struct ScopesTests {
    @Test func childTaskCountsInEveryAncestorAsSoonAsTheCallReturns() {
        let tree = Tree()
        let token = tree.feedImages.beganNetworkTask()
        #expect(tree.counts == [1, 1, 0, 1])
        tree.profile.pushNetworkActivity()
        #expect(tree.counts == [2, 1, 1, 1])
        tree.manager.pushNetworkActivity()
        #expect(tree.counts == [3, 1, 1, 1], "a parent's own tasks count in itself only")
        tree.feedImages.finishedNetworkTask(forToken: token)
        tree.profile.popNetworkActivity()
        tree.manager.popNetworkActivity()
        #expect(tree.counts == [0, 0, 0, 0])
    }

    @Test func everyTokenPatternWorksInAChild() {
        let tree = Tree()
        let weakToken = Token()
        tree.feed.beganNetworkTask(withToken: weakToken)
        var opaque: NetworkActivityToken? = tree.feed.beganNetworkTask()
        let group = NetworkActivityGroup(manager: tree.feed)
        group.operationStarted()
        #expect(tree.counts == [3, 3, 0, 0])
        tree.feed.finishedNetworkTask(forToken: weakToken)
        opaque = nil
        group.cancelOperations()
        #expect(tree.counts == [0, 0, 0, 0])
        _ = opaque
    }

    @Test func eachManagerToldOnlyOfItsOwnCount() {
        let tree = Tree()
        let token = tree.profile.beganNetworkTask()
        tree.settle()
        #expect(tree.root.visibilityChanges == [false, true])
        #expect(tree.profileOutput.visibilityChanges == [false, true])
        #expect(tree.feedOutput.visibilityChanges == [false], "a sibling's task is not the feed's")
        #expect(tree.imagesOutput.visibilityChanges == [false])
        tree.profile.finishedNetworkTask(forToken: token)
        tree.settle()
        #expect(tree.root.visibilityChanges == [false, true, false])
        #expect(tree.profileOutput.visibilityChanges == [false, true, false])
    }

    @Test func childStartDelayNeverHoldsBackItsParent() {
        let tree = Tree()
        tree.feed.settings.startDelay = 1
        let token = tree.feed.beganNetworkTask()
        tree.settle()
        #expect(tree.root.visibilityChanges == [false, true], "the app shows at once")
        #expect(tree.feedOutput.visibilityChanges == [false], "the screen waits for its delay")
        tree.root.advance(by: 1)
        #expect(tree.feedOutput.visibilityChanges == [false, true])
        _ = token
    }

    /// A grandchild's task that ends while its two scopes wait out their start delays hides the
    /// app's indicator: only the root asks for a hop then, and its hop must still run.
    @Test func theAppHidesWhenAGrandchildsTaskEndsDuringItsScopesStartDelays() {
        let tree = Tree()
        tree.feed.settings.startDelay = 1
        tree.feedImages.settings.startDelay = 1
        tree.settle()
        tree.feedImages.pushNetworkActivity()
        tree.settle()
        #expect(tree.root.visibilityChanges == [false, true])
        tree.feedImages.popNetworkActivity()
        tree.settle()
        #expect(tree.root.visibilityChanges == [false, true, false])
        #expect(tree.feedOutput.visibilityChanges == [false] && tree.imagesOutput.visibilityChanges == [false])
    }

    @Test func parentStartDelayNeverHoldsBackItsChild() {
        let tree = Tree()
        tree.manager.settings.startDelay = 1
        let token = tree.feed.beganNetworkTask()
        tree.settle()
        #expect(tree.feedOutput.visibilityChanges == [false, true])
        #expect(tree.root.visibilityChanges == [false])
        tree.root.advance(by: 1)
        #expect(tree.root.visibilityChanges == [false, true])
        _ = token
    }

    @Test func childKeepsItsParentAliveButNotTheReverse() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var parent: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let weakParent = WeakReference(parent)
        var child: NetworkIndicatorManager? = NetworkIndicatorManager(parent: parent!)
        let weakChild = WeakReference(child)
        parent = nil
        #expect(weakParent.object != nil, "the child keeps its parent")
        #expect(child?.parent === weakParent.object)
        child = nil
        #expect(weakChild.object == nil, "the parent does not keep its child")
        #expect(weakParent.object == nil)
        scheduler.runPendingWork()
    }

    @Test func parentSweepDoesNotKeepAChildAlive() {
        let tree = Tree()
        var child: NetworkIndicatorManager? = NetworkIndicatorManager(parent: tree.manager)
        let weakChild = WeakReference(child)
        let token = Token()
        child!.beganNetworkTask(withToken: token)
        tree.manager.beganNetworkTask(withToken: token)
        tree.settle()
        tree.root.advance(by: 1)  // the parent's sweep runs
        child = nil
        #expect(weakChild.object == nil)
        #expect(tree.manager.activeTaskCount == 1)
    }

    @Test func releasingAChildEndsItsTasksInEveryAncestorAtOnce() {
        let tree = Tree()
        var child: NetworkIndicatorManager? = NetworkIndicatorManager(parent: tree.feed)
        let token = Token()
        child!.beganNetworkTask(withToken: token)
        child!.pushNetworkActivity()
        child!.pushNetworkActivity()
        #expect(tree.counts == [3, 3, 0, 0])
        child = nil
        #expect(tree.counts == [0, 0, 0, 0])
        #expect(tree.manager.activitySnapshot().activities.isEmpty)
        tree.feed.finishedNetworkTask(forToken: token)
        #expect(tree.counts == [0, 0, 0, 0], "the child's token has nothing open in the feed")
    }

    @Test func deadWeakTokenInAChildEndsInEveryAncestorAtTheChildsSweep() {
        let tree = Tree()
        var token: Token? = Token()
        tree.feedImages.beganNetworkTask(withToken: token!)
        tree.settle()
        token = nil
        #expect(tree.counts == [1, 1, 0, 1], "counted until the sweep")
        tree.root.advance(by: 1)
        #expect(tree.counts == [0, 0, 0, 0])
        #expect(tree.root.visibilityChanges == [false, true, false])
        #expect(tree.imagesOutput.visibilityChanges == [false, true, false])
    }

    @Test func resetEndsEveryTaskOfTheManagerAndItsDescendants() {
        let tree = Tree()
        tree.manager.pushNetworkActivity()
        tree.feed.pushNetworkActivity()
        let images = tree.feedImages.beganNetworkTask()
        let profile = tree.profile.beganNetworkTask()
        tree.settle()
        tree.manager.resetNetworkActivity()
        #expect(tree.counts == [0, 0, 0, 0])
        tree.settle()
        #expect(tree.imagesOutput.visibilityChanges == [false, true, false])
        _ = (images, profile)
    }

    @Test func resetOfAChildLeavesSiblingsAndTheParentsOwnTasksAlone() {
        let tree = Tree()
        tree.manager.pushNetworkActivity()
        tree.feed.pushNetworkActivity()
        let images = tree.feedImages.beganNetworkTask()
        let profile = tree.profile.beganNetworkTask()
        tree.feed.resetNetworkActivity()
        #expect(tree.counts == [2, 0, 1, 0])
        _ = (images, profile)
    }

    @Test func finishesAfterAResetAreHarmlessEverywhere() {
        let tree = Tree()
        let weakToken = Token()
        tree.feedImages.beganNetworkTask(withToken: weakToken)
        var opaque: NetworkActivityToken? = tree.feedImages.beganNetworkTask()
        tree.feedImages.pushNetworkActivity()
        let group = NetworkActivityGroup(manager: tree.feedImages)
        group.operationStarted()
        tree.feed.resetNetworkActivity()
        tree.profile.pushNetworkActivity()  // new work elsewhere must absorb nothing

        tree.feedImages.finishedNetworkTask(forToken: weakToken)
        opaque = nil
        tree.feedImages.popNetworkActivity()
        group.operationFinished()
        #expect(tree.counts == [1, 0, 1, 0])
        #expect(
            tree.root.diagnostics.kinds == [.unknownFinish, .popWithoutPush, .groupFinishWithoutStart],
            "the child reports to the handler it took from its parent"
        )
        _ = opaque
    }

    /// PerScreenLoadingState.md, "Resets and releases": the same token or counter begun again
    /// after a reset takes the old work's late finish or pop as its own (nothing tells them
    /// apart); the article said the reset's late calls were always reported.
    @Test func aLateFinishOrPopAfterAResetEndsTheSameTokensNewTask() {
        let tree = Tree()
        let request = Token()
        tree.feed.beganNetworkTask(withToken: request)
        tree.feed.pushNetworkActivity()
        tree.manager.resetNetworkActivity()
        tree.feed.beganNetworkTask(withToken: request)
        tree.feed.pushNetworkActivity()

        tree.feed.finishedNetworkTask(forToken: request)  // the old work's, late
        tree.feed.popNetworkActivity()  // likewise
        #expect(tree.counts == [0, 0, 0, 0])
        #expect(tree.root.diagnostics.kinds.isEmpty)
    }

    @Test func parentSnapshotShowsEachActiveChildAsOneRecord() {
        let tree = Tree()
        tree.feedImages.pushNetworkActivity()
        tree.feed.pushNetworkActivity()
        tree.root.advance(by: 2)
        tree.manager.pushNetworkActivity()
        let snapshot = tree.manager.activitySnapshot()
        #expect(snapshot.activeTaskCount == 3)
        let byLabel = Dictionary(uniqueKeysWithValues: snapshot.activities.map { ($0.label, $0) })
        #expect(byLabel.keys.sorted() == ["Feed", ActivityLabel.push])
        #expect(byLabel["Feed"]?.kind == .childManager)
        #expect(byLabel["Feed"]?.taskCount == 2)
        #expect(byLabel["Feed"]?.age == 2)
        #expect(tree.feed.activitySnapshot().activities.map(\.label).sorted() == ["Feed images", ActivityLabel.push])
    }

    @Test func callsOnManyManagersShareOnePendingHopPerTree() {
        let tree = Tree()
        let before = tree.root.scheduler.enqueuedWorkCount
        for _ in 0..<100 {
            let token = tree.feedImages.beganNetworkTask()
            tree.profile.pushNetworkActivity()
            tree.profile.popNetworkActivity()
            _ = token
        }
        #expect(tree.root.scheduler.enqueuedWorkCount - before == 1, "one for the whole tree")
        tree.settle()
        #expect(tree.root.visibilityChanges == [false])
    }

    /// A reset or cancel that ends nothing changes nothing: no manager of the tree asks for a
    /// main-queue hop ("none at all while nothing changes").
    @Test func aResetOrCancelOfAnIdleTreeAsksForNoHop() {
        let tree = Tree()
        tree.settle()
        let before = tree.root.scheduler.enqueuedWorkCount
        tree.root.manager.resetNetworkActivity()
        tree.feed.cancelNetworkTasks()
        #expect(tree.root.scheduler.enqueuedWorkCount == before)
    }

    @Test func childUsesItsParentsScheduler() {
        let tree = Tree()
        let token = tree.feed.beganNetworkTask()
        #expect(!tree.feed.isIndicatorVisible)
        tree.settle()
        #expect(tree.feed.isIndicatorVisible, "the parent's manual scheduler ran the child's hop")
        _ = token
    }

    @Test func scopedActivityInAChildCountsUpTheTree() async {
        let tree = Tree()
        let counts = await tree.feedImages.withNetworkActivity { tree.counts }
        #expect(counts == [1, 1, 0, 1])
        #expect(tree.counts == [0, 0, 0, 0])
    }
}
