import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// A screen's load handed to a child scope's overlay (a detail pane appears with its own) goes
/// on there: the screen's card leaves, but VoiceOver hears no "Loading complete" for it.
@MainActor
@Suite("Scope overlay hand-off")
struct ScopeOverlayHandOffTests {
    /// One overlay's controller, with what it drew and what it said.
    @MainActor
    final class SpeakingOverlay {
        var drawn: [Bool] = []
        var announcements: [OverlayAnnouncement.Kind] = []
        var controller: NetworkActivityOverlayController!

        init(minimumVisibleDuration: Double = 1) {
            controller = NetworkActivityOverlayController(
                settings: .init(showDelay: 0.5, minimumVisibleDuration: minimumVisibleDuration),
                accessibility: .init(
                    isSeen: { true },
                    isVoiceOverRunning: { true },
                    post: { [unowned self] kind, _ in announcements.append(kind) }
                )
            )
            controller.planChanged = planWatcher(drawn: { [unowned self] isDrawn, _ in drawn.append(isDrawn) })
        }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()

    @Test func aLongLoadHandedToAChildOverlayIsNotAnnouncedComplete() {
        let parent = NetworkIndicatorManager(scheduler: scheduler)
        let child = NetworkIndicatorManager(parent: parent, label: "Detail")
        let parentRefreshes = ScopeOverlayExclusions()
        let parentOverlay = SpeakingOverlay()
        parentOverlay.controller.appear(manager: parent, refreshes: parentRefreshes)
        child.pushNetworkActivity()  // the pane's load, before its overlay is up
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        scheduler.advance(by: 6)  // a long load: the screen's card has been drawn 6 s
        #expect(parentOverlay.drawn == [true])

        let childOverlay = SpeakingOverlay()
        childOverlay.controller.appear(manager: child, refreshes: ScopeOverlayExclusions(), coveringIn: parentRefreshes)
        scheduler.advance(by: 1)
        #expect(childOverlay.drawn == [true] && childOverlay.announcements == [.started])
        #expect(parentOverlay.drawn == [true, false], "the screen's card leaves after its minimum time")
        #expect(parentOverlay.announcements == [.started], "no 'Loading complete' while the load runs on")

        // The screen's own next load, drawn long, is announced complete as usual.
        parent.pushNetworkActivity()
        scheduler.advance(by: 0.5)
        scheduler.advance(by: 6)
        parent.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(parentOverlay.drawn == [true, false, true, false])
        #expect(parentOverlay.announcements == [.started, .started, .finished])
        child.popNetworkActivity()
    }

    /// The screen's own long load ends by itself during a refresh, beside a child's covered
    /// task; the refresh ends while the card is kept its minimum time. Nothing was handed off:
    /// "Loading complete" is due.
    @Test func aLoadThatEndedItselfIsAnnouncedWhenARefreshEndsBesideCoveredWork() {
        let parent = NetworkIndicatorManager(scheduler: scheduler)
        let child = NetworkIndicatorManager(parent: parent, label: "Detail")
        let parentRefreshes = ScopeOverlayExclusions()
        let parentOverlay = SpeakingOverlay(minimumVisibleDuration: 10)
        parentOverlay.controller.appear(manager: parent, refreshes: parentRefreshes)
        let childOverlay = SpeakingOverlay()
        childOverlay.controller.appear(manager: child, refreshes: ScopeOverlayExclusions(), coveringIn: parentRefreshes)
        child.pushNetworkActivity()
        parent.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        scheduler.advance(by: 6)
        let refresh = RefreshActivity.begin(in: parent, label: "refresh", refreshes: parentRefreshes)
        scheduler.runPendingWork()
        parent.popNetworkActivity()
        scheduler.runPendingWork()
        refresh.end()
        scheduler.runPendingWork()
        scheduler.advance(by: 10)
        #expect(parentOverlay.drawn == [true, false])
        #expect(parentOverlay.announcements == [.started, .finished], "the load ended by itself")
        child.popNetworkActivity()
    }
}
