import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 64, step 1: every task says where in the caller's code it began. Each public way to
/// begin records its caller's `#fileID` and `#line`; an unlabelled task is named by them, and
/// every snapshot line and stale-task report shows them.
@MainActor
@Suite("Where each task began")
struct CallSiteTests {
    private final class FeedLoader {}

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let diagnostics = DiagnosticsRecorder()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: diagnostics.handler)
    }

    private func site(_ line: Int) -> String { "CallSiteTests.swift:\(line)" }

    private var activities: [NetworkActivitySnapshot.Activity] { manager.activitySnapshot().activities }

    @Test func anUnlabelledOpaqueTokenIsNamedByWhereItBegan() {
        let (token, line) = (manager.beganNetworkTask(), #line)
        #expect(activities.map(\.label) == [site(line)])
        #expect(activities.first?.callSite == site(line))
        #expect(manager.activitySnapshot().description.hasSuffix("opaque token \(site(line)) ×1, 0.0 s"))
        withExtendedLifetime(token) {}
    }

    @Test func aLabelledTaskKeepsItsLabelAndShowsWhereItBegan() {
        let loader = FeedLoader()
        let line = #line + 1
        manager.beganNetworkTask(withToken: loader)
        let (sync, syncLine) = (manager.beganNetworkTask(label: "sync"), #line)
        let (progressive, progressLine) = (
            manager.beganNetworkTask(label: "export", progress: Progress(totalUnitCount: 1)), #line
        )
        #expect(activities.map(\.label) == ["FeedLoader", "sync", "export"])
        #expect(activities.map(\.callSite) == [site(line), site(syncLine), site(progressLine)])
        #expect(
            manager.activitySnapshot().description == """
                3 active task(s)
                  weak token FeedLoader ×1, 0.0 s, began at \(site(line))
                  opaque token sync ×1, 0.0 s, began at \(site(syncLine))
                  opaque token export ×1, 0.0 s, began at \(site(progressLine))
                """
        )
        withExtendedLifetime((loader, sync, progressive)) {}
    }

    @Test func theCounterGroupsAndSequencesSayWhereTheyBegan() async throws {
        let pushLine = #line + 1
        manager.pushNetworkActivity()
        manager.pushNetworkActivity()  // a later push leaves the counter's site as it was
        let group = NetworkActivityGroup(manager: manager, label: "uploads")
        let groupLine = #line + 1
        group.operationStarted()
        group.operationStarted(progress: Progress(totalUnitCount: 10))  // a group's site is its first operation's
        #expect(Set(activities.map(\.callSite)) == [site(groupLine), site(pushLine)])
        var iterator = AsyncStream<Int> { $0.yield(1) }.trackingNetworkActivity(in: manager).makeAsyncIterator()
        let sequenceLine = #line - 1
        _ = await iterator.next()
        #expect(activities.contains { $0.callSite == site(sequenceLine) && $0.label == site(sequenceLine) })
        manager.popNetworkActivity()
        manager.popNetworkActivity()
        group.operationFinished()
        group.operationFinished()
    }

    /// "for a token begun several times, a group or the push counter, the call that began its
    /// first task since it last had no open task, as `age` counts, even if that task has ended"
    @Test func aRunsSiteIsItsFirstBeginsEvenAfterThatTaskEnded() {
        let loader = FeedLoader()
        let group = NetworkActivityGroup(manager: manager, label: "uploads")
        let opaque = manager.beganNetworkTask(label: "sync")
        manager.finishedNetworkTask(forToken: opaque)  // no task open: its next begin opens a run
        let (firstLine, groupLine, pushLine, opaqueLine) = (#line + 1, #line + 3, #line + 5, #line + 7)
        manager.beganNetworkTask(withToken: loader)
        manager.beganNetworkTask(withToken: loader)
        group.operationStarted()
        group.operationStarted()
        manager.pushNetworkActivity()
        manager.pushNetworkActivity()
        manager.beganNetworkTask(withToken: opaque)
        manager.beganNetworkTask(withToken: opaque)
        // The first task of each ends; each run goes on.
        manager.finishedNetworkTask(forToken: loader)
        group.operationFinished()
        manager.popNetworkActivity()
        manager.finishedNetworkTask(forToken: opaque)
        #expect(
            Set(activities.map(\.callSite)) == [site(firstLine), site(groupLine), site(pushLine), site(opaqueLine)]
        )
        manager.finishedNetworkTask(forToken: loader)
        group.operationFinished()
        manager.popNetworkActivity()
        manager.finishedNetworkTask(forToken: opaque)
        #expect(activities.isEmpty)
        let (again, groupAgain, pushAgain, opaqueAgain) = (#line + 1, #line + 2, #line + 3, #line + 4)
        manager.beganNetworkTask(withToken: loader)  // new runs: their own sites
        group.operationStarted()
        manager.pushNetworkActivity()
        manager.beganNetworkTask(withToken: opaque)
        #expect(Set(activities.map(\.callSite)) == [site(again), site(groupAgain), site(pushAgain), site(opaqueAgain)])
        manager.finishedNetworkTask(forToken: loader)
        group.operationFinished()
        manager.popNetworkActivity()
        manager.finishedNetworkTask(forToken: opaque)
        withExtendedLifetime(opaque) {}
    }

    @Test func withNetworkActivityAndTrackSayWhereTheyBegan() async {
        let line = #line + 1
        await manager.withNetworkActivity {
            #expect(activities.map(\.label) == [site(line)], "an unlabelled body is named by its call site")
        }
        let session = URLSession(configuration: .ephemeral)
        let task = session.dataTask(with: URL(string: "https://example.com/items")!)
        let trackLine = #line + 1
        manager.track(task)
        #expect(activities.map(\.label) == ["GET example.com/items"])
        #expect(activities.map(\.callSite) == [site(trackLine)])
        session.invalidateAndCancel()
    }

    /// A stuck task's report says where it began.
    @Test func aStaleReportSaysWhereTheTaskBegan() {
        manager.settings.staleTaskThreshold = 5
        let (token, line) = (manager.beganNetworkTask(label: "sync"), #line)
        scheduler.advance(by: 5)
        #expect(diagnostics.all.first?.task?.callSite == site(line))
        #expect(
            diagnostics.all.first?.description.hasPrefix(
                "task 'sync', begun at \(site(line)), has been active for 5 s: "
            ) == true
        )
        withExtendedLifetime(token) {}
    }

    /// A caller that wraps the package passes its own caller's site on.
    @Test func aWrapperPassesItsCallersSiteOn() {
        func beginSync(file: StaticString = #fileID, line: UInt = #line) -> NetworkActivityToken {
            manager.beganNetworkTask(label: "sync", file: file, line: line)
        }
        let (token, line) = (beginSync(), #line)
        #expect(activities.first?.callSite == site(line))
        withExtendedLifetime(token) {}
    }
}
