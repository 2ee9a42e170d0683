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

    /// At the end of a load, a bar whose batch had every unit shows 100 %; asked only then.
    @Test func aBarWhoseBatchCompletedEndsFull() {
        var asked = 0
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true) {
            asked += 1
            return true
        }
        _ = model.progressChanged(0.73, hasIndeterminateWork: false)
        #expect(
            model.loadingChanged(false) {
                asked += 1
                return true
            } == OverlayProgress(fractionCompleted: 1)
        )
        #expect(asked == 1, "not asked when loading begins")

        var failed = OverlayProgressModel()
        _ = failed.loadingChanged(true)
        _ = failed.progressChanged(0.73, hasIndeterminateWork: false)
        #expect(failed.loadingChanged(false) { false } == nil, "kept at 73 %")
        #expect(failed.shown == OverlayProgress(fractionCompleted: 0.73))

        var spinner = OverlayProgressModel()
        _ = spinner.loadingChanged(true)
        #expect(spinner.loadingChanged(false) { true } == nil, "a spinner stays a spinner")
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
