import Testing

@testable import NetworkIndicatorUI

/// Which progress an overlay shows as the fraction and the loading state change.
@Suite("Overlay progress model")
struct OverlayProgressModelTests {
    @Test func startsWithTheSpinner() {
        #expect(OverlayProgressModel().shown == .indeterminate)
    }

    @Test func aKnownFractionShowsTheBar() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        #expect(model.progressChanged(0.4, hasIndeterminateWork: false) == OverlayProgress(fractionCompleted: 0.4))
        #expect(model.shown.isDeterminate)
    }

    @Test func noFractionWhileLoadingShowsTheSpinner() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.progressChanged(0.4, hasIndeterminateWork: false)
        #expect(model.progressChanged(nil, hasIndeterminateWork: false) == .indeterminate)
    }

    @Test func theBarFollowsEachNewFraction() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.progressChanged(0.2, hasIndeterminateWork: false)
        #expect(model.progressChanged(0.7, hasIndeterminateWork: false) == OverlayProgress(fractionCompleted: 0.7))
        #expect(model.shown.percent == 70)
    }

    @Test func anUnchangedFractionTellsNothing() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.progressChanged(0.5, hasIndeterminateWork: false)
        #expect(model.progressChanged(0.5, hasIndeterminateWork: false) == nil)
    }

    @Test func theBarStaysWhenTheFractionEndsWithTheLoad() {
        // The scope goes idle (its fraction turns nil) while the overlay keeps its minimum time.
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.progressChanged(1, hasIndeterminateWork: false)
        #expect(model.loadingChanged(false) == OverlayProgress(fractionCompleted: 1), "done: 100 % now")
        #expect(model.progressChanged(nil, hasIndeterminateWork: false) == nil)
        #expect(model.shown == OverlayProgress(fractionCompleted: 1))
    }

    @Test func aNewLoadWithoutProgressShowsTheSpinnerAgain() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.progressChanged(1, hasIndeterminateWork: false)
        _ = model.loadingChanged(false)
        _ = model.progressChanged(nil, hasIndeterminateWork: false)
        #expect(model.loadingChanged(true) == .indeterminate)
    }

    @Test func resetForgetsTheBar() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.progressChanged(0.3, hasIndeterminateWork: false)
        #expect(model.reset() == .indeterminate)
        #expect(model.reset() == nil)
    }

    @Test func aFractionBesideWorkOfUnknownSizeShowsTheSpinner() {
        // 2 of 2 MB downloaded, and a JSON request of unknown size still runs.
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        #expect(model.progressChanged(1, hasIndeterminateWork: true) == nil, "still the spinner")
        #expect(model.shown == .indeterminate)
        #expect(model.progressChanged(0.5, hasIndeterminateWork: false) == OverlayProgress(fractionCompleted: 0.5))
        #expect(model.progressChanged(0.5, hasIndeterminateWork: true) == .indeterminate, "new unmeasured work")
    }

    @Test func neverOneHundredPercentWhileLoading() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.progressChanged(1, hasIndeterminateWork: false)
        #expect(model.shown.percent == 99)
        #expect(model.shown.accessibilityValue() == "99 percent")
        _ = model.progressChanged(0.996, hasIndeterminateWork: false)
        #expect(model.shown.percent == 99)
    }

    @Test func aBarThatEndsShortOfTheEndKeepsItsValue() {
        // A cancelled download: the overlay fades at the value it had, not at 100 %.
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.progressChanged(0.6, hasIndeterminateWork: false)
        #expect(model.loadingChanged(false) == nil)
        #expect(model.shown.percent == 60)
    }
}
