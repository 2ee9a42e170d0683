import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// FindingAStuckTask.md and `NetworkActivityTaskEvent`: a watcher hears each task of its
/// manager and of the scopes below it (never its parent's or siblings') begin and end, batched
/// per hop, with how it ended (finished, released, swept, cancelled, reset, manager gone); one
/// event per run, from a token's first begin to its last end, so a push counter or a token
/// begun again makes one run, and a reset between two makes two.
@MainActor
@Suite("Task events across scopes and runs")
struct ScopeTaskEventTests {
    /// "began"/"ended", the label, how it ended, and the scope path joined by ">".
    private func summary(_ watcher: TaskEventTests.Watcher) -> [String] {
        TaskEventTests.summary(watcher.events, joiningPathsWith: ">")
    }

    @Test func theAppsWatcherHearsEveryWayAScopesTaskEnds() {
        let harness = Harness()
        let watcher = TaskEventTests.Watcher()
        harness.manager.addOutput(watcher)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let detail = NetworkIndicatorManager(parent: feed, label: "Detail")
        var gone: NetworkIndicatorManager? = NetworkIndicatorManager(parent: feed, label: "Gone")
        let finished = Token()
        detail.beganNetworkTask(withToken: finished, label: "finished")
        var released: NetworkActivityToken? = detail.beganNetworkTask(label: "released")
        var swept: Token? = Token()
        detail.beganNetworkTask(withToken: swept!, label: "swept")
        let cancelled = CancelTests.Work()
        detail.beganNetworkTask(withToken: cancelled, label: "cancelled")
        let reset = feed.beganNetworkTask(label: "reset")
        gone!.pushNetworkActivity()
        harness.settle()
        detail.finishedNetworkTask(forToken: finished)
        released = nil
        swept = nil
        harness.advance(by: 1)
        detail.cancelNetworkTasks()
        harness.settle()
        gone = nil
        harness.settle()
        detail.beganNetworkTask(withToken: finished, label: "again")
        feed.resetNetworkActivity()
        harness.settle()
        #expect(
            summary(watcher) == [
                "began finished in Feed>Detail", "began released in Feed>Detail", "began swept in Feed>Detail",
                "began cancelled in Feed>Detail", "began reset in Feed", "began pushNetworkActivity() in Feed>Gone",
                "ended finished finished in Feed>Detail", "ended released released in Feed>Detail",
                "ended swept swept in Feed>Detail", "ended cancelled cancelled in Feed>Detail",
                "ended pushNetworkActivity() managerGone in Feed>Gone", "began again in Feed>Detail",
                "ended again reset in Feed>Detail", "ended reset reset in Feed",
            ]
        )
        withExtendedLifetime((reset, released, finished)) {}
        _ = (gone, swept)
    }

    /// A scope released while the tree's hop is already pending (its count change made a node
    /// dirty): its last events wait in the buffer for that hop, which delivers them; the
    /// removal asks for no second hop.
    @Test func aScopeReleasedWhileTheHopIsPendingAsksForNoSecondHop() {
        let harness = Harness()
        let watcher = TaskEventTests.Watcher()
        harness.manager.addOutput(watcher)
        var gone: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Gone")
        harness.settle()
        let before = harness.scheduler.enqueuedWorkCount
        gone!.pushNetworkActivity()  // a count change in a recording node: the tree's hop is enqueued
        #expect(harness.scheduler.enqueuedWorkCount == before + 1)
        gone = nil  // its task ends as the manager goes; the pending hop takes that event too
        #expect(harness.scheduler.enqueuedWorkCount == before + 1, "no second hop for the removal's events")
        harness.settle()
        #expect(
            summary(watcher) == [
                "began pushNetworkActivity() in Gone", "ended pushNetworkActivity() managerGone in Gone",
            ]
        )
        #expect(watcher.batches.count == 1, "one hop, one batch")
    }

    @Test func aScopesWatcherHearsNothingOfItsParentOrSiblings() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let profile = NetworkIndicatorManager(parent: harness.manager, label: "Profile")
        let watcher = TaskEventTests.Watcher()
        feed.addOutput(watcher)
        let root = harness.manager.beganNetworkTask(label: "root")
        let avatar = profile.beganNetworkTask(label: "profile")
        let page = feed.beganNetworkTask(label: "feed")
        harness.settle()
        #expect(summary(watcher) == ["began feed in Feed"])
        feed.removeOutput(watcher)
        let later = feed.beganNetworkTask(label: "later")
        harness.settle()
        #expect(summary(watcher) == ["began feed in Feed"], "nothing after it was removed")
        withExtendedLifetime((root, avatar, page, later)) {}
    }

    /// A second push is counted, not told; a reset ends the run, and the next push begins
    /// another, with an id of its own.
    @Test func thePushCounterAcrossAResetIsTwoRuns() throws {
        let harness = Harness()
        let watcher = TaskEventTests.Watcher()
        harness.manager.addOutput(watcher)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        feed.pushNetworkActivity()
        feed.pushNetworkActivity()
        harness.settle()
        feed.resetNetworkActivity()
        feed.pushNetworkActivity()
        harness.settle()
        feed.popNetworkActivity()
        harness.settle()
        #expect(
            summary(watcher) == [
                "began pushNetworkActivity() in Feed", "ended pushNetworkActivity() reset in Feed",
                "began pushNetworkActivity() in Feed", "ended pushNetworkActivity() finished in Feed",
            ]
        )
        let ids = watcher.events.map { event -> UInt64 in
            switch event {
            case .began(_, let id, _), .ended(_, let id, _, _): id
            }
        }
        try #require(ids.count == 4)
        #expect(ids[0] == ids[1] && ids[2] == ids[3], "each end is named as its begin")
        #expect(ids[0] != ids[2], "two runs")
    }

    /// `Ending.finished`: "a group's operations ended all at once by its own
    /// `cancelOperations()` or by its release".
    @Test func aGroupReleasedInAScopeEndsAsFinished() {
        let harness = Harness()
        let watcher = TaskEventTests.Watcher()
        harness.manager.addOutput(watcher)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        var images: NetworkActivityGroup? = NetworkActivityGroup(manager: feed, label: "images")
        images!.operationStarted()
        images!.operationStarted()
        harness.settle()
        images = nil
        harness.settle()
        #expect(summary(watcher) == ["began images in Feed", "ended images finished in Feed"])
        #expect(harness.manager.activeTaskCount == 0)
        _ = images
    }

    /// Batched per hop: a run that begins and ends before the hop is still heard, though it
    /// changed no visibility.
    @Test func aBeginAndEndWithinOneHopAreBothHeard() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let watcher = TaskEventTests.Watcher()
        harness.manager.addOutput(watcher)
        harness.settle()
        var token: NetworkActivityToken? = feed.beganNetworkTask(label: "quick")
        token = nil
        feed.pushNetworkActivity()
        feed.popNetworkActivity()
        harness.settle()
        #expect(
            summary(watcher) == [
                "began quick in Feed", "ended quick released in Feed", "began pushNetworkActivity() in Feed",
                "ended pushNetworkActivity() finished in Feed",
            ]
        )
        #expect(harness.visibilityChanges == [false])
        _ = token
    }

    /// A token begun twice is one run under its first label: one finish ends one task, its
    /// death the other.
    @Test func aTokenBegunTwiceInAScopeIsOneRun() {
        let harness = Harness()
        let watcher = TaskEventTests.Watcher()
        harness.manager.addOutput(watcher)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        var loader: Token? = Token()
        feed.beganNetworkTask(withToken: loader!, label: "loader")
        feed.beganNetworkTask(withToken: loader!, label: "ignored")
        harness.settle()
        feed.finishedNetworkTask(forToken: loader!)
        harness.settle()
        #expect(harness.manager.activeTaskCount == 1)
        loader = nil
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(summary(watcher) == ["began loader in Feed", "ended loader swept in Feed"])
        _ = loader
    }

    /// An opaque token finished, then begun again: two runs; its release ends the second.
    @Test func anOpaqueTokenBegunAgainInAScopeIsTwoRuns() {
        let harness = Harness()
        let watcher = TaskEventTests.Watcher()
        harness.manager.addOutput(watcher)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        var token: NetworkActivityToken? = feed.beganNetworkTask(label: "page")
        harness.settle()
        feed.finishedNetworkTask(forToken: token!)
        harness.settle()
        feed.beganNetworkTask(withToken: token!, label: "page 2")
        harness.settle()
        #expect(harness.manager.activeTaskCount == 1)
        token = nil
        harness.settle()
        #expect(harness.manager.activeTaskCount == 0)
        #expect(
            summary(watcher) == [
                "began page in Feed", "ended page finished in Feed", "began page 2 in Feed",
                "ended page 2 released in Feed",
            ]
        )
        _ = token
    }
}
