import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// An output that watches tasks (issue 64, step 4): what it hears, from the user's side.
@MainActor
@Suite("Task events")
struct TaskEventTests {
    /// Records every batch it is told.
    @MainActor
    final class Watcher: NetworkActivityTaskEventOutput {
        var batches: [[NetworkActivityTaskEvent]] = []
        var events: [NetworkActivityTaskEvent] { batches.flatMap { $0 } }
        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
        func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) { batches.append(events) }
    }

    private final class FeedLoader {}

    /// "began"/"ended", the label, and how it ended, of each event, then its scope path if it
    /// has one: as an array, or joined by `separator`.
    static func summary(_ events: [NetworkActivityTaskEvent], joiningPathsWith separator: String? = nil) -> [String] {
        events.map { event in
            let (words, path) =
                switch event {
                case .began(let activity, _, let path): ("began \(activity.label)", path)
                case .ended(let activity, _, let path, let ending): ("ended \(activity.label) \(ending.rawValue)", path)
                }
            guard !path.isEmpty else { return words }
            return "\(words) in \(separator.map { path.joined(separator: $0) } ?? "\(path)")"
        }
    }

    private func summary(_ events: [NetworkActivityTaskEvent]) -> [String] { Self.summary(events) }

    /// Scoped work ends as `released`, as its ending's documentation says: a body that returns,
    /// a tracked sequence's loop that ends or breaks; a manager's cancel of the loop is `cancelled`.
    @Test func scopedWorkEndsAsReleased() async {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        await harness.manager.withNetworkActivity(label: "sync") {}
        for await _ in [1, 2].async.trackingNetworkActivity(in: harness.manager, label: "pages") { break }
        for await _ in [1].async.trackingNetworkActivity(in: harness.manager, label: "feed") {}
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var iterator = stream.trackingNetworkActivity(in: harness.manager, label: "live").makeAsyncIterator()
        continuation.yield(1)
        _ = await iterator.next()
        harness.manager.cancelNetworkTasks()
        harness.settle()
        #expect(
            summary(watcher.events) == [
                "began sync", "ended sync released", "began pages", "ended pages released", "began feed",
                "ended feed released", "began live", "ended live cancelled",
            ]
        )
        continuation.finish()
    }

    @Test func aWatcherHearsEachTaskBeginAndEndWithItsCallSiteAndDuration() throws {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask(label: "sync")
        let loader = FeedLoader()
        harness.manager.beganNetworkTask(withToken: loader)
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(summary(watcher.events) == ["began sync", "began FeedLoader", "began pushNetworkActivity()"])
        #expect(watcher.batches.count == 1, "batched per hop")

        harness.advance(by: 2)
        token = nil
        harness.manager.finishedNetworkTask(forToken: loader)
        harness.manager.popNetworkActivity()
        harness.settle()
        #expect(
            summary(Array(watcher.events.dropFirst(3))) == [
                "ended sync released", "ended FeedLoader finished", "ended pushNetworkActivity() finished",
            ]
        )
        guard case .ended(let sync, let endID, _, _) = watcher.events[3],
            case .began(_, let beginID, _) = watcher.events[0]
        else {
            Issue.record("expected the sync task's end, got \(watcher.events)")
            return
        }
        #expect(endID == beginID, "an end carries its begin's id")
        #expect(sync.age == 2, "the duration, on the manager's clock")
        #expect(sync.callSite?.hasPrefix("TaskEventTests.swift:") == true, "where the task began")
        _ = token
    }

    /// A second task while the indicator already shows moves no visibility, yet the watcher
    /// hears it at the next hop.
    @Test func aTaskThatChangesNoVisibilityIsStillHeard() {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        harness.manager.pushNetworkActivity()
        harness.settle()
        let token = harness.manager.beganNetworkTask(label: "thumbnail")
        harness.settle()
        #expect(summary(watcher.events) == ["began pushNetworkActivity()", "began thumbnail"])
        _ = token
    }

    @Test func theAppsManagerHearsEveryScopesTasksWithTheScopePath() {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let page = NetworkIndicatorManager(parent: feed, label: "Page")
        var token: NetworkActivityToken? = page.beganNetworkTask(label: "page 2")
        harness.settle()
        token = nil
        harness.settle()
        #expect(
            summary(watcher.events) == [
                "began page 2 in [\"Feed\", \"Page\"]", "ended page 2 released in [\"Feed\", \"Page\"]",
            ]
        )
        _ = token
    }

    @Test func aSweptTokenEndsNamedAsItBegan() {
        let harness = Harness(completionCheckInterval: 1)
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        var loader: FeedLoader? = FeedLoader()
        harness.manager.beganNetworkTask(withToken: loader!)
        harness.settle()
        loader = nil
        harness.advance(by: 1)
        harness.settle()
        #expect(summary(watcher.events) == ["began FeedLoader", "ended FeedLoader swept"])
    }

    /// Tokens whose tasks began before any watcher was attached: each one's end is named by its
    /// type, as a snapshot names it, though it has died by then (not as a deallocated token).
    @Test func tokensBegunBeforeTheWatcherEndNamedByTheirTypes() {
        final class ImageLoader {}
        let harness = Harness(completionCheckInterval: 1)
        var feed: FeedLoader? = FeedLoader()
        var images: ImageLoader? = ImageLoader()
        harness.manager.beganNetworkTask(withToken: feed!)
        harness.manager.beganNetworkTask(withToken: images!)
        harness.settle()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        feed = nil
        images = nil
        harness.advance(by: 1)
        harness.settle()
        #expect(summary(watcher.events).sorted() == ["ended FeedLoader swept", "ended ImageLoader swept"])
    }

    @Test func resetCancelAndAGoneManagerSayHowTheirTasksEnded() {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.resetNetworkActivity()
        harness.settle()
        let uploads = NetworkActivityGroup(manager: harness.manager, label: "uploads")
        uploads.operationStarted()
        harness.manager.cancelNetworkTasks()
        harness.settle()
        var scope: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        scope?.pushNetworkActivity()
        harness.settle()
        scope = nil
        harness.settle()
        #expect(
            summary(watcher.events) == [
                "began pushNetworkActivity()", "ended pushNetworkActivity() reset", "began uploads",
                "ended uploads cancelled",
                "began pushNetworkActivity() in [\"Feed\"]", "ended pushNetworkActivity() managerGone in [\"Feed\"]",
            ]
        )
        _ = scope
    }

    @Test func nothingIsRecordedWhileNoWatcherIsAttached() {
        let harness = Harness()
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(harness.manager.driver.withTree { $0[IndicatorTree.rootID].registry.eventLog == nil })
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        let scope = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        #expect(
            harness.manager.driver.withTree { $0[scope.driver.node].registry.eventLog != nil },
            "a new scope below records too"
        )
        harness.manager.removeOutput(watcher)
        #expect(harness.manager.driver.withTree { $0[IndicatorTree.rootID].registry.eventLog == nil })
        #expect(harness.manager.driver.withTree { $0[scope.driver.node].registry.eventLog == nil })
        harness.manager.popNetworkActivity()
        harness.settle()
        #expect(watcher.events.isEmpty, "a task that began before the watcher, ended after it left")
    }

    /// A watcher goes on hearing tasks when an output beside it that does not watch them is
    /// removed.
    @Test func removingAnOutputThatDoesNotWatchLeavesTheWatcherHearing() {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        let plain = RecordingNetworkIndicatorOutput()
        harness.manager.addOutput(plain)
        harness.manager.removeOutput(plain)
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(summary(watcher.events) == ["began pushNetworkActivity()"])
    }

    /// A watcher on a scope makes only that scope (and its scopes) record: the root's tasks,
    /// which it does not hear, are not logged.
    @Test func aScopesWatcherLeavesItsAncestorsUnrecorded() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let watcher = Watcher()
        feed.addOutput(watcher)
        harness.manager.pushNetworkActivity()
        feed.pushNetworkActivity()
        harness.settle()
        #expect(harness.manager.driver.withTree { $0[IndicatorTree.rootID].registry.eventLog == nil })
        #expect(summary(watcher.events) == ["began pushNetworkActivity() in [\"Feed\"]"])
    }

    /// A scope with a watcher goes away: nothing in the tree records any more.
    @Test func aGoneScopesWatcherStopsTheRecording() {
        let harness = Harness()
        var feed: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let watcher = Watcher()
        feed?.addOutput(watcher)
        #expect(harness.manager.driver.withTree { $0.taskEvents.isRecording })
        feed = nil
        #expect(harness.manager.driver.withTree { !$0.taskEvents.isRecording })
        _ = feed
    }

    /// A watcher on a scope alone hears the scope's open tasks end when the scope goes.
    @Test func aScopesOwnWatcherHearsItsTasksEndWhenTheScopeGoes() {
        let harness = Harness()
        var feed: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let watcher = Watcher()
        feed?.addOutput(watcher)
        feed?.pushNetworkActivity()
        harness.settle()
        feed = nil
        harness.settle()
        #expect(
            summary(watcher.events) == [
                "began pushNetworkActivity() in [\"Feed\"]", "ended pushNetworkActivity() managerGone in [\"Feed\"]",
            ]
        )
        _ = feed
    }

    /// A scope that no longer records goes before the hop, and a new scope takes its place in the
    /// tree: nobody hears the gone scope's task as the new scope's.
    @Test func aGoneScopesEventsAreNotToldAsTheNextScopes() {
        let harness = Harness()
        var feed: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let profile = NetworkIndicatorManager(parent: harness.manager, label: "Profile")
        let feedWatcher = Watcher()
        let profileWatcher = Watcher()
        feed?.addOutput(feedWatcher)
        profile.addOutput(profileWatcher)
        feed?.pushNetworkActivity()
        feed?.removeOutput(feedWatcher)
        feed = nil
        let avatar = NetworkIndicatorManager(parent: profile, label: "Avatar")
        harness.settle()
        #expect(profileWatcher.events.isEmpty, "\(summary(profileWatcher.events))")
        _ = (feed, avatar)
    }

    /// One watcher on the app's manager and on a scope of it hears the scope's tasks once.
    @Test func aWatcherOnAScopeAndItsParentHearsEachEventOnce() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        feed.addOutput(watcher)
        feed.pushNetworkActivity()
        harness.settle()
        #expect(summary(watcher.events) == ["began pushNetworkActivity() in [\"Feed\"]"])
    }

    @Test func aReleasedWatcherStopsTheRecording() {
        let harness = Harness()
        var watcher: Watcher? = Watcher()
        harness.manager.addOutput(watcher!)
        harness.manager.pushNetworkActivity()
        harness.settle()
        watcher = nil
        harness.manager.popNetworkActivity()
        harness.settle()
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(harness.manager.driver.withTree { $0[IndicatorTree.rootID].registry.eventLog == nil })
    }

    @Test func anEventPrintsAsOneLine() {
        let activity = NetworkActivitySnapshot.Activity(
            label: "FeedLoader",
            kind: .weakToken,
            taskCount: 1,
            startedAt: 0,
            age: 2.44,
            isTokenAlive: false,
            callSite: "FeedViewModel.swift:31",
            activities: []
        )
        let event = NetworkActivityTaskEvent.ended(activity, id: 1, scopePath: ["Feed"], ending: .swept)
        #expect(
            event.description
                == "ended weak token FeedLoader after 2.4 s, swept; began at FeedViewModel.swift:31 in Feed"
        )
    }

    /// Two watchers of one manager (an inspector and a log, say) each hear every event.
    @Test func twoWatchersOfOneManagerEachHearEveryEvent() {
        let harness = Harness()
        let (inspector, log) = (Watcher(), Watcher())
        harness.manager.addOutput(inspector)
        harness.manager.addOutput(log)
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask(label: "sync")
        harness.settle()
        token = nil
        harness.settle()
        #expect(summary(inspector.events) == ["began sync", "ended sync released"])
        #expect(summary(log.events) == ["began sync", "ended sync released"])
        _ = token
    }

    /// NetworkActivityToken.swift: "Passing it to finishedNetworkTask(forToken:) ends the task
    /// earlier; releasing it afterwards does nothing more." NetworkActivityTaskEvent.Ending:
    /// `finished` is "finishedNetworkTask(forToken:)", `released` "Its NetworkActivityToken was
    /// released".
    @Test func anOpaqueTokenFinishedThenReleasedIsHeardToEndOnceAsFinished() {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        var token: NetworkActivityToken? = harness.manager.beganNetworkTask(label: "sync")
        harness.settle()
        harness.manager.finishedNetworkTask(forToken: token!)
        token = nil
        harness.settle()
        #expect(summary(watcher.events) == ["began sync", "ended sync finished"])
        _ = token
    }

    /// NetworkActivityTaskEvent.swift: "one event when a token, group, load or the push counter
    /// opens its first task, and one when its last task ends. More tasks of the same token
    /// (... a second push) are counted ..., not told."; description examples.
    @Test func twoPushesAreToldAsOneBeginAndOneEndOfThePushCounter() {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        let line = #line + 1
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.advance(by: 2)
        harness.manager.popNetworkActivity()
        harness.manager.popNetworkActivity()
        harness.settle()
        #expect(
            watcher.events.map(\.description) == [
                "began push at TaskEventTests.swift:\(line)",
                "ended push after 2.0 s, finished; began at TaskEventTests.swift:\(line)",
            ]
        )
    }
}
