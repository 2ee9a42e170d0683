import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// The plan each shell applies, told by a controller that follows a real manager on a manual
/// clock: what is drawn, what blocks, what VoiceOver reaches, the title and the fade.
@MainActor
@Suite("Overlay plan")
struct OverlayPlanTests {
    /// Records every plan the controller tells, as a shell would apply it.
    @MainActor
    private final class Shell {
        var plans: [OverlayPlan] = []
        let controller: NetworkActivityOverlayController

        init(_ settings: NetworkActivityOverlaySettings, title: String = "Paying") {
            controller = NetworkActivityOverlayController(
                settings: settings,
                accessibility: .init(isSeen: { true }, isVoiceOverRunning: { true }, post: { _, _ in })
            )
            controller.title = title
            controller.planChanged = { [unowned self] in plans.append($0) }
        }

        var last: OverlayPlan { plans.last ?? .hidden }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager
    private let blocking = NetworkActivityOverlaySettings(
        showDelay: 0.5,
        minimumVisibleDuration: 1,
        interaction: .blocksHost
    )

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    /// Starts a load and waits out the show delay.
    private func drawn(_ shell: Shell) {
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
    }

    /// `.blocksHost` blocks from the first moment of a load: during the show delay "Pay" cannot
    /// be tapped again, and a load faster than the delay is blocked too. Only the drawing waits;
    /// VoiceOver keeps the screen until the card is there to read.
    @Test func aBlockingCardBlocksInputFromTheStartOfTheLoad() {
        let shell = Shell(blocking)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(!shell.last.showsCard, "not drawn during the show delay")
        #expect(shell.last.showsCover && !shell.last.hostTakesInput, "but blocked at once")
        #expect(!shell.last.hidesHostFromAccessibility, "nothing to read instead yet")
        scheduler.advance(by: 0.5)
        let plan = shell.last
        #expect(plan.showsCard && !plan.showsLightIndicator)
        #expect(plan.showsCover, "a cover takes the touches")
        #expect(!plan.hostTakesInput, "the host's scrolling, controls and keys are off too")
        #expect(plan.hidesHostFromAccessibility, "VoiceOver reaches only the card")
        #expect(plan.cardTakesInput)
    }

    /// Blocking ends with the work, not with the fade: the card may stay its minimum time, but
    /// the host takes input again as soon as nothing loads.
    @Test func aBlockingCardUnblocksWhenTheWorkEnds() {
        let shell = Shell(blocking)
        drawn(shell)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(shell.last.showsCard, "kept for its minimum time")
        #expect(!shell.last.showsCover && shell.last.hostTakesInput && !shell.last.hidesHostFromAccessibility)
        scheduler.advance(by: 1)
        #expect(
            shell.last == .hidden.with(title: "Paying", fadeDuration: 0.2, serial: shell.last.serial),
            "all of it goes with the card"
        )
    }

    /// A load faster than the show delay is blocked for as long as it runs, and never drawn.
    @Test func aLoadFasterThanTheShowDelayIsBlockedButNeverDrawn() {
        let shell = Shell(blocking)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.2)
        #expect(!shell.last.hostTakesInput)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(shell.last.hostTakesInput && !shell.last.showsCover)
        #expect(shell.plans.filter(\.isDrawn).isEmpty, "no flash")
    }

    @Test func theOtherSettingsNeverBlockTheHost() {
        for interaction in [NetworkActivityOverlaySettings.Interaction.passesThrough, .blocksCard] {
            let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5, interaction: interaction))
            drawn(shell)
            #expect(shell.last.showsCard)
            #expect(!shell.last.showsCover && shell.last.hostTakesInput && !shell.last.hidesHostFromAccessibility)
            #expect(shell.last.cardTakesInput == (interaction == .blocksCard))
            manager.popNetworkActivity()
            scheduler.runPendingWork()
            scheduler.advance(by: 2)
        }
    }

    @Test func theLightIndicatorNeverBlocksWhateverTheSettingsSay() {
        let shell = Shell(blocking)
        shell.controller.hasContent = true
        drawn(shell)
        #expect(shell.last.showsLightIndicator && !shell.last.showsCard)
        #expect(!shell.last.showsCover && shell.last.hostTakesInput && !shell.last.cardTakesInput)
        #expect(!shell.last.hidesHostFromAccessibility)
    }

    /// The light indicator drawn, then the content goes: the card that replaces it blocks as a
    /// card drawn from the start would (the shells used to leave the cover off).
    @Test func aStyleSwitchWhileDrawnRestoresTheCover() {
        let shell = Shell(blocking)
        shell.controller.hasContent = true
        drawn(shell)
        shell.controller.hasContent = false
        #expect(shell.last.showsCard && shell.last.showsCover && !shell.last.hostTakesInput)
    }

    /// The light indicator drawn, then the rows go while the load runs on: the card takes its
    /// place at once, without a cross-fade (UIKit and AppKit switched at once already; SwiftUI
    /// faded both over the plan's duration).
    @Test func theCardReplacesTheLightIndicatorWithoutAFade() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1))
        shell.controller.hasContent = true
        drawn(shell)
        #expect(shell.last.showsLightIndicator && shell.last.fadeDuration == OverlayPlan.fadeDuration)
        shell.controller.hasContent = false
        #expect(shell.last.showsCard && !shell.last.showsLightIndicator)
        #expect(shell.last.fadeDuration == 0, "the card takes its place at once")
        let told = shell.plans.count
        manager.pushNetworkActivity()  // a second task: nothing drawn changes
        scheduler.runPendingWork()
        #expect(shell.plans.count == told, "no plan told for a change of fade alone")
        manager.popNetworkActivity()
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 2)
        #expect(!shell.last.isDrawn)
        #expect(shell.last.fadeDuration == OverlayPlan.fadeDuration, "the card fades out as usual")
    }

    /// Content arriving under a drawn card erases the card, where it is: it never morphs into
    /// the light indicator (a pill jumping to the top, then fading).
    @Test func contentArrivingUnderADrawnCardErasesTheCard() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1))
        drawn(shell)
        #expect(shell.last.showsCard && !shell.last.isAtTopEdge)
        shell.controller.hasContent = true
        #expect(!shell.last.isDrawn, "the card goes")
        #expect(!shell.last.isAtTopEdge, "from the centre, where it was")
        #expect(shell.plans.filter(\.showsLightIndicator).isEmpty, "never the light indicator")
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 2)
        #expect(shell.plans.filter(\.showsLightIndicator).isEmpty, "nor once the work ends")
    }

    /// The card gave way to content, then the content went while the load runs on: an empty,
    /// loading screen shows the card again, not an invisible cover that takes every touch.
    @Test func contentLeavingWhileTheLoadRunsBringsTheCardBack() {
        let shell = Shell(blocking)
        drawn(shell)
        shell.controller.hasContent = true
        #expect(!shell.last.isDrawn && shell.last.hostTakesInput)
        shell.controller.hasContent = false
        scheduler.advance(by: 5)
        #expect(shell.last.showsCard && shell.last.showsCover, "the screen is empty and loading")
    }

    /// The card gave way to content; that load ends and the next one (a reload) begins within
    /// the card's minimum time: it draws the light indicator, as any next load does.
    @Test func aReloadWithinTheMinimumTimeAfterTheCardGaveWayDrawsTheLightIndicator() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1))
        drawn(shell)
        shell.controller.hasContent = true
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.2)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(shell.last.showsLightIndicator, "a 5 s load with nothing drawn")
    }

    /// A pull-to-refresh's own requests never draw the overlay (the refresh control spins for
    /// them), so they do not block the list behind a cover nobody sees either.
    @Test func aRefreshsRequestsDoNotBlockTheHostUnseen() {
        let refreshes = ScopeOverlayExclusions()
        let shell = Shell(blocking)
        shell.controller.appear(manager: manager, refreshes: refreshes)
        let refresh = RefreshActivity.begin(in: manager, label: "refresh", refreshes: refreshes)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 3)
        #expect(!shell.last.isDrawn)
        #expect(shell.last.hostTakesInput && !shell.last.showsCover, "the list scrolls during its refresh")
        refresh.end()
    }

    /// An erase keeps the placement of what was drawn: the light indicator fades at the top
    /// edge, without its title, instead of jumping to the centre as it fades.
    @Test func anEraseKeepsThePlacementOfWhatWasDrawn() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1))
        shell.controller.hasContent = true
        drawn(shell)
        #expect(shell.last.showsLightIndicator && shell.last.isAtTopEdge)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(!shell.last.isDrawn)
        #expect(shell.last.isAtTopEdge, "faded where it was")
    }

    /// The next load with content after the card gave way draws the light indicator, as any load
    /// with content does.
    @Test func theNextLoadAfterTheCardGaveWayDrawsTheLightIndicator() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 0))
        drawn(shell)
        shell.controller.hasContent = true
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.last.showsLightIndicator && shell.last.isAtTopEdge)
    }

    /// A title that changes while loading (an interpolated count) applies in place: the
    /// overlay keeps its show delay and its drawn state, and is not announced again.
    @Test func aNewTitleChangesInPlaceWithoutRestarting() {
        var announced: [OverlayAnnouncement.Kind] = []
        let controller = NetworkActivityOverlayController(
            settings: NetworkActivityOverlaySettings(showDelay: 0.5),
            accessibility: .init(
                isSeen: { true },
                isVoiceOverRunning: { true },
                post: { kind, _ in announced.append(kind) }
            )
        )
        var plans: [OverlayPlan] = []
        controller.planChanged = { plans.append($0) }
        controller.title = "1 of 3"
        controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        for step in 0..<4 {
            scheduler.advance(by: 0.2)  // a new title more often than the show delay
            controller.title = "\(step + 2) of 3"
        }
        #expect(controller.isDrawn, "the show delay was not restarted by the titles")
        #expect(plans.last?.title == "5 of 3")
        #expect(plans.last?.showsCard == true)
        #expect(announced == [.started], "announced once")
    }

    @Test func stillLoadingReplacesTheTitleAndGivesItBack() {
        var settings = NetworkActivityOverlaySettings(showDelay: 0.5)
        settings.stillLoadingAfter = 8
        let shell = Shell(settings)
        drawn(shell)
        scheduler.advance(by: 8)
        #expect(shell.last.isStillLoading)
        #expect(shell.last.title == OverlayStillLoading.title())
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(!shell.last.isStillLoading)
        #expect(shell.last.title == "Paying")
    }

    @Test func aViewThatGoesAwayErasesAtOnceAndUnblocks() {
        let shell = Shell(blocking)
        drawn(shell)
        #expect(shell.last.fadeDuration == OverlayPlan.fadeDuration)
        shell.controller.disappear()
        #expect(!shell.last.isDrawn && shell.last.hostTakesInput && !shell.last.showsCover)
        #expect(shell.last.fadeDuration == 0, "no fade for a view that went")
    }

    @Test func theProgressTheCardShowsIsInThePlan() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0.5))
        shell.controller.appear(activeCount: 1, scheduler: scheduler)  // an output's: all measured
        scheduler.advance(by: 0.5)
        shell.controller.fractionCompleted(0.25)
        #expect(shell.last.progress == OverlayProgress(fractionCompleted: 0.25))
    }

    @Test func thePlanIsToldOnlyWhenItChanges() {
        let shell = Shell(blocking)
        drawn(shell)
        let count = shell.plans.count
        shell.controller.hasContent = false
        shell.controller.title = "Paying"
        shell.controller.managerEnabledChanged()
        #expect(shell.plans.count == count)
    }

    /// Erased, drawn and erased again within one fade: the first erase's fade ends while the
    /// second's runs, and must not hide the card before the second's fade has finished.
    @Test func anEarlierEraseEndingDuringALaterEqualErasesFadeLeavesTheViewShown() {
        let shell = Shell(NetworkActivityOverlaySettings(showDelay: 0, minimumVisibleDuration: 0))
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        let firstErase = shell.last
        scheduler.advance(by: 0.05)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.05)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(shell.plans.map(\.isDrawn) == [true, false, true, false])
        #expect(!firstErase.isHiddenAfterFade(wasHidden: false, current: shell.last), "the later erase's fade decides")
        #expect(shell.last.isHiddenAfterFade(wasHidden: false, current: shell.last))
    }

    @Test func theHiddenPlanShowsAndBlocksNothing() {
        let hidden = OverlayPlan.hidden
        #expect(!hidden.isDrawn && !hidden.showsCover && hidden.hostTakesInput && !hidden.hidesHostFromAccessibility)
        #expect(hidden.opacity == 0)
        #expect(OverlayPlan.hidden.with(title: "x", fadeDuration: 0).opacity == 0)
    }
}

extension OverlayPlan {
    /// This plan with another title, fade and serial, for comparisons.
    fileprivate func with(title: String, fadeDuration: Double, serial: UInt64 = 0) -> OverlayPlan {
        var plan = OverlayPlan(
            isDrawn: isDrawn,
            style: showsLightIndicator ? .lightIndicator : .card,
            interaction: showsCover ? .blocksHost : (cardTakesInput ? .blocksCard : .passesThrough),
            title: title,
            isStillLoading: isStillLoading,
            progress: progress,
            fadeDuration: fadeDuration,
            isLoading: showsCover,
            placement: isAtTopEdge ? .lightIndicator : .card
        )
        plan.serial = serial
        return plan
    }
}

/// The order a shell hears things in: it must know what it shows before it is asked to say it.
@MainActor
@Suite("Overlay plan order")
struct OverlayPlanOrderTests {
    private let scheduler = ManualNetworkIndicatorScheduler()

    /// VoiceOver's announcement reads the title the shell last applied: the plan that draws
    /// (with the title) must reach the shell before the announcement is posted.
    @Test func theDrawnPlanReachesTheShellBeforeTheAnnouncement() {
        var events: [String] = []
        let core = OverlayOutputCore(
            settings: NetworkActivityOverlaySettings(showDelay: 0.5),
            scheduler: scheduler,
            accessibility: .init(
                isSeen: { true },
                isVoiceOverRunning: { true },
                post: { kind, _ in events.append("announce \(kind)") }
            ),
            planChanged: { plan in events.append("plan \(plan.isDrawn) \(plan.title)") }
        )
        core.title = "Paying"
        core.activeTaskCountChanged(1)
        #expect(events.first == "plan false Paying", "the output knows its title before anything draws")
        scheduler.advance(by: 0.5)
        #expect(events.suffix(2) == ["plan true Paying", "announce started"])
    }
}
