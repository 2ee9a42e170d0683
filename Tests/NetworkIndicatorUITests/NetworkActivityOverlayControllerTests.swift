import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// The controller under every overlay, on a manager with a manual scheduler: it starts from the
/// manager's state, follows it on the manager's clock, and speaks only when it may.
@MainActor
@Suite("Overlay controller")
struct NetworkActivityOverlayControllerTests {
    /// A shell that records what it is told; its window and VoiceOver are set by the test.
    @MainActor
    private final class Shell {
        var drawn: [Bool] = []
        var animated: [Bool] = []
        var announcements: [OverlayAnnouncement.Kind] = []
        var isSeen = true
        var isVoiceOverRunning = true
        var controller: NetworkActivityOverlayController!

        init(
            settings: NetworkActivityOverlaySettings = .init(showDelay: 0.5, minimumVisibleDuration: 1),
            focusesBlockingCard: Bool = false
        ) {
            controller = NetworkActivityOverlayController(
                settings: settings,
                accessibility: .init(
                    isSeen: { [unowned self] in isSeen },
                    isVoiceOverRunning: { [unowned self] in isVoiceOverRunning },
                    post: { [unowned self] kind, _ in announcements.append(kind) },
                    focusesBlockingCard: focusesBlockingCard
                )
            )
            controller.planChanged = planWatcher(drawn: { [unowned self] isDrawn, animated in
                drawn.append(isDrawn)
                self.animated.append(animated)
            })
        }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    @Test func aLoadDrawsAfterTheShowDelayOnTheManagersClock() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.4)
        #expect(shell.drawn.isEmpty)
        scheduler.advance(by: 0.1)
        #expect(shell.drawn == [true])
        #expect(shell.announcements == [.started])
    }

    @Test func disablingTheManagerErasesTheOverlayAndEnablingBringsItBack() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        manager.settings.isEnabled = false
        scheduler.runPendingWork()
        #expect(shell.drawn == [true, false], "erased at once, with no count change")
        manager.settings.isEnabled = true
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.drawn == [true, false, true])
        #expect(shell.announcements == [.started, .started])
    }

    @Test func aManagerDisabledDuringTheShowDelayNeverDraws() {
        let shell = Shell()
        manager.settings.startDelay = 2  // the manager's indicator is not visible: its visibility never changes
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        manager.settings.isEnabled = false
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(shell.drawn.isEmpty, "read at the show delay's end")
    }

    /// Drawn before the manager's own indicator shows (its start delay is longer than the
    /// overlay's show delay), so the manager's visibility never changes: disabling still
    /// erases the overlay at once.
    @Test func disablingErasesAnOverlayDrawnBeforeTheManagersIndicator() {
        let shell = Shell()
        manager.settings.startDelay = 2
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.6)
        manager.settings.isEnabled = false
        scheduler.runPendingWork()
        #expect(shell.drawn == [true, false])
    }

    @Test func aShortLoadNeverDraws() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.2)
        manager.popNetworkActivity()
        scheduler.advance(by: 5)
        #expect(shell.drawn.isEmpty)
        #expect(shell.announcements.isEmpty)
    }

    @Test func theOverlayStaysTheMinimumTime() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(shell.drawn == [true])
        scheduler.advance(by: 1)
        #expect(shell.drawn == [true, false])
        #expect(shell.animated == [true, true])
    }

    @Test func appearingStartsFromTheExactCountNotTheLastDelivered() {
        manager.pushNetworkActivity()  // no hop has run: nothing was delivered yet
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        scheduler.advance(by: 0.5)
        #expect(shell.drawn == [true])
    }

    @Test func disappearingErasesAtOnceAndStopsFollowing() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        shell.controller.disappear()
        #expect(shell.drawn == [true, false])
        #expect(shell.animated == [true, false])
        manager.popNetworkActivity()
        manager.pushNetworkActivity()
        scheduler.advance(by: 5)
        #expect(shell.drawn == [true, false], "nothing after disappearing")
    }

    @Test func reappearingStartsFromTheStateThenNotTheStaleOne() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        shell.controller.disappear()
        manager.popNetworkActivity()  // ends while the view is away
        scheduler.runPendingWork()
        shell.controller.appear(manager: manager, refreshes: nil)
        scheduler.advance(by: 5)
        #expect(shell.drawn == [true, false], "not drawn again: nothing loads")
        #expect(shell.announcements == [.started], "and nothing announced")
    }

    @Test func theControllerDoesNotKeepTheManagerAfterDisappearing() {
        let shell = Shell()
        weak var weakManager: NetworkIndicatorManager?
        do {
            let other = NetworkIndicatorManager(scheduler: scheduler)
            weakManager = other
            shell.controller.appear(manager: other, refreshes: nil)
            shell.controller.disappear()
        }
        scheduler.runPendingWork()
        #expect(weakManager == nil)
    }

    @Test func nothingIsAnnouncedWhileTheUserCannotSeeTheOverlay() {
        let shell = Shell()
        shell.isSeen = false
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.drawn == [true])
        #expect(shell.announcements.isEmpty)
    }

    @Test func nothingIsAnnouncedWithoutVoiceOver() {
        let shell = Shell()
        shell.isVoiceOverRunning = false
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.drawn == [true])
        #expect(shell.announcements.isEmpty)
    }

    @Test func theEndOfALongLoadIsAnnounced() {
        let shell = Shell(settings: .init(showDelay: 0, minimumVisibleDuration: 0, completionAnnouncementThreshold: 5))
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 6)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(shell.announcements == [.started, .finished])
    }

    /// A shell that moves VoiceOver's cursor to a blocking card (UIKit) lets the card speak for
    /// itself: announcing its title as well would say "Loading" twice. A card that blocks
    /// nothing, or a shell that moves no cursor, still announces.
    @Test func aBlockingCardThatTakesVoiceOversCursorIsNotAnnouncedTwice() {
        let blocking = NetworkActivityOverlaySettings(showDelay: 0, minimumVisibleDuration: 0, interaction: .blocksHost)
        let focusing = Shell(settings: blocking, focusesBlockingCard: true)
        focusing.controller.appear(manager: manager, refreshes: nil)
        let passing = Shell(
            settings: .init(showDelay: 0, minimumVisibleDuration: 0),
            focusesBlockingCard: true
        )
        passing.controller.appear(manager: manager, refreshes: nil)
        let announcing = Shell(settings: blocking)
        announcing.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(focusing.drawn == [true] && focusing.announcements.isEmpty)
        #expect(passing.announcements == [.started])
        #expect(announcing.announcements == [.started])
    }

    @Test func aRefreshDrawsNoSecondSpinner() {
        let refreshes = ScopeOverlayExclusions()
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: refreshes)
        refreshes.begin()
        manager.pushNetworkActivity()  // the refresh's task
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(shell.drawn.isEmpty)
        manager.pushNetworkActivity()  // a request the refresh's action makes
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(shell.drawn.isEmpty, "the system's refresh spinner shows it")
        refreshes.end()
        manager.popNetworkActivity()  // the refresh's task; its request still runs
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.drawn == [true], "drawn for what still loads after the refresh")
    }

    @Test func aRefreshEndingBeforeItsCountArrivesDrawsNothing() {
        // The refresh ends at once in the refresh count, a hop later in the manager's count.
        let refreshes = ScopeOverlayExclusions()
        let shell = Shell(settings: .init(showDelay: 0))
        shell.controller.appear(manager: manager, refreshes: refreshes)
        refreshes.begin()
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        manager.popNetworkActivity()
        refreshes.end()
        scheduler.runPendingWork()
        #expect(shell.drawn.isEmpty)
    }

    @Test func aRefreshRunningWhenTheViewAppearsIsLeftOut() {
        let refreshes = ScopeOverlayExclusions()
        refreshes.begin()
        manager.pushNetworkActivity()
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: refreshes)
        scheduler.advance(by: 5)
        #expect(shell.drawn.isEmpty)
    }

    @Test func disappearingStopsListeningToRefreshes() {
        let refreshes = ScopeOverlayExclusions()
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: refreshes)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        shell.controller.disappear()
        refreshes.begin()
        #expect(shell.controller.model.refreshCount == 0)
    }
}

/// The controller of an output that the manager tells its count (UIKit, AppKit).
@MainActor
@Suite("Overlay controller fed by an output")
struct FedOverlayControllerTests {
    private let scheduler = ManualNetworkIndicatorScheduler()

    private func makeController(_ drawn: @escaping @MainActor (Bool) -> Void) -> NetworkActivityOverlayController {
        let controller = NetworkActivityOverlayController(
            settings: .init(showDelay: 0.5, minimumVisibleDuration: 1),
            accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in })
        )
        controller.planChanged = planWatcher(drawn: { isDrawn, _ in drawn(isDrawn) })
        return controller
    }

    @Test func countsToldByTheManagerDriveTheModelOnTheGivenClock() {
        var drawn: [Bool] = []
        let controller = makeController { drawn.append($0) }
        controller.appear(activeCount: 0, scheduler: scheduler)
        controller.activeCountChanged(2)
        scheduler.advance(by: 0.5)
        controller.activeCountChanged(0)
        scheduler.advance(by: 1)
        #expect(drawn == [true, false])
    }

    @Test func countsBeforeAppearingAreIgnored() {
        var drawn: [Bool] = []
        let controller = makeController { drawn.append($0) }
        controller.activeCountChanged(2)
        scheduler.advance(by: 5)
        #expect(drawn.isEmpty)
    }

    @Test func appearingWithALoadRunningDrawsAfterTheDelay() {
        var drawn: [Bool] = []
        let controller = makeController { drawn.append($0) }
        controller.appear(activeCount: 1, scheduler: scheduler)
        scheduler.advance(by: 0.5)
        #expect(drawn == [true])
    }
}

@MainActor
@Suite("Refresh counts")
struct ScopeOverlayExclusionsTests {
    @Test func beginAndEndAreToldToListeners() {
        let refreshes = ScopeOverlayExclusions()
        var told: [Int] = []
        let id = refreshes.addListener { told.append($0) }
        refreshes.begin()
        refreshes.begin()
        refreshes.end()
        refreshes.removeListener(id)
        refreshes.end()
        #expect(told == [1, 2, 1])
        #expect(refreshes.count == 0)
    }

    @Test func anEndWithoutABeginDoesNothing() {
        let refreshes = ScopeOverlayExclusions()
        var told: [Int] = []
        _ = refreshes.addListener { told.append($0) }
        refreshes.end()
        #expect(refreshes.count == 0)
        #expect(told.isEmpty)
    }
}
