import Testing

@testable import NetworkIndicatorUI

/// The rules of one overlay, event by event, with time passed in by hand.
@Suite("Overlay visibility model")
struct OverlayVisibilityModelTests {
    private static let settings = NetworkActivityOverlaySettings(
        showDelay: 0.5,
        minimumVisibleDuration: 1,
        announcesActivity: true,
        completionAnnouncementThreshold: 5
    )

    private func appearedModel(
        _ settings: NetworkActivityOverlaySettings = settings,
        activeCount: Int = 0,
        refreshCount: Int = 0
    ) -> OverlayVisibilityModel {
        var model = OverlayVisibilityModel(settings: settings)
        _ = model.appeared(activeCount: activeCount, refreshCount: refreshCount, now: 0)
        return model
    }

    // MARK: Show delay

    @Test func aLoadWaitsTheShowDelayBeforeDrawing() {
        var model = appearedModel()
        #expect(model.activeCountChanged(1, now: 10) == [.scheduleTimer(after: 0.5)])
        #expect(!model.isDrawn)
        #expect(model.timerFired(now: 10.5) == [.draw, .announce(.started)])
        #expect(model.isDrawn)
    }

    @Test func aLoadEndingInsideTheShowDelayNeverDraws() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        #expect(model.activeCountChanged(0, now: 10.05) == [.cancelTimer])
        #expect(model.timerFired(now: 10.5).isEmpty, "a stale firing draws nothing")
        #expect(!model.isDrawn)
    }

    @Test func anEarlyTimerFiringDrawsNothing() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        #expect(model.timerFired(now: 10.2).isEmpty)
        #expect(!model.isDrawn)
    }

    @Test func aZeroShowDelayDrawsAtOnce() {
        var model = appearedModel(.init(showDelay: 0))
        #expect(model.activeCountChanged(1, now: 3) == [.draw, .announce(.started)])
    }

    /// "showDelay … Zero or less draws at once." (NetworkActivityOverlaySettings.swift:34)
    @Test func aNegativeShowDelayDrawsAtOnce() {
        var model = appearedModel(.init(showDelay: -1))
        #expect(model.activeCountChanged(1, now: 3) == [.draw, .announce(.started)])
    }

    @Test func moreTasksWhileWaitingDoNotRestartTheDelay() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        #expect(model.activeCountChanged(2, now: 10.3).isEmpty)
        #expect(model.timerFired(now: 10.5) == [.draw, .announce(.started)])
    }

    // MARK: Minimum visible time

    @Test func anEndSoonAfterDrawingWaitsForTheMinimumTime() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        #expect(model.activeCountChanged(0, now: 10.75) == [.scheduleTimer(after: 0.75)])
        #expect(model.isDrawn, "still drawn until the minimum time has passed")
        #expect(model.timerFired(now: 11.5) == [.erase(animated: true)])
        #expect(!model.isDrawn)
    }

    @Test func anEndAfterTheMinimumTimeErasesAtOnce() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        #expect(model.activeCountChanged(0, now: 12) == [.erase(animated: true)])
    }

    @Test func aNewLoadDuringTheMinimumTimeKeepsTheOverlay() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        _ = model.activeCountChanged(0, now: 10.7)
        #expect(model.activeCountChanged(1, now: 10.9) == [.cancelTimer])
        #expect(model.timerFired(now: 11.5).isEmpty)
        #expect(model.isDrawn)
        #expect(model.activeCountChanged(0, now: 13) == [.erase(animated: true)], "measured from the first draw")
    }

    @Test func aZeroMinimumErasesAsSoonAsTheLoadEnds() {
        var model = appearedModel(.init(showDelay: 0, minimumVisibleDuration: 0, announcesActivity: false))
        _ = model.activeCountChanged(1, now: 10)
        #expect(model.activeCountChanged(0, now: 10) == [.erase(animated: true)])
    }

    // MARK: Appearing and disappearing

    @Test func eventsBeforeAppearingAreIgnored() {
        var model = OverlayVisibilityModel(settings: Self.settings)
        #expect(model.activeCountChanged(3, now: 0).isEmpty)
        #expect(model.refreshCountChanged(1, now: 0).isEmpty)
        #expect(model.activeCount == 0)
    }

    @Test func appearingStartsFromTheManagersCurrentCount() {
        var model = OverlayVisibilityModel(settings: Self.settings)
        #expect(model.appeared(activeCount: 2, refreshCount: 0, now: 7) == [.scheduleTimer(after: 0.5)])
        #expect(model.activeCount == 2)
        #expect(model.timerFired(now: 7.5) == [.draw, .announce(.started)])
    }

    @Test func appearingWithNothingRunningDoesNothing() {
        var model = OverlayVisibilityModel(settings: Self.settings)
        #expect(model.appeared(activeCount: 0, refreshCount: 0, now: 7).isEmpty)
        #expect(model.isOnScreen)
    }

    @Test func disappearingErasesAtOnceWithoutAnimationOrAnnouncement() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        #expect(model.disappeared() == [.erase(animated: false)])
        #expect(!model.isDrawn)
        #expect(!model.isOnScreen)
    }

    @Test func disappearingWhileWaitingCancelsTheTimer() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        #expect(model.disappeared() == [.cancelTimer])
        #expect(model.timerFired(now: 11).isEmpty)
    }

    @Test func disappearingDuringTheMinimumTimeCancelsAndErases() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        _ = model.activeCountChanged(0, now: 10.6)
        #expect(model.disappeared() == [.cancelTimer, .erase(animated: false)])
    }

    @Test func disappearingForgetsTheCounts() {
        var model = appearedModel(activeCount: 4, refreshCount: 1)
        _ = model.disappeared()
        #expect(model.activeCount == 0)
        #expect(model.refreshCount == 0)
        #expect(model.activeCountChanged(1, now: 1).isEmpty, "off screen: ignored until it appears")
    }

    @Test func reappearingIgnoresWhatWasDrawnBefore() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        _ = model.disappeared()
        #expect(model.appeared(activeCount: 0, refreshCount: 0, now: 20).isEmpty, "idle now: nothing to draw or erase")
        #expect(!model.isDrawn)
    }

    @Test func appearingAgainWhileOnScreenResetsFirst() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        #expect(
            model.appeared(activeCount: 1, refreshCount: 0, now: 11) == [
                .erase(animated: false), .scheduleTimer(after: 0.5),
            ]
        )
    }

    // MARK: Refreshes

    @Test func aRefreshAloneIsNotDrawn() {
        var model = appearedModel()
        _ = model.refreshCountChanged(1, now: 10)
        #expect(model.activeCountChanged(1, now: 10).isEmpty, "the system's refresh control shows it")
    }

    @Test func aRefreshCountedBeforeItsRefreshIsSubtractedToo() {
        // The manager's count may arrive before the refresh count, or after.
        var model = appearedModel()
        #expect(model.activeCountChanged(1, now: 10) == [.scheduleTimer(after: 0.5)])
        #expect(model.refreshCountChanged(1, now: 10.1) == [.cancelTimer])
        #expect(model.timerFired(now: 10.5).isEmpty)
    }

    @Test func bothCountsChangingTogetherKeepADrawnLoadDrawn() {
        // A refresh's task and the refresh itself end in one step: never one load too few.
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        #expect(model.countsChanged(activeCount: 2, refreshCount: 1, now: 15).isEmpty, "a refresh begins")
        #expect(model.isDrawn)
        #expect(model.countsChanged(activeCount: 1, refreshCount: 0, now: 20).isEmpty)
        #expect(model.isDrawn)
    }

    @Test func workBegunDuringARefreshIsNotDrawnUntilTheRefreshEnds() {
        // The refresh's action makes its own requests: the system's spinner shows them.
        var model = appearedModel()
        _ = model.refreshCountChanged(1, now: 10)
        _ = model.activeCountChanged(1, now: 10)
        #expect(model.activeCountChanged(2, now: 10.1).isEmpty)
        #expect(model.countsChanged(activeCount: 1, refreshCount: 0, now: 12) == [.scheduleTimer(after: 0.5)])
        #expect(model.timerFired(now: 12.5) == [.draw, .announce(.started)], "still loading after it")
    }

    @Test func aShowDelayEndingDuringARefreshDrawsNothing() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.countsChanged(activeCount: 2, refreshCount: 1, now: 10.2)
        #expect(model.timerFired(now: 10.5).isEmpty)
        #expect(!model.isDrawn)
    }

    @Test func appearingDuringARefreshDrawsNothing() {
        var model = OverlayVisibilityModel(settings: Self.settings)
        #expect(model.appeared(activeCount: 1, refreshCount: 1, now: 0).isEmpty)
    }

    // MARK: Announcements

    @Test func optingOutOfAnnouncementsDrawsSilently() {
        var model = appearedModel(.init(showDelay: 0, announcesActivity: false, completionAnnouncementThreshold: 0))
        #expect(model.activeCountChanged(1, now: 0) == [.draw])
        #expect(model.activeCountChanged(0, now: 10) == [.erase(animated: true)])
    }

    @Test func theEndOfALongLoadIsAnnounced() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        #expect(model.activeCountChanged(0, now: 15.5) == [.erase(animated: true), .announce(.finished)])
    }

    @Test func theEndOfALoadShorterThanTheThresholdIsNotAnnounced() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        #expect(model.activeCountChanged(0, now: 15.4) == [.erase(animated: true)])
    }

    @Test func noThresholdNeverAnnouncesTheEnd() {
        var model = appearedModel(.init(showDelay: 0, completionAnnouncementThreshold: nil))
        _ = model.activeCountChanged(1, now: 0)
        #expect(model.activeCountChanged(0, now: 1_000) == [.erase(animated: true)])
    }

    @Test func theEndIsMeasuredWhenTheMinimumTimeErases() {
        var model = appearedModel(.init(showDelay: 0, minimumVisibleDuration: 6, completionAnnouncementThreshold: 5))
        _ = model.activeCountChanged(1, now: 0)
        _ = model.activeCountChanged(0, now: 1)
        #expect(model.timerFired(now: 6) == [.erase(animated: true), .announce(.finished)])
    }

    @Test func aLoadHandedToAChildOverlayIsNotAnnouncedComplete() {
        var model = appearedModel()
        _ = model.activeCountChanged(1, now: 10)
        _ = model.timerFired(now: 10.5)
        #expect(
            model.countsChanged(activeCount: 0, refreshCount: 0, handedOff: true, now: 15.5) == [.erase(animated: true)]
        )
        _ = model.activeCountChanged(1, now: 20)
        _ = model.timerFired(now: 20.5)
        #expect(
            model.activeCountChanged(0, now: 26) == [.erase(animated: true), .announce(.finished)],
            "its own next load"
        )
    }

    /// Covered work beside a load that already ended (a refresh's end changes no own count).
    @Test func aLoadThatEndedItselfIsAnnouncedBesideCoveredWork() {
        var model = appearedModel(.init(showDelay: 0, minimumVisibleDuration: 6, completionAnnouncementThreshold: 5))
        _ = model.countsChanged(activeCount: 1, refreshCount: 0, now: 0)
        _ = model.activeCountChanged(0, now: 1)
        _ = model.countsChanged(activeCount: 0, refreshCount: 0, handedOff: true, now: 2)
        #expect(model.timerFired(now: 6) == [.erase(animated: true), .announce(.finished)])
    }

    @Test func theDefaultsStopFlashing() {
        let defaults = NetworkActivityOverlaySettings.default
        #expect(defaults.showDelay > 0)
        #expect(defaults.minimumVisibleDuration > 0)
        #expect(defaults.announcesActivity)
        #expect(defaults.interaction == .passesThrough, "touches pass through by default")
    }
}
