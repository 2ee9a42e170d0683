import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// VisibilityPolicy.md and `NetworkIndicatorDiagnostic.Kind.staleTask`: "every task that has
/// been open for at least the threshold is reported once", measured from its first begin; a
/// task that ends first (a reset, a dead token) is never reported, and a scope's own threshold
/// reports that scope's tasks only.
@MainActor
@Suite("When a stuck task is reported")
struct StuckTaskTimingTests {
    private func staleReports(_ harness: Harness) -> [NetworkIndicatorDiagnostic] {
        harness.diagnostics.all.filter { if case .staleTask = $0.kind { true } else { false } }
    }

    /// A task already older than a threshold set later is reported at the next check.
    @Test func aThresholdSetAfterAScopesTaskBeganReportsItOnce() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        feed.pushNetworkActivity()
        harness.settle()
        harness.advance(by: 10)
        harness.manager.settings.staleTaskThreshold = 5
        harness.settle()
        harness.advance(by: 1.1)
        let stale = staleReports(harness)
        #expect(stale.count == 1)
        #expect(stale.first?.scopePath == ["Feed"])
        harness.advance(by: 30)
        #expect(staleReports(harness).count == 1, "reported once")
    }

    @Test func aTaskEndedByAResetIsNotReported() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 3
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let page = feed.beganNetworkTask(label: "page")
        harness.advance(by: 2)
        harness.manager.resetNetworkActivity()
        harness.advance(by: 5)
        #expect(staleReports(harness).isEmpty)
        #expect(harness.scheduler.pendingWorkCount == 0, "no check once nothing is open")
        withExtendedLifetime(page) {}
    }

    /// A scope's own threshold, the root none: only the scope's tasks are reported.
    @Test func aThresholdOnAScopeReportsThatScopesTasksOnly() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        feed.settings.staleTaskThreshold = 2
        let images = NetworkActivityGroup(manager: feed, label: "images")
        images.operationStarted()
        images.operationStarted()
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.advance(by: 5)
        let stale = staleReports(harness)
        #expect(stale.map(\.label) == ["images"])
        #expect(stale.first?.scopePath == ["Feed"])
    }

    @Test func aTokenDeadBeforeTheThresholdIsNotReported() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 3
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        var loader: Token? = Token()
        feed.beganNetworkTask(withToken: loader!, label: "loader")
        harness.settle()
        harness.advance(by: 1.5)
        loader = nil
        harness.advance(by: 10)
        #expect(staleReports(harness).isEmpty)
        #expect(harness.manager.activeTaskCount == 0)
        _ = loader
    }

    /// A group's run ends with its last operation; its next run is measured from its own first
    /// begin.
    @Test func aGroupsNewRunIsMeasuredFromItsOwnFirstBegin() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        harness.manager.settings.staleTaskThreshold = 3
        let images = NetworkActivityGroup(manager: feed, label: "images")
        images.operationStarted()
        harness.settle()
        harness.advance(by: 1)
        images.operationFinished()
        harness.advance(by: 1)
        images.operationStarted()
        harness.settle()
        harness.advance(by: 2)  // 4 s: the new run is 2 s old
        #expect(staleReports(harness).isEmpty)
        harness.advance(by: 1)  // 5 s
        #expect(staleReports(harness).count == 1)
    }
}
