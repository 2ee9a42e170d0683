import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// "Still loading…" and the light indicator for a screen with content: the pure decisions, and
/// the controller that runs them on the manager's clock.
@MainActor
@Suite("Overlay still loading and content style")
struct OverlayStillLoadingTests {
    @MainActor
    private final class Shell {
        var drawn: [Bool] = []
        var stillLoading: [Bool] = []
        var plans: [OverlayPlan] = []
        var announcements: [OverlayAnnouncement.Kind] = []
        /// Whether the plan the shell had applied said "Still loading…" as each was posted.
        var titledStillLoadingWhenPosted: [Bool] = []
        var isSeen = true
        var controller: NetworkActivityOverlayController!

        init(stillLoadingAfter: TimeInterval?, showDelay: TimeInterval = 0.5) {
            var settings = NetworkActivityOverlaySettings(showDelay: showDelay, minimumVisibleDuration: 1)
            settings.stillLoadingAfter = stillLoadingAfter
            controller = NetworkActivityOverlayController(
                settings: settings,
                accessibility: .init(
                    isSeen: { [unowned self] in isSeen },
                    isVoiceOverRunning: { true },
                    post: { [unowned self] kind, _ in
                        announcements.append(kind)
                        titledStillLoadingWhenPosted.append(plans.last?.isStillLoading ?? false)
                    }
                )
            )
            controller.planChanged = planWatcher(
                drawn: { [unowned self] isDrawn, _ in drawn.append(isDrawn) },
                stillLoading: { [unowned self] in stillLoading.append($0) },
                plans: { [unowned self] in plans.append($0) }
            )
        }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    /// `.infinity` never changes the title, as the core's `.infinity` turns its stale-task
    /// check off; a negative value or NaN changes it at once.
    @Test(arguments: [(TimeInterval.infinity, false), (-1, true), (.nan, true)])
    func anInfiniteThresholdNeverChangesTheTitle(threshold: TimeInterval, changes: Bool) {
        let shell = Shell(stillLoadingAfter: threshold)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 3600)
        #expect(shell.stillLoading == (changes ? [true] : []))
    }

    @Test func stillLoadingIsOffByDefault() {
        #expect(NetworkActivityOverlaySettings().stillLoadingAfter == nil)
        let shell = Shell(stillLoadingAfter: nil)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 60)
        #expect(shell.stillLoading.isEmpty)
        #expect(shell.announcements == [.started])
    }

    /// A zero threshold: "the title changes as soon as the overlay's load begins". Drawn at
    /// once (no show delay), the card says "Still loading…" from its first frame and speaks once.
    @Test func aZeroThresholdTitlesTheCardFromItsFirstDraw() {
        let shell = Shell(stillLoadingAfter: 0, showDelay: 0)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        #expect(shell.plans.first(where: \.isDrawn)?.isStillLoading == true)
        #expect(shell.announcements == [.started])
    }

    /// VoiceOver hears "Still loading…" once the shell shows it, never before.
    @Test func stillLoadingIsAnnouncedAfterTheTitleShowsIt() {
        let shell = Shell(stillLoadingAfter: 2)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 3)
        #expect(shell.announcements == [.started, .stillLoading])
        #expect(shell.titledStillLoadingWhenPosted == [false, true])
    }

    @Test func theTitleBecomesStillLoadingAfterTheThresholdAndIsAnnouncedOnce() {
        let shell = Shell(stillLoadingAfter: 8)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 7.9)
        #expect(shell.stillLoading.isEmpty)
        scheduler.advance(by: 0.1)
        #expect(shell.stillLoading == [true])
        #expect(shell.controller.isStillLoading)
        scheduler.advance(by: 30)
        #expect(shell.announcements == [.started, .stillLoading], "heard once")
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(shell.stillLoading == [true, false])
    }

    /// A sheet presented over the screen mid-load: the title still changes, but VoiceOver,
    /// whose focus is in the sheet, hears nothing of the screen under it.
    @Test func stillLoadingIsNotAnnouncedWhileTheUserCannotSeeTheOverlay() {
        let shell = Shell(stillLoadingAfter: 8)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        shell.isSeen = false
        scheduler.advance(by: 7)
        #expect(shell.stillLoading == [true])
        #expect(shell.announcements == [.started])
    }

    @Test func aLoadShorterThanTheThresholdKeepsItsTitle() {
        let shell = Shell(stillLoadingAfter: 2)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1.5)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 10)
        #expect(shell.stillLoading.isEmpty)
    }

    @Test func disappearingGoesBackToTheOwnTitle() {
        let shell = Shell(stillLoadingAfter: 1)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        shell.controller.disappear()
        #expect(shell.stillLoading == [true, false])
        #expect(!shell.controller.isStillLoading)
    }

    @Test func theDecisionAloneIgnoresAStaleTimer() {
        var decision = OverlayStillLoading(threshold: 2)
        #expect(decision.loadingChanged(true, now: 0) == [.scheduleTimer(after: 2)])
        #expect(decision.loadingChanged(true, now: 1) == [], "the same load: no new timer")
        #expect(decision.timerFired(now: 1.9, isDrawn: true) == [])
        #expect(decision.loadingChanged(false, now: 1.95) == [.cancelTimer])
        #expect(decision.timerFired(now: 2, isDrawn: true) == [], "the load ended first")
        #expect(decision.loadingChanged(true, now: 3) == [.scheduleTimer(after: 2)])
        #expect(decision.timerFired(now: 5, isDrawn: false) == [.showStillLoading(true)], "not drawn: not spoken")
    }

    @Test func theTitleIsTranslated() throws {
        let url = try #require(Bundle.module.url(forResource: "de", withExtension: "lproj"))
        let german = try #require(Bundle(url: url))
        #expect(OverlayStillLoading.title(bundle: german) == "Wird noch geladen …")
        for language in ["en", "de", "es", "fr", "ja"] {
            let url = try #require(Bundle.module.url(forResource: language, withExtension: "lproj"))
            let bundle = try #require(Bundle(url: url))
            let title = bundle.localizedString(forKey: OverlayStillLoading.titleKey, value: nil, table: nil)
            #expect(title != OverlayStillLoading.titleKey, "\(language) has no translation")
        }
    }

    @Test func aScreenWithContentGetsTheBarAndSwitchesWhileDrawn() {
        let shell = Shell(stillLoadingAfter: nil)
        #expect(shell.controller.style == .card)
        shell.controller.hasContent = true
        #expect(shell.controller.style == .lightIndicator)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.drawn == [true])
        shell.controller.hasContent = false
        shell.controller.hasContent = false
        #expect(shell.plans.filter(\.isDrawn).map(\.showsLightIndicator) == [true, false], "told once per change")
        #expect(shell.drawn == [true], "switched without erasing")
        #expect(shell.announcements == [.started], "not spoken again")
    }

    @Test func theOutputCoreHandsHasContentAndStillLoadingThrough() {
        var settings = NetworkActivityOverlaySettings(showDelay: 0, minimumVisibleDuration: 0)
        settings.stillLoadingAfter = 1
        var told: [Bool] = []
        let core = OverlayOutputCore(
            settings: settings,
            scheduler: scheduler,
            accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in }),
            planChanged: planWatcher(stillLoading: { told.append($0) })
        )
        core.hasContent = true  // before the controller exists
        core.activeTaskCountChanged(1)
        #expect(core.controller?.style == .lightIndicator)
        scheduler.advance(by: 1)
        #expect(told == [true])
        core.hasContent = false
        #expect(core.controller?.style == .card)
        core.activeTaskCountChanged(0)
        #expect(told == [true, false])
    }

    /// "Still loading…" is spoken only while the user can see it: a card that content erased
    /// draws nothing more in this load, so VoiceOver hears nothing of it.
    @Test func stillLoadingIsNotAnnouncedOnceContentErasedTheCard() {
        let shell = Shell(stillLoadingAfter: 3)
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(shell.drawn == [true])
        shell.controller.hasContent = true  // the first page arrived; the load goes on
        scheduler.advance(by: 3)
        #expect(shell.drawn == [true, false])
        #expect(shell.announcements == [.started], "nothing on screen says it")
    }
}
