import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// How a task is named and told where the documentation says: a watcher's events, and a late
/// finish's report. (A review of the documented rules against the code found each case.)
@MainActor
@Suite("How a task is named and told")
struct TaskNamingTests {
    @MainActor
    final class Watcher: NetworkActivityTaskEventOutput {
        var events: [NetworkActivityTaskEvent] = []
        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
        func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) { self.events += events }
    }

    private final class FeedLoader {}

    /// `events` are one task's begin and its end, `managerGone`, under one id and `label`.
    private func expectOneTaskEndedAsManagerGone(
        _ events: [NetworkActivityTaskEvent],
        named label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard events.count == 2, case .began(_, let beganID, _) = events[0],
            case .ended(let activity, let id, _, let ending) = events[1]
        else {
            Issue.record("expected a begin and an end: \(events)", sourceLocation: sourceLocation)
            return
        }
        #expect(ending == .managerGone, sourceLocation: sourceLocation)
        #expect(id == beganID, "the id its begin carried", sourceLocation: sourceLocation)
        #expect(activity.label == label, sourceLocation: sourceLocation)
    }

    /// `.began`: "the activity as a snapshot would show it then": a labelled caller's token is alive.
    @Test func aLabelledTokensBeginIsToldWithItsTokenAlive() {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        let loader = FeedLoader()
        harness.manager.beganNetworkTask(withToken: loader, label: "feed")
        harness.settle()
        #expect(harness.manager.activitySnapshot().activities.first?.isTokenAlive == true)
        guard case .began(let activity, _, _)? = watcher.events.first else {
            Issue.record("no begin: \(watcher.events)")
            return
        }
        #expect(activity.label == "feed")
        #expect(activity.isTokenAlive, "as the snapshot shows it")
        withExtendedLifetime(loader) {}
    }

    /// A root manager on a scheduler of the caller's, released with a task open: its watcher hears
    /// the task end, `managerGone`, as a scope's watcher does, with its begin's id and name.
    @Test func aRootManagersWatcherHearsItsTasksEndWhenTheManagerGoes() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(
            scheduler: scheduler,
            diagnosticsHandler: { _ in }
        )
        let watcher = Watcher()
        manager?.addOutput(watcher)
        let loader = FeedLoader()
        manager?.beganNetworkTask(withToken: loader)
        scheduler.runPendingWork()
        manager = nil
        scheduler.runPendingWork()
        expectOneTaskEndedAsManagerGone(watcher.events, named: "FeedLoader")
        withExtendedLifetime(loader) {}
    }

    /// A scope released in the same turn as its task began: the root's watcher hears the begin
    /// and the end as one task, one id, one name.
    @Test func aScopeGoneBeforeTheHopEndsItsTaskUnderItsBeginsIDAndName() {
        let harness = Harness()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        var scope: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Sheet")
        let loader = FeedLoader()
        scope?.beganNetworkTask(withToken: loader)
        scope = nil
        harness.settle()
        expectOneTaskEndedAsManagerGone(watcher.events, named: "FeedLoader")
        withExtendedLifetime(loader) {}
    }

    /// An end is named as its own begin was, never by an older task of the same token that a
    /// watcher heard begin before it stopped watching.
    @Test func anEndIsNotNamedByAnOlderTasksBegin() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let scopeWatcher = Watcher()
        feed.addOutput(scopeWatcher)  // keeps the tree recording
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        let loader = FeedLoader()
        harness.manager.beganNetworkTask(withToken: loader, label: "first")
        harness.settle()
        harness.manager.removeOutput(watcher)
        harness.manager.finishedNetworkTask(forToken: loader)
        harness.manager.beganNetworkTask(withToken: loader, label: "second")
        harness.settle()
        harness.manager.addOutput(watcher)
        harness.manager.finishedNetworkTask(forToken: loader)
        harness.settle()
        guard case .began(_, let firstID, _)? = watcher.events.first,
            case .ended(let activity, let id, _, _)? = watcher.events.last
        else {
            Issue.record("expected a begin and an end: \(watcher.events)")
            return
        }
        #expect(activity.label == "second")
        #expect(id != firstID, "an id of its own")
    }

    /// `unknownFinish` carries "the label the token's tasks were begun with if they ended lately,
    /// its type's name otherwise": the last run of the token was begun without a label.
    @Test func aLateFinishAfterAnUnlabelledRunIsNamedByTheTokensType() {
        let harness = Harness()
        let loader = FeedLoader()
        harness.manager.beganNetworkTask(withToken: loader, label: "upload")
        harness.manager.finishedNetworkTask(forToken: loader)
        harness.manager.beganNetworkTask(withToken: loader)
        harness.manager.finishedNetworkTask(forToken: loader)
        harness.manager.finishedNetworkTask(forToken: loader)
        #expect(harness.diagnostics.all.map(\.label) == ["FeedLoader"])
        withExtendedLifetime(loader) {}
    }

    @Test func aLateFinishOfAnOpaqueTokenAfterAnUnlabelledRunIsNamedWhereThatRunBegan() {
        let harness = Harness()
        let token = harness.manager.beganNetworkTask(label: "upload")
        harness.manager.finishedNetworkTask(forToken: token)
        let line = #line + 1
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.finishedNetworkTask(forToken: token)
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.diagnostics.all.map(\.label) == ["TaskNamingTests.swift:\(line)"], "not the older run's label")
    }

    @Test func aLateFinishAfterAResetOfAnUnlabelledRunIsNamedByTheTokensType() {
        let harness = Harness()
        let loader = FeedLoader()
        harness.manager.beganNetworkTask(withToken: loader, label: "upload")
        harness.manager.finishedNetworkTask(forToken: loader)
        harness.manager.beganNetworkTask(withToken: loader)
        harness.manager.resetNetworkActivity()
        harness.manager.finishedNetworkTask(forToken: loader)
        #expect(harness.diagnostics.all.map(\.label) == ["FeedLoader"])
        withExtendedLifetime(loader) {}
    }

    /// A watcher attached while an unlabelled token's task runs hears it end named by the
    /// token's type, as a snapshot names it, not as a deallocated token.
    @Test func aWatcherAttachedMidTaskHearsAnUnlabelledTokenEndByItsType() {
        let harness = Harness()
        let loader = FeedLoader()
        harness.manager.beganNetworkTask(withToken: loader)
        harness.settle()
        let watcher = Watcher()
        harness.manager.addOutput(watcher)
        harness.manager.finishedNetworkTask(forToken: loader)
        harness.settle()
        guard case .ended(let activity, let id, _, let ending)? = watcher.events.first else {
            Issue.record("no end: \(watcher.events)")
            return
        }
        #expect(activity.label == "FeedLoader")
        #expect(ending == .finished)
        #expect(id > 0, "an id of its own, as every task that began before anything watched")
        withExtendedLifetime(loader) {}
    }

    /// A snapshot's `label` of a weak token deallocated and waiting for the sweep: "deallocated
    /// token" (keeping its type would cost every explicit pair 62 instructions), and its call
    /// site still says where it began.
    @Test func aDeallocatedWeakTokenWaitingForTheSweepIsPlacedByItsCallSite() {
        let harness = Harness()
        var loader: FeedLoader? = FeedLoader()
        let line = #line + 1
        harness.manager.beganNetworkTask(withToken: loader!)
        #expect(harness.manager.activitySnapshot().activities.map(\.label) == ["FeedLoader"])
        loader = nil
        let activity = harness.manager.activitySnapshot().activities.first
        #expect(activity?.isTokenAlive == false)
        #expect(activity?.label == "deallocated token")
        #expect(activity?.callSite == "TaskNamingTests.swift:\(line)")
    }
}
