import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

@MainActor
/// The load after the one a card was drawn for: after the card gave way to content, during the
/// card's minimum time, during a pull-to-refresh. Each waits its show delay and is announced as
/// any load is, and blocks nothing it does not draw for.
@Suite("Overlay reloads")
struct OverlayReloadTests {
    @MainActor
    private final class Shell {
        var plans: [OverlayPlan] = []
        var announced: [OverlayAnnouncement.Kind] = []
        var controller: NetworkActivityOverlayController!

        init(_ settings: NetworkActivityOverlaySettings) {
            controller = NetworkActivityOverlayController(
                settings: settings,
                accessibility: .init(
                    isSeen: { true },
                    isVoiceOverRunning: { true },
                    post: { [unowned self] kind, _ in announced.append(kind) }
                )
            )
            controller.title = "Paying"
            controller.planChanged = { [unowned self] in plans.append($0) }
        }

        var last: OverlayPlan { plans.last ?? .hidden }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    private func drawn(_ shell: Shell) {
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
    }

    /// The card gave way to content; a 0.1 s reload within the card's minimum time: faster than
    /// the show delay, it never draws.
    @Test func aFastReloadAfterTheCardGaveWayDoesNotFlashTheLightIndicator() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1))
        drawn(shell)
        shell.controller.hasContent = true
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.2)
        let before = shell.plans.count
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(!shell.last.isDrawn, "not before its show delay")
        scheduler.advance(by: 0.1)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 2)
        #expect(shell.plans.dropFirst(before).filter(\.isDrawn).isEmpty, "a 0.1 s reload never flashes")
    }

    /// Same with a load that lasts: if it draws, it is announced as any drawn load is.
    @Test func aReloadAfterTheCardGaveWayIsAnnouncedWhenItDraws() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1))
        drawn(shell)
        #expect(shell.announced == [.started])
        shell.controller.hasContent = true
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.2)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(shell.last.showsLightIndicator)
        #expect(shell.announced == [.started, .started], "the light indicator is announced")
    }

    /// A blocking card drawn; its load ends (the host takes input again, the card is kept its
    /// minimum time); a pull-to-refresh in that time: its requests do not block the list.
    @Test func aRefreshBegunWhileTheCardIsKeptDoesNotBlockTheList() {
        let refreshes = ScopeOverlayExclusions()
        let shell = Shell(.init(showDelay: 0.5, minimumVisibleDuration: 1, interaction: .blocksHost))
        shell.controller.appear(manager: manager, refreshes: refreshes)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.last.showsCard && shell.last.showsCover)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(shell.last.hostTakesInput)
        scheduler.advance(by: 0.2)
        let refresh = RefreshActivity.begin(in: manager, label: "refresh", refreshes: refreshes)
        manager.pushNetworkActivity()  // the refresh's request
        scheduler.runPendingWork()
        #expect(shell.last.hostTakesInput && !shell.last.showsCover, "not even while the card is kept")
        scheduler.advance(by: 3)
        #expect(shell.last.hostTakesInput && !shell.last.showsCover, "the list scrolls during its refresh")
        refresh.end()
    }

    /// A card that gave way to content at once; its load ends 10 s later: the card was drawn
    /// for no time the user saw, so its end is not announced.
    @Test func theEndOfALoadWhoseCardGaveWayIsNotAnnounced() {
        let shell = Shell(.init(showDelay: 0.5, minimumVisibleDuration: 1))
        drawn(shell)
        shell.controller.hasContent = true
        scheduler.advance(by: 10)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 2)
        #expect(shell.announced == [.started])
    }

    /// stillLoadingAfter = 0: a refresh's requests during the card's kept time do not speak
    /// "Still loading…" for a card that is about to go.
    @Test func aRefreshDuringTheKeptTimeSpeaksNoStillLoading() {
        var settings = NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1)
        settings.stillLoadingAfter = 0
        let refreshes = ScopeOverlayExclusions()
        let shell = Shell(settings)
        shell.controller.appear(manager: manager, refreshes: refreshes)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.2)
        let refresh = RefreshActivity.begin(in: manager, label: "refresh", refreshes: refreshes)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 3)
        #expect(shell.announced == [.started])
        refresh.end()
    }

    /// stillLoadingAfter = 0; the card is drawn (titled "Still loading…", announced .started);
    /// its load ends (title back to "Paying", the card kept its minimum time), and a reload
    /// begins while it is still drawn: the drawn card's title turns "Still loading…" again, and
    /// "the overlay announces the new title once per load, if it is drawn then".
    @Test func aZeroThresholdTitleChangeOnADrawnCardIsAnnounced() {
        var settings = NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1)
        settings.stillLoadingAfter = 0
        let shell = Shell(settings)
        drawn(shell)
        #expect(shell.last.showsCard && shell.last.isStillLoading)
        #expect(shell.announced == [.started])
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(shell.last.showsCard && !shell.last.isStillLoading)
        scheduler.advance(by: 0.1)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        #expect(shell.last.showsCard && shell.last.isStillLoading)
        #expect(shell.announced == [.started, .stillLoading], "the drawn card's new title is spoken")
    }
}
