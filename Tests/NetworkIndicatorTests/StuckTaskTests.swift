import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Issue 64, step 3: a stuck task reports itself. The threshold is a setting of the tree (a scope
/// uses its parent's unless it sets its own), on by default in debug builds, and each report says
/// where the task is and what would end it.
@MainActor
@Suite("Stuck tasks report themselves")
struct StuckTaskTests {
    /// The newcomer's case: the app's threshold, set once on `.shared`'s stand-in, reaches a task
    /// begun in a screen's scope, and the report names the scope and what keeps the task open.
    @Test func aScopesStuckTaskIsReportedUnderTheAppsThreshold() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 5
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let (page, line) = (feed.beganNetworkTask(label: "feed page 2"), #line)
        harness.advance(by: 4)
        #expect(harness.diagnostics.all.isEmpty)
        harness.advance(by: 1)
        let reports = harness.diagnostics.all
        #expect(reports.map(\.label) == ["feed page 2"])
        #expect(reports.first?.scopePath == ["Feed"])
        #expect(reports.first?.task?.kind == .opaqueToken)
        #expect(reports.first?.task?.age == 5)
        #expect(
            reports.first?.description
                == "task 'feed page 2' in scope Feed, begun at StuckTaskTests.swift:\(line), has been active for 5 s: an opaque token still held keeps it open; release the NetworkActivityToken or call finishedNetworkTask(forToken:)"
        )
        harness.advance(by: 60)
        #expect(harness.diagnostics.all.count == 1, "reported once")
        withExtendedLifetime(page) {}
    }

    /// A threshold set on `.shared` after its scopes were made still reaches them.
    @Test func aParentsNewThresholdReachesItsScopes() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = .infinity
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let detail = NetworkIndicatorManager(parent: feed, label: "Detail")
        let image = detail.beganNetworkTask(label: "image")
        harness.advance(by: 20)
        #expect(harness.diagnostics.all.isEmpty, "off on the root, so off below it")
        harness.manager.settings.staleTaskThreshold = 30
        harness.settle()
        harness.advance(by: 10)
        #expect(harness.diagnostics.all.map(\.label) == ["image"])
        #expect(harness.diagnostics.all.first?.scopePath == ["Feed", "Detail"])
        withExtendedLifetime(image) {}
    }

    /// A scope's own threshold wins over its parent's, and `.infinity` turns the check off for
    /// the scope and the scopes below it.
    @Test func aScopesOwnThresholdWinsAndInfinityTurnsItOff() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 5
        let quick = NetworkIndicatorManager(parent: harness.manager, label: "Quick")
        quick.settings.staleTaskThreshold = 2
        let silent = NetworkIndicatorManager(parent: harness.manager, label: "Uploads")
        silent.settings.staleTaskThreshold = .infinity
        let below = NetworkIndicatorManager(parent: silent, label: "Below")
        let tokens = [
            quick.beganNetworkTask(label: "quick"), silent.beganNetworkTask(label: "upload"),
            below.beganNetworkTask(label: "below"), harness.manager.beganNetworkTask(label: "root"),
        ]
        harness.settle()
        harness.advance(by: 2)
        #expect(harness.diagnostics.all.map(\.label) == ["quick"])
        harness.advance(by: 60)
        #expect(harness.diagnostics.all.map(\.label) == ["quick", "root"])
        #expect(silent.settings.staleTaskThreshold == .infinity, "the setting reads as it was set")
        #expect(below.settings.staleTaskThreshold == nil, "a scope that sets nothing inherits")
        withExtendedLifetime(tokens) {}
    }

    /// Each report says what would end the task, in the words of how it was begun.
    @Test func eachReportSaysWhatWouldEndTheTask() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 10
        let loader = FeedLoader()
        harness.manager.beganNetworkTask(withToken: loader)
        let token = harness.manager.beganNetworkTask()
        harness.manager.pushNetworkActivity()
        let group = NetworkActivityGroup(manager: harness.manager, label: "uploads")
        group.operationStarted()
        harness.advance(by: 10)
        let reasons = Dictionary(
            harness.diagnostics.all.map { ($0.task?.kind == .opaqueToken ? "opaque" : $0.label, $0.description) },
            uniquingKeysWith: { first, _ in first }
        )
        #expect(reasons["FeedLoader"]?.contains("a weak token of type FeedLoader still alive keeps it open") == true)
        #expect(reasons["opaque"]?.contains("an opaque token still held keeps it open") == true)
        #expect(reasons["pushNetworkActivity()"]?.contains("a push without its pop keeps it open") == true)
        #expect(reasons["uploads"]?.contains("a group operation not finished keeps it open") == true)
        #expect(harness.diagnostics.all.allSatisfy { $0.scopePath.isEmpty }, "all on the root")
        harness.manager.popNetworkActivity()
        withExtendedLifetime((loader, token, group)) {}
    }

    /// A feed's loop that never ends is named as what it is, not as a URLSession load.
    @Test func aStuckTrackedSequenceIsNamedAsOne() async {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 10
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var iterator = stream.trackingNetworkActivity(in: harness.manager, label: "events").makeAsyncIterator()
        continuation.yield(1)
        _ = await iterator.next()
        harness.advance(by: 10)
        let report = harness.diagnostics.all.first { $0.label == "events" }?.description ?? ""
        #expect(report.contains("a tracked async sequence still being iterated keeps it open"), "\(report)")
        continuation.finish()
        _ = await iterator.next()
    }

    /// A `withNetworkActivity` body that never returns holds no token of the caller's: its
    /// report says what it is, and that the caller's cancel of its Task ends it.
    @Test func aStuckScopedBodyIsNamedAsOne() async {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 10
        let (gate, opener) = AsyncStream.makeStream(of: Void.self)
        let manager = harness.manager
        let running = Task { @MainActor in
            await manager.withNetworkActivity(label: "sync") { for await _ in gate {} }
        }
        await eventually { manager.activeTaskCount == 1 }
        harness.advance(by: 10)
        let report = harness.diagnostics.all.first { $0.label == "sync" }?.description ?? ""
        #expect(report.contains("a withNetworkActivity body still running keeps it open"), "\(report)")
        #expect(!report.contains("NetworkActivityToken"))
        opener.finish()
        await running.value
        #expect(manager.activeTaskCount == 0)
    }

    /// In a debug build an app's managers (on the main queue) report a task stuck for 60 s
    /// without a word from the app; a manager on an injected scheduler (a test's) does not, so
    /// that no timer appears in a test that did not ask for one.
    @Test func debugBuildsReportStuckTasksOfTheAppsManagersAfterSixtySeconds() {
        let app = NetworkIndicatorManager(scheduler: MainQueueScheduler())
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let test = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        #if DEBUG
        #expect(feed.driver.read { $0.schedule.staleThreshold } == 60)
        #else
        #expect(feed.driver.read { $0.schedule.staleThreshold } == .some(nil))
        #endif
        #expect(test.driver.read { $0.schedule.staleThreshold } == .some(nil))
        #expect(app.settings.staleTaskThreshold == nil, "the default is not a value the app set")
    }

    /// The default reaches the scopes of the tree, as a value set on the root does.
    @Test func aTreesDefaultThresholdReportsAScopesTaskOnce() {
        var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent, defaultStaleThreshold: 60)
        let feed = tree.addNode(childOf: IndicatorTree.rootID, label: "Feed")
        var time = EventTime(preread: 0)
        _ = tree.apply(.begin(.counter, label: nil, site: .none), in: feed, time: &time).1
        #expect(tree.sweepRegistry(feed, now: 59).0?.staleTasks.isEmpty == true)
        let found = tree.sweepRegistry(feed, now: 60).0
        #expect(found?.staleTasks.map(\.record.label) == [ActivityLabel.push])
        #expect(found?.scopePath == ["Feed"])
        #expect(tree.sweepRegistry(feed, now: 61).0?.staleTasks.isEmpty == true, "reported once")
    }

    /// The article "Finding a stuck task" quotes this run: a scope's stuck tasks as the default
    /// handler writes them in a debug build, then the app's snapshot. Keep the two in step.
    @Test func theArticlesReportAndSnapshotAreRealOutput() throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        let pipe = Pipe()
        let app = NetworkIndicatorManager(
            scheduler: scheduler,
            diagnosticsHandler: NetworkIndicatorManager.diagnosticsHandler(writingTo: pipe.fileHandleForWriting)
        )
        app.settings.staleTaskThreshold = 60  // what a debug build's `.shared` uses unasked
        // The app's code, as if written in its own files (`file:` and `line:` stand in for the
        // `#fileID` and `#line` the calls would record there).
        let sync = app.beganNetworkTask(file: "MyApp/SyncService.swift", line: 42)
        app.pushNetworkActivity(file: "MyApp/AppDelegate.swift", line: 22)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let loader = FeedLoader()
        feed.beganNetworkTask(withToken: loader, file: "MyApp/FeedViewModel.swift", line: 31)
        let page = feed.beganNetworkTask(label: "feed page 2", file: "MyApp/FeedViewModel.swift", line: 48)
        scheduler.advance(by: 61)
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #if DEBUG
        #expect(
            written == """
                NetworkIndicator: task 'SyncService.swift:42' has been active for 60 s: an opaque token still held keeps it open; release the NetworkActivityToken or call finishedNetworkTask(forToken:)
                NetworkIndicator: task 'pushNetworkActivity()', begun at AppDelegate.swift:22, has been active for 60 s: a push without its pop keeps it open; call popNetworkActivity(), or resetNetworkActivity() to end every push
                NetworkIndicator: task 'FeedLoader' in scope Feed, begun at FeedViewModel.swift:31, has been active for 60 s: a weak token of type FeedLoader still alive keeps it open; let go of it or call finishedNetworkTask(forToken:)
                NetworkIndicator: task 'feed page 2' in scope Feed, begun at FeedViewModel.swift:48, has been active for 60 s: an opaque token still held keeps it open; release the NetworkActivityToken or call finishedNetworkTask(forToken:)

                """
        )
        #endif
        #expect(
            app.activitySnapshot().description == """
                4 active task(s)
                  opaque token SyncService.swift:42 ×1, 61.0 s
                  push ×1, 61.0 s, began at AppDelegate.swift:22
                  scope Feed ×2, 61.0 s
                    weak token FeedLoader ×1, 61.0 s, began at FeedViewModel.swift:31
                    opaque token feed page 2 ×1, 61.0 s, began at FeedViewModel.swift:48
                """
        )
        app.popNetworkActivity()
        withExtendedLifetime((sync, loader, page)) {}
    }

    /// Only the threshold's own misuse is refused: zero, negative or NaN.
    @Test(arguments: [0, -1, Double.nan])
    func anInvalidThresholdIsReportedAndLeftUnset(value: Double) {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = value
        #expect(harness.manager.settings.staleTaskThreshold == nil)
        #expect(harness.diagnostics.kinds == [.invalidSetting(name: "staleTaskThreshold", replacement: nil)])
    }

    /// NetworkIndicatorSettings.swift: "Zero, a negative value or NaN is replaced by `nil` and
    /// reported." (negative infinity is a negative value)
    @Test func aNegativeInfiniteThresholdIsReportedAndLeftUnset() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = -.infinity
        #expect(harness.manager.settings.staleTaskThreshold == nil)
        #expect(harness.diagnostics.kinds == [.invalidSetting(name: "staleTaskThreshold", replacement: nil)])
    }

    /// NetworkIndicatorSettings.swift: "`.infinity` turns the check off"; "while a threshold is
    /// in force the sweep runs whenever a task is active" — off, an opaque token asks for no sweep.
    @Test func anInfiniteThresholdRunsNoSweepForAnOpaqueToken() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = .infinity
        let token = harness.manager.beganNetworkTask(label: "sync")
        harness.settle()
        #expect(harness.scheduler.pendingWorkCount == 0)
        #expect(harness.scheduler.nextDeadline == nil)
        withExtendedLifetime(token) {}
    }

    /// FindingAStuckTask.md: "A handler of your own reads the same from the
    /// NetworkIndicatorDiagnostic: task is the task as a snapshot shows it (its callSite
    /// included), scopePath the scopes." Diagnostics.swift: "the stuck task as activitySnapshot()
    /// shows it (label, kind, count, age, whether its token is alive)".
    @Test func eachReportsTaskIsTheEntryASnapshotFromTheHandlerShows() {
        typealias Activity = NetworkActivitySnapshot.Activity
        let harness = Harness()
        let app = harness.manager
        let pairs = LockedState<[(reported: Activity?, listed: Activity?)]>([])
        app.diagnosticsHandler = { [weak app] diagnostic in
            guard let app else { return }
            var entries = app.activitySnapshot().activities
            for scope in diagnostic.scopePath {
                entries = entries.first { $0.kind == .childManager && $0.label == scope }?.activities ?? []
            }
            let listed = entries.first { $0.label == diagnostic.label }
            pairs.withLock { $0.append((diagnostic.task, listed)) }
        }
        app.settings.staleTaskThreshold = 10
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let loader = FeedLoader()
        app.beganNetworkTask(withToken: loader)
        app.beganNetworkTask(withToken: loader)
        app.pushNetworkActivity()
        let group = NetworkActivityGroup(manager: feed, label: "images")
        group.operationStarted()
        let page = feed.beganNetworkTask()
        harness.settle()
        harness.advance(by: 10)
        let all = pairs.withLock { $0 }
        #expect(all.count == 4)
        for (reported, listed) in all {
            #expect(reported != nil)
            #expect(reported == listed)
        }
        app.popNetworkActivity()
        app.finishedNetworkTask(forToken: loader)
        app.finishedNetworkTask(forToken: loader)
        group.operationFinished()
        withExtendedLifetime(page) {}
    }
}

/// A caller's type, named by the report.
private final class FeedLoader: Sendable {}
