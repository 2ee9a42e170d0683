import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// What the UIKit and AppKit overlay outputs do with what a manager tells them, without their
/// views: a manual scheduler stands in for the main queue.
@MainActor
@Suite("Overlay output core")
struct OverlayOutputCoreTests {
    /// Records what the core tells its view.
    @MainActor
    private final class View {
        var drawn: [Bool] = []
        var shown: [OverlayProgress] = []
        var announced: [OverlayAnnouncement.Kind] = []
        var core: OverlayOutputCore!

        init(scheduler: ManualNetworkIndicatorScheduler, settings: NetworkActivityOverlaySettings) {
            core = OverlayOutputCore(
                settings: settings,
                scheduler: scheduler,
                accessibility: .init(
                    isSeen: { true },
                    isVoiceOverRunning: { true },
                    post: { [unowned self] kind, _ in announced.append(kind) }
                ),
                planChanged: planWatcher(
                    drawn: { [unowned self] isDrawn, _ in drawn.append(isDrawn) },
                    shown: { [unowned self] in shown.append($0) }
                )
            )
        }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let settings = NetworkActivityOverlaySettings(showDelay: 0.5, minimumVisibleDuration: 1)

    @Test func theFirstCountStartsThePresentationFromThatCount() {
        let view = View(scheduler: scheduler, settings: settings)
        #expect(view.core.controller == nil, "made at the first count, not before")
        view.core.activeTaskCountChanged(1)  // a load already running when the output is added
        #expect(view.core.controller != nil)
        scheduler.advance(by: 0.5)
        #expect(view.drawn == [true], "drawn after the show delay, from the first count")
        #expect(view.announced == [.started])
    }

    @Test func laterCountsMoveThePresentation() {
        let view = View(scheduler: scheduler, settings: settings)
        view.core.activeTaskCountChanged(0)
        scheduler.advance(by: 5)
        #expect(view.drawn.isEmpty, "nothing loads")
        view.core.activeTaskCountChanged(2)
        scheduler.advance(by: 0.5)
        view.core.activeTaskCountChanged(0)
        scheduler.advance(by: 1)
        #expect(view.drawn == [true, false])
    }

    @Test func aFastLoadNeverDraws() {
        let view = View(scheduler: scheduler, settings: settings)
        view.core.activeTaskCountChanged(0)
        view.core.activeTaskCountChanged(1)
        scheduler.advance(by: 0.2)
        view.core.activeTaskCountChanged(0)
        scheduler.advance(by: 5)
        #expect(view.drawn.isEmpty)
        #expect(view.announced.isEmpty)
    }

    @Test func anEnabledChangeChangesNothingWithoutAManager() {
        let view = View(scheduler: scheduler, settings: settings)
        view.core.activeTaskCountChanged(1)
        scheduler.advance(by: 0.5)
        view.core.enabledChanged()
        scheduler.advance(by: 5)
        #expect(view.drawn == [true], "no manager: nothing disabled it")
    }

    @Test func anEnabledChangeBeforeTheFirstCountMakesNoController() {
        let view = View(scheduler: scheduler, settings: settings)
        view.core.enabledChanged()
        view.core.fractionCompletedChanged(0.5)
        #expect(view.core.controller == nil)
        #expect(view.shown.isEmpty)
    }

    @Test func fractionsReachTheViewWhileTheOverlayIsOnScreen() {
        let view = View(scheduler: scheduler, settings: settings)
        view.core.activeTaskCountChanged(1)
        view.core.fractionCompletedChanged(0.25)
        #expect(view.shown == [OverlayProgress(fractionCompleted: 0.25)])
    }

    @Test func theOutputWantsFractionsAsTheSettingsSay() {
        #expect(View(scheduler: scheduler, settings: settings).core.receivesFractionCompleted)
        var spinnerOnly = settings
        spinnerOnly.showsProgress = false
        let view = View(scheduler: scheduler, settings: spinnerOnly)
        #expect(!view.core.receivesFractionCompleted)
        view.core.activeTaskCountChanged(1)
        view.core.fractionCompletedChanged(0.25)
        #expect(view.shown.isEmpty, "a spinner-only overlay shows no bar")
    }

    /// Issue 63, item 4: once the host view is gone, the output does nothing: no plan reaches
    /// the shell, whose constraints point at the gone host's layout guide.
    @Test func anOutputWhoseHostIsGoneAppliesNoPlan() {
        final class Host { var isGone = false }
        let host = Host()
        var plans: [OverlayPlan] = []
        let core = OverlayOutputCore(
            settings: settings,
            scheduler: scheduler,
            accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in }),
            hostIsGone: { host.isGone },
            planChanged: { plans.append($0) }
        )
        core.activeTaskCountChanged(1)
        scheduler.advance(by: 0.5)
        #expect(plans.last?.isDrawn == true, "drawn while the host lives")
        let heard = plans.count
        host.isGone = true
        core.activeTaskCountChanged(0)
        scheduler.advance(by: 5)
        core.activeTaskCountChanged(3)
        scheduler.advance(by: 5)
        #expect(plans.count == heard, "nothing applied once the host is gone")
    }
}
