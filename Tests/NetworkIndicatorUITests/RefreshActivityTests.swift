import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// A refresh as `networkActivityRefreshable` runs it, seen by the overlay controller of its
/// scope: the overlay never draws for the refresh, and never erases for another load because
/// of it.
@MainActor
@Suite("Refresh activity")
struct RefreshActivityTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager
    private let refreshes = ScopeOverlayExclusions()

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    private func appearedController(
        showDelay: Double,
        _ drawn: @escaping @MainActor (Bool) -> Void
    ) -> NetworkActivityOverlayController {
        let controller = NetworkActivityOverlayController(
            settings: .init(showDelay: showDelay, minimumVisibleDuration: 1),
            accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in })
        )
        controller.planChanged = planWatcher(drawn: { isDrawn, _ in drawn(isDrawn) })
        controller.appear(manager: manager, refreshes: refreshes)
        return controller
    }

    /// Draws the overlay for one load (not a refresh) and lets its minimum time pass, so that
    /// the overlay would erase at once if it thought nothing but refreshes ran.
    private func drawForAnotherLoad() {
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        scheduler.advance(by: 1)
    }

    @Test func aRefreshBeginningWhileTheOverlayIsDrawnForAnotherLoadKeepsItDrawn() {
        var drawn: [Bool] = []
        let controller = appearedController(showDelay: 0.5) { drawn.append($0) }
        drawForAnotherLoad()
        let refresh = RefreshActivity.begin(in: manager, label: "refresh", refreshes: refreshes)
        #expect(drawn == [true])
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(drawn == [true])
        #expect(controller.isDrawn)
        refresh.end()
    }

    @Test func aRefreshEndingWhileTheOverlayIsDrawnForAnotherLoadKeepsItDrawn() {
        var drawn: [Bool] = []
        let controller = appearedController(showDelay: 0.5) { drawn.append($0) }
        drawForAnotherLoad()
        let refresh = RefreshActivity.begin(in: manager, label: "refresh", refreshes: refreshes)
        scheduler.runPendingWork()
        refresh.end()
        #expect(drawn == [true])
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(drawn == [true])
        #expect(controller.isDrawn)
    }

    @Test func aRefreshAloneNeverDrawsEvenWithoutAShowDelay() {
        var drawn: [Bool] = []
        let controller = appearedController(showDelay: 0) { drawn.append($0) }
        let refresh = RefreshActivity.begin(in: manager, label: "refresh", refreshes: refreshes)
        scheduler.runPendingWork()
        refresh.end()
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(drawn.isEmpty)
        #expect(!controller.isDrawn)
    }

    @Test func endingARefreshEndsItsTaskAndUncountsItOnce() {
        let refresh = RefreshActivity.begin(in: manager, label: "refresh", refreshes: refreshes)
        refreshes.begin()  // another refresh of the same scope
        manager.pushNetworkActivity()
        refresh.end()
        refresh.end()
        #expect(manager.activeTaskCount == 1)
        #expect(refreshes.count == 1)
    }

    @Test func runningARefreshCountsItWhileTheActionRuns() async {
        var seen: (tasks: Int, refreshes: Int)?
        await RefreshActivity.run(in: manager, label: "refresh", refreshes: refreshes) {
            seen = (manager.activeTaskCount, refreshes.count)
        }
        #expect(seen?.tasks == 1)
        #expect(seen?.refreshes == 1)
        #expect(manager.activeTaskCount == 0)
        #expect(refreshes.count == 0)
    }

    /// A refresh without a label is named by where the view's code wrote the modifier, which
    /// passes its own caller's `#fileID` and `#line` on.
    @Test func anUnlabelledRefreshIsNamedByWhereTheModifierIsWritten() async {
        var labels: [String] = []
        await RefreshActivity.run(
            in: manager,
            label: nil,
            refreshes: refreshes,
            file: "MyApp/FeedView.swift",
            line: 27
        ) {
            labels = manager.activitySnapshot().activities.map(\.label)
        }
        #expect(labels == ["FeedView.swift:27"])
    }
}
