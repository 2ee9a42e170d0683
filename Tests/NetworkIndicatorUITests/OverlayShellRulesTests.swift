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

    /// A new title is not among them: it changes in place (``OverlayPlanTests``).
    @Test func newSettingsOrANewManagerRestartTheController() {
        #expect(configuration() == configuration(), "a rebuild with the same values keeps it")
        #expect(configuration() != configuration(settings: .init(showDelay: 0)))
        #expect(configuration() != configuration(manager: NetworkIndicatorManager(parent: manager)))
    }

    @Test func everyPlatformFadesAlikeAndAGoneViewAtOnce() {
        #expect(OverlayPlan.fadeDuration(animated: true) == 0.2)
        #expect(OverlayPlan.fadeDuration(animated: false) == 0)
    }
}
