import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Diagnostics and snapshots")
struct DiagnosticsTests {
    @Test func staleTasksAreReportedOnceWithTheirLabel() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 30
        let forgotten = harness.manager.beganNetworkTask(label: "avatar upload")
        harness.advance(by: 29)
        #expect(harness.diagnostics.all.isEmpty)
        harness.advance(by: 1)
        #expect(harness.diagnostics.kinds == [.staleTask(age: 30)])
        #expect(harness.diagnostics.all.map(\.label) == ["avatar upload"])
        harness.advance(by: 100)
        #expect(harness.diagnostics.all.count == 1, "reported once")
        withExtendedLifetime(forgotten) {}
    }

    /// A screen's token finished on the app's manager by mistake: the report names where the
    /// token's task began, the clue to the mix-up, not just its type.
    @Test func aFinishOnAnotherManagerNamesWhereTheTokenBegan() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let line = #line + 1
        let token = feed.beganNetworkTask()
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.diagnostics.kinds == [.unknownFinish])
        #expect(harness.diagnostics.all.map(\.label) == ["DiagnosticsTests.swift:\(line)"])
        #expect(feed.activeTaskCount == 1, "its own manager still counts it")
        withExtendedLifetime(token) {}
    }

    /// Another manager's open labelled token is named by its label, as that manager's snapshot
    /// names it; this manager's own memory of the token, when it has one, comes first.
    @Test func aFinishOnAnotherManagerNamesTheTokenByItsLabel() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let load = feed.beganNetworkTask(label: "feed-load")
        harness.manager.finishedNetworkTask(forToken: load)
        let mirrored = feed.beganNetworkTask()
        harness.manager.beganNetworkTask(withToken: mirrored, label: "mirror")
        harness.manager.finishedNetworkTask(forToken: mirrored)
        harness.manager.finishedNetworkTask(forToken: mirrored)
        #expect(harness.diagnostics.all.map(\.label) == ["feed-load", "mirror"])
        withExtendedLifetime((load, mirrored)) {}
    }

    @Test func staleAgeIsMeasuredFromTheTasksOwnStart() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 10
        harness.advance(by: 5)
        let late = harness.manager.beganNetworkTask(label: "late")
        harness.advance(by: 9)
        #expect(harness.diagnostics.all.isEmpty, "9 s old at t = 14")
        harness.advance(by: 1)
        #expect(harness.diagnostics.kinds == [.staleTask(age: 10)])
        #expect(harness.diagnostics.all.map(\.label) == ["late"])
        withExtendedLifetime(late) {}
    }

    @Test func staleAgeOfThePushCounterIsMeasuredFromItsFirstPush() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 10
        harness.advance(by: 5)
        harness.manager.pushNetworkActivity()
        harness.advance(by: 9)
        #expect(harness.diagnostics.all.isEmpty, "pushed 9 s ago at t = 14")
        harness.advance(by: 1)
        #expect(harness.diagnostics.kinds == [.staleTask(age: 10)])
        #expect(harness.diagnostics.all.map(\.label) == ["pushNetworkActivity()"])
        harness.manager.popNetworkActivity()
    }

    /// A later push while the counter is open restarts neither its age nor its report; once every
    /// push is popped, the next push starts a new period, reported stale on its own.
    @Test func thePushCounterIsReportedStaleOncePerPeriod() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 10
        harness.manager.pushNetworkActivity()
        harness.advance(by: 6)
        harness.manager.pushNetworkActivity()
        harness.advance(by: 4)
        #expect(harness.diagnostics.kinds == [.staleTask(age: 10)])
        #expect(harness.diagnostics.all.map(\.label) == ["pushNetworkActivity()"])
        harness.manager.pushNetworkActivity()
        harness.advance(by: 20)
        #expect(harness.diagnostics.all.count == 1, "reported once")
        for _ in 0..<3 { harness.manager.popNetworkActivity() }
        harness.manager.pushNetworkActivity()
        harness.advance(by: 10)
        #expect(harness.diagnostics.all.count == 2, "a new period, once the counter went back to zero")
        harness.manager.popNetworkActivity()
    }

    @Test func aTaskBegunAfterAStaleOneEndedIsReportedWhenItTurnsStaleToo() {
        // The second task takes the first one's freed slot: its report is not taken as made.
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 10
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask(label: "first")
        harness.advance(by: 10)
        #expect(harness.diagnostics.all.map(\.label) == ["first"])
        first = nil
        let second = harness.manager.beganNetworkTask(label: "second")
        harness.advance(by: 10)
        #expect(harness.diagnostics.all.map(\.label) == ["first", "second"])
        withExtendedLifetime((first, second)) {}
    }

    @Test func everyTaskThatTurnsStaleInOneSweepIsReportedAndTheSweepGoesOn() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 10
        let upload = harness.manager.beganNetworkTask(label: "upload")
        let download = harness.manager.beganNetworkTask(label: "download")
        var gone: Token? = Token()
        harness.manager.beganNetworkTask(withToken: gone!, label: "gone")
        harness.advance(by: 9)
        gone = nil
        harness.advance(by: 1)
        #expect(Set(harness.diagnostics.all.map(\.label)) == ["upload", "download"])
        #expect(harness.manager.activeTaskCount == 2, "the dead token after them ended in the same sweep")
        withExtendedLifetime((upload, download, gone)) {}
    }

    /// A token that reports completion is stale when it turns old uncompleted, not when it
    /// completes in the very sweep that finds it old.
    @Test(arguments: [false, true])
    func aTokenThatReportsCompletionIsStaleOnlyUncompleted(completesInTheSweep: Bool) {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 3
        let upload = CompletableToken()
        harness.manager.beganNetworkTask(withToken: upload, label: "upload")
        harness.advance(by: 2)
        if completesInTheSweep { upload.finish() }
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == (completesInTheSweep ? 0 : 1))
        #expect(harness.diagnostics.kinds == (completesInTheSweep ? [] : [.staleTask(age: 3)]))
        #expect(harness.diagnostics.all.map(\.label) == (completesInTheSweep ? [] : ["upload"]))
    }

    @Test func staleCheckStopsWhenNothingIsActive() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 30
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(harness.scheduler.pendingWorkCount == 1, "the check runs while a task is open")
        harness.manager.popNetworkActivity()
        harness.settle()
        #expect(harness.scheduler.pendingWorkCount == 0)
    }

    @Test func snapshotListsEveryKindOldestFirst() {
        let harness = Harness()
        let token = Token()
        harness.manager.beganNetworkTask(withToken: token, label: "feed")
        harness.advance(by: 2)
        let opaque = harness.manager.beganNetworkTask(label: "avatar")
        harness.advance(by: 2)
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        let group = NetworkActivityGroup(manager: harness.manager, label: "comments")
        group.operationStarted()

        let snapshot = harness.manager.activitySnapshot()
        #expect(snapshot.activeTaskCount == 5)
        #expect(snapshot.takenAt == 4)
        #expect(
            snapshot.activities.map(\.label) == ["feed", "avatar", "pushNetworkActivity()", "comments"]
                || snapshot.activities.map(\.label) == ["feed", "avatar", "comments", "pushNetworkActivity()"]
        )
        let byLabel = Dictionary(uniqueKeysWithValues: snapshot.activities.map { ($0.label, $0) })
        #expect(byLabel["feed"]?.kind == .weakToken)
        #expect(byLabel["feed"]?.age == 4)
        #expect(byLabel["avatar"]?.kind == .opaqueToken)
        #expect(byLabel["pushNetworkActivity()"]?.taskCount == 2)
        #expect(byLabel["pushNetworkActivity()"]?.kind == .counter)
        #expect(byLabel["comments"]?.kind == .group)
        #expect(snapshot.description.hasPrefix("5 active task(s)\n  weak token feed ×1, 4.0 s"))
        withExtendedLifetime((token, opaque)) {}
    }

    @Test func snapshotShowsADeadTokenAwaitingTheSweep() {
        let harness = Harness()
        var token: Token? = Token()
        harness.manager.beganNetworkTask(withToken: token!)
        token = nil
        #expect(harness.manager.activitySnapshot().activities.map(\.isTokenAlive) == [false])
        _ = token
    }

    @Test func tasksWithoutAWeakTokenAreAlwaysAlive() {
        // Opaque tokens, pushes and groups hold no weak reference: nothing can die under them.
        let harness = Harness()
        let opaque = harness.manager.beganNetworkTask(label: "avatar")
        harness.manager.pushNetworkActivity()
        let token = Token()
        harness.manager.beganNetworkTask(withToken: token, label: "feed")
        #expect(harness.manager.activitySnapshot().activities.map(\.isTokenAlive) == [true, true, true])
        withExtendedLifetime((opaque, token)) {}
    }

    @Test func aChildsAgeInItsParentsSnapshotCountsFromWhenItBecameActive() {
        let harness = Harness()
        let child = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        child.pushNetworkActivity()
        harness.advance(by: 5)
        child.pushNetworkActivity()  // a later begin does not restart the child's age
        harness.advance(by: 5)
        let record = harness.manager.activitySnapshot().activities.first { $0.label == "Feed" }
        #expect(record?.kind == .childManager)
        #expect(record?.age == 10)
    }

    @Test func diagnosticsDescribeTheMisuse() {
        let diagnostic = NetworkIndicatorDiagnostic(kind: .unknownFinish, label: "Request")
        #expect(diagnostic.description.contains("'Request'"))
        #expect(diagnostic.description.contains("ignored"))
        let record = TaskRegistry.ActivityRecord(
            label: "upload",
            kind: .group,
            taskCount: 1,
            startedAt: 0,
            isTokenAlive: true
        )
        let stale = NetworkIndicatorDiagnostic(
            staleTask: .init(record, now: 61.4),
            scopePath: ["Feed", "Detail"],
            keptOpenBy: "what keeps it open"
        )
        #expect(
            stale.description == "task 'upload' in scope Feed > Detail has been active for 61 s: what keeps it open"
        )
    }

    @Test(arguments: [
        (NetworkIndicatorDiagnostic.Kind.finishAfterTokenDeath, "already deallocated"),
        (.popWithoutPush, "popNetworkActivity() with no push outstanding"),
        (.groupFinishWithoutStart, "on group 'label'"),
        (.invalidSetting(name: "startDelay", replacement: 0), "startDelay must be"),
        (.invalidSetting(name: "staleTaskThreshold", replacement: nil), "using nil (the parent manager's"),
    ])
    func everyDiagnosticHasAReadableDescription(kind: NetworkIndicatorDiagnostic.Kind, phrase: String) {
        #expect(NetworkIndicatorDiagnostic(kind: kind, label: "label").description.contains(phrase))
    }

    /// Each report of a setting says the rule that value broke and what is used instead: a
    /// check interval below the floor is too short, not negative; a scope's threshold replaced by
    /// `nil` falls back to its parent's, and is not off.
    @Test func anInvalidSettingsReportSaysTheRuleAndWhatIsUsed() {
        let harness = Harness()
        harness.manager.settings.completionCheckInterval = 0.001
        harness.manager.settings.staleTaskThreshold = 5
        NetworkIndicatorManager(parent: harness.manager, label: "Feed").settings.staleTaskThreshold = 0
        harness.manager.settings.startDelay = -1
        #expect(
            harness.diagnostics.all.map(\.description) == [
                "completionCheckInterval must be a finite number of seconds, at least 0.01; using 0.01",
                "staleTaskThreshold must be a finite number of seconds above zero, or infinity (off); using nil (the parent manager's threshold, or a root's default)",
                "startDelay must be a finite number of seconds, not negative; using 0.0",
            ]
        )
    }

    @Test func diagnosticsHandlerMayCallBackIntoTheManager() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let seen = LockedState<[Int]>([])
        manager.diagnosticsHandler = { [unowned manager] _ in
            manager.pushNetworkActivity()
            seen.withLock { $0.append(manager.activeTaskCount) }
        }
        manager.popNetworkActivity()
        #expect(seen.withLock { $0 } == [1])
    }

    /// The getter hands back the handler in force: calling what it returns reaches the handler
    /// set last, not the default or an earlier one.
    @Test func theHandlerReadBackIsTheOneSetLast() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let seen = LockedState<[String]>([])
        manager.diagnosticsHandler = { _ in seen.withLock { $0.append("first") } }
        manager.diagnosticsHandler = { diagnostic in seen.withLock { $0.append(diagnostic.label) } }
        let readBack = manager.diagnosticsHandler
        readBack(NetworkIndicatorDiagnostic(kind: .popWithoutPush, label: "read back"))
        #expect(seen.withLock { $0 } == ["read back"])
    }

    /// The default handler's body, given a pipe instead of standard error: nothing else in the
    /// process writes there, so the whole text is known.
    @Test func theDefaultHandlerWritesOneLinePerDiagnosticInDebugBuilds() throws {
        let pipe = Pipe()
        let handler = NetworkIndicatorManager.diagnosticsHandler(writingTo: pipe.fileHandleForWriting)
        handler(NetworkIndicatorDiagnostic(kind: .popWithoutPush, label: ""))
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #if DEBUG
        #expect(written == "NetworkIndicator: popNetworkActivity() with no push outstanding; ignored\n")
        #else
        #expect(written.isEmpty, "silent in release builds")
        #endif
    }
}
