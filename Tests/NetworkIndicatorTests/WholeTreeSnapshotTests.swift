import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// "What keeps my spinner on?" answered from the app's manager: its snapshot lists every
/// scope's tasks, nested under the scope, in words.
@MainActor
@Suite("The whole tree in one snapshot")
struct WholeTreeSnapshotTests {
    private final class FeedLoader {}

    @Test func theRootsSnapshotListsAScopesTasksUnderIt() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let images = NetworkIndicatorManager(parent: feed, label: "Images")
        let page = feed.beganNetworkTask(label: "feed page 2")
        let thumbnail = images.beganNetworkTask(label: "thumbnail")
        scheduler.advance(by: 6)
        let snapshot = app.activitySnapshot()
        let scope = snapshot.activities.first
        #expect(scope?.kind == .childManager && scope?.label == "Feed")
        #expect(scope?.activities.map(\.label) == ["feed page 2", "Images"])
        #expect(scope?.activities.last?.activities.map(\.label) == ["thumbnail"])
        withExtendedLifetime((page, thumbnail)) {}
    }

    /// A server's scopes come and go in any order: the snapshot lists those left in the order
    /// they were made, and a scope made later, in a slot one that left freed, comes last.
    @Test func scopesAreListedInTheOrderTheyWereMadeAfterOthersLeave() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(scheduler: scheduler)
        var scopes: [NetworkIndicatorManager?] = (0..<5).map {
            NetworkIndicatorManager(parent: app, label: "request \($0)")
        }
        for scope in scopes { scope?.pushNetworkActivity() }  // a count holds no manager
        for leaving in [2, 0, 4] { scopes[leaving] = nil }
        var listed = app.activitySnapshot().activities.map(\.label)
        #expect(listed == ["request 1", "request 3"])
        let later = NetworkIndicatorManager(parent: app, label: "request 5")
        later.pushNetworkActivity()
        scopes[3] = nil
        let last = NetworkIndicatorManager(parent: app, label: "request 6")
        last.pushNetworkActivity()
        listed = app.activitySnapshot().activities.map(\.label)
        #expect(listed == ["request 1", "request 5", "request 6"])
        withExtendedLifetime((scopes, later, last)) {}
        scopes = []
        listed = app.activitySnapshot().activities.map(\.label)
        #expect(listed == ["request 5", "request 6"])
    }

    /// The listing `NetworkActivitySnapshot`'s documentation shows, from this run. `file:` and
    /// `line:` stand in for the `#fileID` and `#line` the calls would record in an app's files.
    @Test func theListingReadsAsWordsNestedUnderEachScope() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let loader = FeedLoader()
        app.beganNetworkTask(withToken: loader, file: "MyApp/FeedViewModel.swift", line: 31)
        let sync = app.beganNetworkTask(file: "MyApp/SyncService.swift", line: 42)
        let uploads = NetworkActivityGroup(manager: app, label: "uploads")
        uploads.operationStarted(file: "MyApp/UploadQueue.swift", line: 18)
        app.pushNetworkActivity(file: "MyApp/AppDelegate.swift", line: 22)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let page = feed.beganNetworkTask(label: "feed page 2", file: "MyApp/FeedViewModel.swift", line: 48)
        scheduler.advance(by: 6)
        #expect(
            app.activitySnapshot().description == """
                5 active task(s)
                  weak token FeedLoader ×1, 6.0 s, began at FeedViewModel.swift:31
                  opaque token SyncService.swift:42 ×1, 6.0 s
                  group uploads ×1, 6.0 s, began at UploadQueue.swift:18
                  push ×1, 6.0 s, began at AppDelegate.swift:22
                  scope Feed ×1, 6.0 s
                    opaque token feed page 2 ×1, 6.0 s, began at FeedViewModel.swift:48
                """
        )
        withExtendedLifetime((loader, sync, uploads, page)) {}
    }

    /// NetworkActivitySnapshot.swift (age): "For a token begun several times, a group, the push
    /// counter or a scope: since it last had no open task (...), which is also where
    /// activities places it." A scope open without a break since t=0 is older than a task of
    /// the app's begun at t=3, though the scope's first task ended at t=5.
    @Test func aScopeIsAgedAndPlacedFromWhenItLastHadNoTask() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        var first: NetworkActivityToken? = feed.beganNetworkTask(label: "first")
        scheduler.advance(by: 3)
        let own = app.beganNetworkTask(label: "own")
        scheduler.advance(by: 1)
        let second = feed.beganNetworkTask(label: "second")
        scheduler.advance(by: 1)
        first = nil
        scheduler.advance(by: 5)
        let snapshot = app.activitySnapshot()
        #expect(snapshot.activities.map(\.label) == ["Feed", "own"])
        #expect(snapshot.activities.map(\.age) == [10, 7])
        #expect(snapshot.activities.first?.activities.map(\.age) == [6])
        withExtendedLifetime((first, own, second)) {}
    }

    /// NetworkActivitySnapshot.swift (age): "a scope: since it last had no open task".
    @Test func aScopeThatWentIdleIsAgedFromItsNewFirstTask() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let app = NetworkIndicatorManager(scheduler: scheduler)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        var first: NetworkActivityToken? = feed.beganNetworkTask(label: "first")
        scheduler.advance(by: 2)
        first = nil
        scheduler.advance(by: 3)
        let second = feed.beganNetworkTask(label: "second")
        scheduler.advance(by: 5)
        #expect(app.activitySnapshot().activities.map(\.age) == [5])
        withExtendedLifetime((first, second)) {}
    }
}
