import Testing

@testable import NetworkIndicatorUI

/// The rule behind "announce only what the user can see": an overlay under a sheet, in a
/// scene in the background or out of a window is not seen.
@Suite("Overlay sight")
struct OverlaySightTests {
    /// A view controller as far as presentations go: what it presents, and whether the
    /// overlay's view is inside its view.
    private final class Controller {
        var presented: Controller?
        var isBeingDismissed = false
        var holdsOverlay = false
    }

    private func isCovered(root: Controller) -> Bool {
        OverlaySight.isCovered(
            root: root,
            presented: { $0.presented },
            isBeingDismissed: { $0.isBeingDismissed },
            holdsOverlay: { $0.holdsOverlay }
        )
    }

    @Test func anOverlayInAWindowOfAnActiveSceneWithNothingOverItIsSeen() {
        #expect(OverlaySight(isInWindow: true).isSeen)
        #expect(OverlaySight(isInWindow: true, scenePhase: .inactive).isSeen, "inactive scenes are still shown")
    }

    @Test func anOverlayUnderAPresentationIsNotSeen() {
        #expect(!OverlaySight(isInWindow: true, isCovered: true).isSeen)
    }

    @Test func anOverlayOutOfAWindowOrInABackgroundSceneIsNotSeen() {
        #expect(!OverlaySight(isInWindow: false).isSeen)
        #expect(!OverlaySight(isInWindow: true, scenePhase: .background).isSeen)
    }

    @Test func aSheetOverTheScreenCoversItsOverlay() {
        let root = Controller()
        root.holdsOverlay = true
        #expect(!isCovered(root: root), "nothing presented")
        let sheet = Controller()
        root.presented = sheet
        #expect(isCovered(root: root))
    }

    @Test func anOverlayInsideTheTopmostPresentationIsNotCovered() {
        let root = Controller()
        let sheet = Controller()
        let cover = Controller()
        root.presented = sheet
        sheet.presented = cover
        cover.holdsOverlay = true
        #expect(!isCovered(root: root))
        sheet.holdsOverlay = true
        cover.holdsOverlay = false
        #expect(isCovered(root: root), "the full-screen cover over the sheet covers the sheet's overlay")
    }

    @Test func aPresentationBeingDismissedNoLongerCovers() {
        let root = Controller()
        root.holdsOverlay = true
        let sheet = Controller()
        root.presented = sheet
        sheet.isBeingDismissed = true
        #expect(!isCovered(root: root))
    }

    /// UIKit's `UIScene.ActivationState` raw values, as the iOS SDK declares them.
    @Test func aUIKitScenesActivationStateGivesItsPhase() {
        #expect(OverlaySight.ScenePhase(sceneActivationState: -1) == .background, "unattached")
        #expect(OverlaySight.ScenePhase(sceneActivationState: 0) == .active, "foreground active")
        #expect(OverlaySight.ScenePhase(sceneActivationState: 1) == .inactive, "foreground inactive")
        #expect(OverlaySight.ScenePhase(sceneActivationState: 2) == .background, "background")
        #expect(OverlaySight.ScenePhase(sceneActivationState: 7) == .active, "a state a later SDK adds")
    }
}
