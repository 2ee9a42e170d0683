import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// What each `interaction` setting asks of the shells: the card, a cover over the host, or
/// neither takes the touches.
@Suite("Overlay interaction")
struct OverlayInteractionTests {
    @Test func eachSettingSaysWhatTakesTheTouches() {
        typealias Interaction = NetworkActivityOverlaySettings.Interaction
        #expect(!Interaction.passesThrough.cardTakesTouches && !Interaction.passesThrough.coverTakesTouches)
        #expect(Interaction.blocksCard.cardTakesTouches && !Interaction.blocksCard.coverTakesTouches)
        #expect(Interaction.blocksHost.cardTakesTouches && Interaction.blocksHost.coverTakesTouches)
    }
}

/// The rules the SwiftUI shell used to make on its own: when to restart its controller, and
/// how long a fade lasts.
@MainActor
@Suite("Overlay shell rules")
struct OverlayShellRulesTests {
    private let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    private func configuration(
        settings: NetworkActivityOverlaySettings = .default,
        manager: NetworkIndicatorManager? = nil
    ) -> OverlayShellConfiguration {
        OverlayShellConfiguration(
            manager: manager ?? self.manager,
            settings: settings,
            refreshes: nil,
            parentRefreshes: nil
        )
    }

    /// What the configuration compares decides a restart; a new title, which is not in it,
    /// changes in place (``OverlayPlanTests/aNewTitleChangesInPlaceWithoutRestarting()``).
    @Test func newSettingsOrANewManagerRestartTheController() {
        #expect(configuration() == configuration(), "a rebuild with the same values keeps it")
        #expect(configuration() != configuration(settings: .init(showDelay: 0)))
        #expect(configuration() != configuration(manager: NetworkIndicatorManager(parent: manager)))
    }

    /// The plans a controller tells: a draw and an erase at the work's end fade over the same
    /// 0.2 s on every platform; a view that went away is erased at once.
    @Test func everyPlatformFadesAlikeAndAGoneViewAtOnce() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        var plans: [OverlayPlan] = []
        let controller = NetworkActivityOverlayController(
            settings: NetworkActivityOverlaySettings(showDelay: 0, minimumVisibleDuration: 0),
            accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in })
        )
        controller.planChanged = { plans.append($0) }
        controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(plans.last?.isDrawn == true && plans.last?.fadeDuration == 0.2, "drawn, fading in")
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(plans.last?.isDrawn == false && plans.last?.fadeDuration == 0.2, "erased at the end, fading out")
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(plans.last?.isDrawn == true)
        controller.disappear()
        #expect(plans.last?.isDrawn == false && plans.last?.fadeDuration == 0, "a gone view at once")
    }
}
