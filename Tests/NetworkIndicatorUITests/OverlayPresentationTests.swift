import Testing

@testable import NetworkIndicatorUI

@Suite("Overlay presentation")
struct OverlayPresentationTests {
    @Test func firstShowAttachesOnceThenFadesIn() {
        var presentation = OverlayPresentation()
        let steps = presentation.visibilityChanged(true)
        #expect(steps == [.attach, .fadeIn])
        #expect(presentation.isAttached)
    }

    @Test func laterShowsNeverAttachAgain() {
        var presentation = OverlayPresentation()
        _ = presentation.visibilityChanged(true)
        let hide = presentation.visibilityChanged(false)
        let hides = presentation.fadeOutFinished()
        let show = presentation.visibilityChanged(true)
        #expect(hide == [.fadeOut])
        #expect(hides)
        #expect(show == [.fadeIn])
    }

    @Test func repeatedValuesDoNothing() {
        var presentation = OverlayPresentation()
        let hiddenAgain = presentation.visibilityChanged(false)
        _ = presentation.visibilityChanged(true)
        let shownAgain = presentation.visibilityChanged(true)
        #expect(hiddenAgain.isEmpty)
        #expect(shownAgain.isEmpty)
    }

    @Test func showDuringFadeOutKeepsTheOverlay() {
        var presentation = OverlayPresentation()
        _ = presentation.visibilityChanged(true)
        _ = presentation.visibilityChanged(false)
        let show = presentation.visibilityChanged(true)
        // The interrupted fade-out's completion must not hide the overlay that shows again.
        let hides = presentation.fadeOutFinished()
        #expect(show == [.fadeIn])
        #expect(!hides)
        #expect(presentation.isOnScreen)
    }

    @Test func finishedFadeOutTakesTheOverlayOffScreen() {
        var presentation = OverlayPresentation()
        _ = presentation.visibilityChanged(true)
        _ = presentation.visibilityChanged(false)
        #expect(presentation.isOnScreen)
        let hides = presentation.fadeOutFinished()
        #expect(hides)
        #expect(!presentation.isOnScreen)
        #expect(!presentation.isShowing)
    }

    @Test func neverToldVisibleNeverAttaches() {
        // A task the start delay absorbed: the output only ever hears `false`.
        var presentation = OverlayPresentation()
        let steps = presentation.visibilityChanged(false)
        #expect(steps.isEmpty)
        #expect(!presentation.isAttached)
        #expect(!presentation.isOnScreen)
    }
}
