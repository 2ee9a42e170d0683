import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// How the shells fade and touch their host, from one plan to the next.
@Suite("Overlay plan transitions")
struct OverlayPlanTransitionTests {
    private func plan(
        drawn: Bool,
        _ interaction: NetworkActivityOverlaySettings.Interaction = .blocksHost
    ) -> OverlayPlan {
        OverlayPlan(
            isDrawn: drawn,
            style: .card,
            interaction: interaction,
            title: "Paying",
            isStillLoading: false,
            progress: .indeterminate,
            fadeDuration: 0.2,
            isLoading: drawn,
            placement: .card
        )
    }

    @Test func aDrawShowsTheViewAtOnceAndAnEraseHidesItAfterItsFade() {
        #expect(!plan(drawn: true).isHiddenDuringFade(wasHidden: true))
        let erase = plan(drawn: false)
        #expect(!erase.isHiddenDuringFade(wasHidden: false), "still visible while it fades out")
        #expect(erase.isHiddenAfterFade(wasHidden: false, current: erase))
    }

    /// A draw during the fade-out of an erase: the erase's late completion must not hide the
    /// overlay that shows again.
    @Test func aDrawDuringAFadeOutKeepsTheView() {
        let erase = plan(drawn: false)
        let draw = plan(drawn: true)
        #expect(!erase.isHiddenAfterFade(wasHidden: false, current: draw))
        #expect(!draw.isHiddenAfterFade(wasHidden: false, current: draw))
    }

    @Test func theHostIsTouchedOnlyWhenBlockingBeginsOrEnds() {
        let blocked = plan(drawn: true).hostChanges(from: .hidden)
        #expect(blocked == .init(takesInput: false, typingFocus: .take, accessibilityFocus: .take))
        #expect(
            plan(drawn: false).hostChanges(from: plan(drawn: true))
                == .init(takesInput: true, typingFocus: .giveBack, accessibilityFocus: .giveBack)
        )
        #expect(plan(drawn: true).hostChanges(from: plan(drawn: true)) == .init())
        let passing = plan(drawn: true, .passesThrough)
        #expect(passing.hostChanges(from: .hidden) == .init(), "an app's own setting left alone")
    }

    /// Blocking begins with the load, before the card draws: typing focus is taken then (no
    /// field takes a second "Pay"), VoiceOver's only when the card it can move to is drawn; each
    /// is given back when blocking ends.
    @Test func focusIsTakenWhenBlockingBeginsAndVoiceOversWhenTheCardDraws() {
        let waiting = OverlayPlan(
            isDrawn: false,
            style: .card,
            interaction: .blocksHost,
            title: "Paying",
            isStillLoading: false,
            progress: .indeterminate,
            fadeDuration: 0.2,
            isLoading: true,
            placement: .card
        )
        #expect(waiting.hostChanges(from: .hidden) == .init(takesInput: false, typingFocus: .take))
        #expect(plan(drawn: true).hostChanges(from: waiting) == .init(accessibilityFocus: .take))
        #expect(
            OverlayPlan.hidden.hostChanges(from: waiting) == .init(takesInput: true, typingFocus: .giveBack),
            "a load faster than the delay: nothing to give VoiceOver back"
        )
    }

    /// An app that turned its form off itself keeps it off after the blocking card goes; one
    /// that did not gets it back on.
    @Test func theHostGetsBackTheSettingItHadBeforeBlocking() {
        let block = plan(drawn: true).hostChanges(from: .hidden)
        let unblock = plan(drawn: false).hostChanges(from: plan(drawn: true))
        var keeper = HostInputKeeper()
        #expect(keeper.apply(block, current: false) == false)
        #expect(keeper.apply(unblock, current: false) == false, "the app's own `false` stays")
        #expect(keeper.apply(block, current: true) == false)
        #expect(keeper.apply(.init(), current: false) == false)
        #expect(keeper.apply(unblock, current: false) == true, "given back as it was")
        #expect(keeper.apply(.init(), current: true) == true, "left alone")
    }

    /// An output taken off its manager while its blocking card is drawn, its load still running:
    /// the plan it is told gives the host its input back, draws nothing and erases at once.
    @MainActor
    @Test func removalGivesTheHostBackAndDrawsNothing() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        var plans: [OverlayPlan] = []
        let core = OverlayOutputCore(
            settings: NetworkActivityOverlaySettings(showDelay: 0, interaction: .blocksHost),
            scheduler: scheduler,
            accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in }),
            planChanged: { plans.append($0) }
        )
        _ = core.added(to: manager)
        core.activeTaskCountChanged(1)
        #expect(plans.last?.showsCard == true && plans.last?.hostTakesInput == false)
        core.removed(from: manager)
        let last = plans.last ?? .hidden
        #expect(!last.isDrawn && !last.showsCover && last.hostTakesInput && !last.hidesHostFromAccessibility)
        #expect(last.fadeDuration == 0, "at once")
        #expect(last.hostChanges(from: plans[plans.count - 2]).takesInput == true, "the host's input given back")
    }
}
