import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// The controller follows the manager's fraction and tells its shell a bar or the spinner,
/// without changing when the overlay draws.
@MainActor
@Suite("Overlay controller and progress")
struct OverlayProgressControllerTests {
    /// A shell that records what it is told.
    @MainActor
    private final class Shell {
        var drawn: [Bool] = []
        var shown: [OverlayProgress] = []
        var announced: [OverlayProgress] = []
        var controller: NetworkActivityOverlayController!

        init(settings: NetworkActivityOverlaySettings = .init(showDelay: 0.5, minimumVisibleDuration: 1)) {
            controller = NetworkActivityOverlayController(
                settings: settings,
                accessibility: .init(
                    isSeen: { true },
                    isVoiceOverRunning: { true },
                    post: { [unowned self] _, progress in announced.append(progress) }
                )
            )
            controller.planChanged = planWatcher(
                drawn: { [unowned self] isDrawn, _ in drawn.append(isDrawn) },
                shown: { [unowned self] in shown.append($0) }
            )
        }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    private func progress(_ completed: Int64, of total: Int64) -> Progress {
        let progress = Progress(totalUnitCount: total)
        progress.completedUnitCount = completed
        return progress
    }

    /// A download ends full; the next begins before the next poll: its bar starts at its own
    /// fraction, and VoiceOver hears that, never the finished batch's.
    @Test func aNewBatchsBarStartsAtItsOwnFraction() {
        let shell = Shell(settings: .init(showDelay: 0, minimumVisibleDuration: 0))
        shell.controller.appear(manager: manager, refreshes: nil)
        var first: NetworkActivityToken? = manager.beganNetworkTask(label: "A", progress: progress(100, of: 100))
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        first = nil
        scheduler.runPendingWork()
        let shownBefore = shell.shown.count
        let second = manager.beganNetworkTask(label: "B", progress: progress(10, of: 100))
        scheduler.runPendingWork()
        scheduler.advance(by: 0.3)
        #expect(shell.announced.last?.percent == 10, "\(shell.announced.map(\.percent))")
        #expect(shell.shown.dropFirst(shownBefore).map(\.percent) == [10], "\(shell.shown.map(\.percent))")
        _ = first
        withExtendedLifetime(second) {}
    }

    @Test func aTaskWithProgressShowsTheBar() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        let token = manager.beganNetworkTask(label: "Download", progress: progress(40, of: 100))
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        #expect(shell.controller.progress == OverlayProgress(fractionCompleted: 0.4))
        #expect(shell.shown.last?.percent == 40)
        withExtendedLifetime(token) {}
    }

    @Test func theBarFollowsTheTasksProgress() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        let download = progress(10, of: 100)
        let token = manager.beganNetworkTask(label: "Download", progress: download)
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        download.completedUnitCount = 70
        scheduler.advance(by: 0.1)
        #expect(shell.shown.map(\.percent) == [10, 70])
        withExtendedLifetime(token) {}
    }

    @Test func aTaskWithoutProgressKeepsTheSpinner() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 2)
        #expect(shell.drawn == [true])
        #expect(shell.shown.isEmpty)
        #expect(shell.controller.progress == .indeterminate)
    }

    @Test func progressDoesNotChangeWhenTheOverlayDrawsOrErases() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        let download = progress(0, of: 100)
        var token: NetworkActivityToken? = manager.beganNetworkTask(label: "Download", progress: download)
        scheduler.runPendingWork()
        for _ in 0..<4 {
            download.completedUnitCount += 20
            scheduler.advance(by: 0.1)
        }
        #expect(shell.drawn.isEmpty, "0.4 s: still inside the show delay")
        scheduler.advance(by: 0.1)
        #expect(shell.drawn == [true], "drawn at 0.5 s, as without progress")
        token = nil
        scheduler.runPendingWork()
        scheduler.advance(by: 0.9)
        #expect(shell.drawn == [true], "kept the minimum time")
        scheduler.advance(by: 0.1)
        #expect(shell.drawn == [true, false])
        _ = token
    }

    @Test func theBarStaysUntilTheOverlayIsErasedAfterTheLoad() {
        let shell = Shell(settings: .init(showDelay: 0, minimumVisibleDuration: 1))
        shell.controller.appear(manager: manager, refreshes: nil)
        let download = progress(100, of: 100)
        var token: NetworkActivityToken? = manager.beganNetworkTask(label: "Download", progress: download)
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        token = nil
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.drawn == [true], "still inside the minimum time")
        #expect(shell.controller.progress == OverlayProgress(fractionCompleted: 1))
        _ = token
    }

    /// Issue 63, item 10: a download that finishes between two polls (last seen at 73 %) ends
    /// at 100 % as the overlay stays and fades, not frozen at 73 %; one that failed or was
    /// cancelled keeps where it was.
    @Test func aLoadThatCompletesBetweenPollsEndsAtAFullBar() {
        let (shell, download, token) = downloadLastReadAt73Percent()
        download.completedUnitCount = 100
        token.value = nil
        scheduler.runPendingWork()
        #expect(shell.drawn == [true], "still inside the minimum time")
        #expect(shell.shown.last?.percent == 100)
    }

    @Test func aLoadThatFailsBetweenPollsKeepsItsLastBar() {
        let (shell, download, token) = downloadLastReadAt73Percent()
        download.cancel()
        token.value = nil
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        #expect(shell.shown.last?.percent == 73, "a cancelled load never reads as done")
    }

    /// A download drawn at once, last read at 73 %, its token in a box to release.
    private func downloadLastReadAt73Percent() -> (Shell, Progress, Box<NetworkActivityToken?>) {
        let shell = Shell(settings: .init(showDelay: 0, minimumVisibleDuration: 1))
        shell.controller.appear(manager: manager, refreshes: nil)
        let download = progress(0, of: 100)
        let token = Box<NetworkActivityToken?>(manager.beganNetworkTask(label: "Download", progress: download))
        scheduler.runPendingWork()
        download.completedUnitCount = 73
        scheduler.advance(by: 0.1)
        #expect(shell.shown.last?.percent == 73)
        return (shell, download, token)
    }

    /// A value the test can let go of later.
    private final class Box<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    @Test func hidingProgressKeepsTheSpinner() {
        let shell = Shell(settings: .init(showsProgress: false))
        shell.controller.appear(manager: manager, refreshes: nil)
        let token = manager.beganNetworkTask(label: "Download", progress: progress(40, of: 100))
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(shell.drawn == [true])
        #expect(shell.shown.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func disappearingGoesBackToTheSpinner() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        let token = manager.beganNetworkTask(label: "Download", progress: progress(40, of: 100))
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        shell.controller.disappear()
        #expect(shell.shown.last == .indeterminate)
        withExtendedLifetime(token) {}
    }

    @Test func theStartAnnouncementHearsTheBar() {
        let shell = Shell()
        shell.controller.appear(manager: manager, refreshes: nil)
        let token = manager.beganNetworkTask(label: "Download", progress: progress(40, of: 100))
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.announced == [OverlayProgress(fractionCompleted: 0.4)])
        withExtendedLifetime(token) {}
    }

    @Test func anOutputsFractionShowsTheBar() {
        let shell = Shell()
        shell.controller.appear(activeCount: 1, scheduler: scheduler)
        shell.controller.fractionCompleted(0.4)
        #expect(shell.shown == [OverlayProgress(fractionCompleted: 0.4)])
        shell.controller.fractionCompleted(nil)
        #expect(shell.shown.last == .indeterminate, "still loading: indeterminate work")
    }

    @Test func aFractionBeforeAppearingIsIgnored() {
        let shell = Shell()
        shell.controller.fractionCompleted(0.4)
        #expect(shell.shown.isEmpty)
    }

    /// The light indicator of a screen with content (SwiftUI's capsule, the UIKit and AppKit
    /// top-edge card) draws what the controller decides, as the card does: a bar only while
    /// everything running is measured, kept when the style switches.
    @Test func aScreenWithContentShowsTheBarOnlyWhileEverythingRunningIsMeasured() {
        let shell = Shell()
        shell.controller.hasContent = true
        shell.controller.appear(manager: manager, refreshes: nil)
        let token = manager.beganNetworkTask(label: "Download", progress: progress(40, of: 100))
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(shell.controller.style == .lightIndicator)
        #expect(shell.controller.progress == OverlayProgress(fractionCompleted: 0.4))
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        #expect(shell.controller.progress == .indeterminate, "work of unknown size beside it")
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        shell.controller.hasContent = false
        #expect(shell.controller.progress == OverlayProgress(fractionCompleted: 0.4), "kept across the switch")
        withExtendedLifetime(token) {}
    }
}

/// "As it fades, the bar shows 100 %" (HowOverlaysDecide.md) for a load that ends complete after
/// the minimum time, when the erase would come in the same pass as the last step to 100 %.
/// SwiftUI builds the card (and the light indicator) only while the plan draws it, and fades
/// out the view it last rendered: the full bar must be drawn in a turn of the main queue before
/// the erase, not only carried by the erase plan.
@MainActor
@Suite("A complete load fades at 100 %")
struct OverlayFadeAtFullTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() { manager = NetworkIndicatorManager(scheduler: scheduler) }

    @Test(arguments: [false, true])
    func theFullBarIsDrawnInATurnBeforeTheErase(hasContent: Bool) {
        var told: [(plan: OverlayPlan, turn: Int)] = []
        let controller = NetworkActivityOverlayController(
            settings: .init(showDelay: 0.5, minimumVisibleDuration: 1),
            accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in })
        )
        controller.planChanged = { [scheduler] in told.append(($0, scheduler.executedWorkCount)) }
        controller.hasContent = hasContent
        controller.appear(manager: manager, refreshes: nil)
        let download = Progress(totalUnitCount: 100)
        download.completedUnitCount = 10
        var token: NetworkActivityToken? = manager.beganNetworkTask(label: "Download", progress: download)
        scheduler.runPendingWork()
        scheduler.advance(by: 0.6)
        #expect(controller.plan.isDrawn)
        download.completedUnitCount = 100
        scheduler.advance(by: 2)  // every unit arrived; the load runs past the minimum time
        #expect(controller.plan.progress.percent == 99, "never 100 % while loading")
        token = nil
        scheduler.runPendingWork()
        scheduler.advance(by: 2)
        withExtendedLifetime(token) {}

        let drawsIt: (OverlayPlan) -> Bool = { hasContent ? $0.showsLightIndicator : $0.showsCard }
        guard let erase = told.lastIndex(where: { !$0.plan.isDrawn }), erase > 0 else {
            Issue.record("never erased")
            return
        }
        let lastDrawn = told[erase - 1]
        #expect(drawsIt(lastDrawn.plan))
        #expect(lastDrawn.plan.progress.percent == 100, "what SwiftUI fades out")
        #expect(told[erase].plan.progress.percent == 100)
        #expect(told[erase].turn > lastDrawn.turn, "drawn full in a turn of its own")
        #expect(told[erase].plan.fadeDuration > 0, "and it fades")
    }

    /// A new load that begins during the hold (another thread's, landing just as the hold is
    /// enqueued) is not drawn, nor blocking, before its own show delay.
    @Test func aLoadBegunDuringTheHoldWaitsForItsShowDelay() {
        let scheduler = HookedScheduler()
        var told: [(plan: OverlayPlan, now: Double)] = []
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let controller = NetworkActivityOverlayController(
            settings: .init(showDelay: 0.5, minimumVisibleDuration: 1, interaction: .blocksHost),
            accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in })
        )
        controller.planChanged = { [scheduler] in told.append(($0, scheduler.now)) }
        controller.appear(manager: manager, refreshes: nil)
        let download = Progress(totalUnitCount: 100)
        download.completedUnitCount = 10
        var token: NetworkActivityToken? = manager.beganNetworkTask(label: "Download", progress: download)
        scheduler.base.runPendingWork()
        scheduler.base.advance(by: 0.6)
        download.completedUnitCount = 100
        scheduler.base.advance(by: 2)
        token = nil
        let next = LockedState<NetworkActivityToken?>(nil)
        // The next enqueue after the load's end is the hold's.
        scheduler.beforeNextEnqueue { [manager] in next.withLock { $0 = manager.beganNetworkTask(label: "Next") } }
        scheduler.base.runPendingWork()
        let endedAt = scheduler.now
        let early = told.filter { $0.now == endedAt && $0.plan.isDrawn && $0.plan.progress.percent != 100 }
        #expect(early.isEmpty, "the next load drawn before its show delay")
        #expect(!told.contains { $0.now == endedAt && $0.plan.hidesHostFromAccessibility })
        scheduler.base.advance(by: 0.6)
        #expect(controller.plan.isDrawn, "the next load draws after its delay")
        withExtendedLifetime(token) {}
    }
}

/// A manual scheduler whose next `enqueue` first runs a hook: another thread's call landing
/// just as that work is enqueued.
private final class HookedScheduler: NetworkIndicatorScheduler, Sendable {
    let base = ManualNetworkIndicatorScheduler()
    private let hook = LockedState<(@Sendable () -> Void)?>(nil)

    func beforeNextEnqueue(_ body: @escaping @Sendable () -> Void) {
        hook.withLock { $0 = body }
    }

    var now: TimeInterval { base.now }

    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        let body = hook.withLock { hook in
            defer { hook = nil }
            return hook
        }
        body?()
        base.enqueue(work)
    }

    func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        base.schedule(after: delay, repeating: interval, leeway: leeway, work)
    }
}
