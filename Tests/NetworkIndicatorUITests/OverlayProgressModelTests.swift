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
        #expect(model.fractionChanged(0.4) == OverlayProgress(fractionCompleted: 0.4))
        #expect(model.shown.isDeterminate)
    }

    @Test func noFractionWhileLoadingShowsTheSpinner() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.fractionChanged(0.4)
        #expect(model.fractionChanged(nil) == .indeterminate)
    }

    @Test func theBarFollowsEachNewFraction() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.fractionChanged(0.2)
        #expect(model.fractionChanged(0.7) == OverlayProgress(fractionCompleted: 0.7))
        #expect(model.shown.percent == 70)
    }

    @Test func anUnchangedFractionTellsNothing() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.fractionChanged(0.5)
        #expect(model.fractionChanged(0.5) == nil)
    }

    @Test func theBarStaysWhenTheFractionEndsWithTheLoad() {
        // The scope goes idle (its fraction turns nil) while the overlay keeps its minimum time.
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.fractionChanged(1)
        _ = model.loadingChanged(false)
        #expect(model.fractionChanged(nil) == nil)
        #expect(model.shown == OverlayProgress(fractionCompleted: 1))
    }

    @Test func aNewLoadWithoutProgressShowsTheSpinnerAgain() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.fractionChanged(1)
        _ = model.loadingChanged(false)
        _ = model.fractionChanged(nil)
        #expect(model.loadingChanged(true) == .indeterminate)
    }

    @Test func resetForgetsTheBar() {
        var model = OverlayProgressModel()
        _ = model.loadingChanged(true)
        _ = model.fractionChanged(0.3)
        #expect(model.reset() == .indeterminate)
        #expect(model.reset() == nil)
    }
}
