import Foundation
import Testing

@testable import NetworkIndicatorUI

@Suite("Overlay placement")
struct OverlayPlacementTests {
    /// Where Auto Layout puts an overlay of natural size `size` under the output's constraints:
    /// centred on the bounds' centre plus `centerOffset`, no larger than `maximumOverlaySize`.
    private func frame(of size: CGSize, in placement: OverlayPlacement) -> CGRect {
        let maximum = placement.maximumOverlaySize ?? size
        let width = min(size.width, maximum.width)
        let height = min(size.height, maximum.height)
        let bounds = placement.bounds
        return CGRect(
            x: bounds.midX + placement.centerOffset.width - width / 2,
            y: bounds.midY + placement.centerOffset.height - height / 2,
            width: width,
            height: height
        )
    }

    private let overlay = CGSize(width: 120, height: 80)

    @Test func plainViewCentresOverlayInItsBounds() {
        let placement = OverlayPlacement(bounds: CGRect(x: 0, y: 0, width: 320, height: 480), insets: .zero)
        #expect(placement.centerOffset == .zero)
        #expect(frame(of: overlay, in: placement) == CGRect(x: 100, y: 200, width: 120, height: 80))
    }

    @Test func scrolledTableCentresOverlayInVisibleBoundsNotInContent() {
        // A table scrolled 2 000 points down its content: its bounds origin is the content
        // offset, so the overlay goes where the user is looking.
        let placement = OverlayPlacement(bounds: CGRect(x: 0, y: 2_000, width: 320, height: 480), insets: .zero)
        #expect(placement.visibleRect == CGRect(x: 0, y: 2_000, width: 320, height: 480))
        #expect(frame(of: overlay, in: placement) == CGRect(x: 100, y: 2_200, width: 120, height: 80))
    }

    @Test func scrollingDoesNotChangeCenterOffset() {
        // The constraints tie the overlay to the scroll view's frame, so the offset from its
        // centre must not depend on the content offset.
        let insets = OverlayPlacement.Insets(top: 100, left: 0, bottom: 34, right: 0)
        let atTop = OverlayPlacement(bounds: CGRect(x: 0, y: -100, width: 390, height: 844), insets: insets)
        let scrolled = OverlayPlacement(bounds: CGRect(x: 0, y: 5_000, width: 390, height: 844), insets: insets)
        #expect(atTop.centerOffset == scrolled.centerOffset)
    }

    @Test func adjustedContentInsetsMoveCentreIntoUncoveredPart() {
        // A navigation bar (top 100) and a home indicator (bottom 20) over a table at rest,
        // whose content offset is then -100.
        let placement = OverlayPlacement(
            bounds: CGRect(x: 0, y: -100, width: 320, height: 480),
            insets: .init(top: 100, left: 0, bottom: 20, right: 0)
        )
        #expect(placement.visibleRect == CGRect(x: 0, y: 0, width: 320, height: 360))
        #expect(placement.centerOffset == CGSize(width: 0, height: 40))
        #expect(frame(of: overlay, in: placement) == CGRect(x: 100, y: 140, width: 120, height: 80))
    }

    @Test func centerOffsetIsHalfTheDifferenceOfOppositeInsets() {
        let placement = OverlayPlacement(
            bounds: CGRect(x: 0, y: 730, width: 320, height: 480),
            insets: .init(top: 100, left: 10, bottom: 20, right: 30)
        )
        #expect(placement.centerOffset == CGSize(width: -10, height: 40))
    }

    @Test func negativeInsetsNeverWidenVisibleRegionBeyondBounds() {
        let placement = OverlayPlacement(
            bounds: CGRect(x: 0, y: 0, width: 320, height: 480),
            insets: .init(top: -500, left: -50, bottom: 0, right: 0)
        )
        #expect(placement.visibleRect == CGRect(x: 0, y: 0, width: 320, height: 480))
    }

    @Test func nonFiniteInsetsCountAsZero() {
        let placement = OverlayPlacement(
            bounds: CGRect(x: 0, y: 0, width: 320, height: 480),
            insets: .init(top: .nan, left: .infinity, bottom: 20, right: 10)
        )
        #expect(placement.visibleRect == CGRect(x: 0, y: 0, width: 310, height: 460))
    }

    @Test func insetsThatCoverAnAxisFallBackToWholeBoundsOnThatAxisOnly() {
        // A keyboard taller than what the navigation bar leaves; the side insets still apply.
        let placement = OverlayPlacement(
            bounds: CGRect(x: 0, y: 0, width: 320, height: 300),
            insets: .init(top: 100, left: 40, bottom: 250, right: 0)
        )
        #expect(placement.visibleRect == CGRect(x: 40, y: 0, width: 280, height: 300))
        #expect(placement.centerOffset == CGSize(width: 20, height: 0))
    }

    @Test func insetsThatExactlyCoverAnAxisFallBackToWholeBounds() {
        // Nothing is left between the bars: centre in the whole height, as when they overlap.
        let placement = OverlayPlacement(
            bounds: CGRect(x: 0, y: 0, width: 320, height: 100),
            insets: .init(top: 60, left: 0, bottom: 40, right: 0)
        )
        #expect(placement.visibleRect == CGRect(x: 0, y: 0, width: 320, height: 100))
    }

    @Test func insetsThatLeaveLessThanAPointStillBoundTheVisibleRegion() {
        // Half a point is left between the bars: that sliver, not the whole height, is visible.
        let placement = OverlayPlacement(
            bounds: CGRect(x: 0, y: 0, width: 320, height: 100),
            insets: .init(top: 60, left: 0, bottom: 39.5, right: 0)
        )
        #expect(placement.visibleRect == CGRect(x: 0, y: 60, width: 320, height: 0.5))
    }

    @Test func overlayLargerThanVisibleRegionShrinksToFitInside() {
        let placement = OverlayPlacement(
            bounds: CGRect(x: 0, y: 500, width: 100, height: 60),
            insets: .init(top: 10, left: 0, bottom: 0, right: 0)
        )
        #expect(placement.maximumOverlaySize == CGSize(width: 100, height: 50))
        let frame = frame(of: CGSize(width: 150, height: 80), in: placement)
        #expect(frame == CGRect(x: 0, y: 510, width: 100, height: 50))
        #expect(placement.visibleRect.contains(frame))
    }

    @Test func hostNotYetLaidOutDoesNotLimitOverlaySize() {
        // An output attached in viewDidLoad may be told `true` before the host has a size.
        let placement = OverlayPlacement(bounds: .zero, insets: .init(top: 100, left: 0, bottom: 34, right: 0))
        #expect(placement.maximumOverlaySize == nil)
        #expect(placement.centerOffset == .zero)
    }

    @Test(arguments: [CGSize(width: 320, height: 0), CGSize(width: 0, height: 568)])
    func hostWithOneEmptyDimensionDoesNotLimitOverlaySize(size: CGSize) {
        let placement = OverlayPlacement(bounds: CGRect(origin: .zero, size: size), insets: .zero)
        #expect(placement.maximumOverlaySize == nil)
    }

    @Test func hostLaidOutSmallerThanAPointStillLimitsOverlaySize() {
        let placement = OverlayPlacement(bounds: CGRect(x: 0, y: 0, width: 0.5, height: 0.5), insets: .zero)
        #expect(placement.maximumOverlaySize == CGSize(width: 0.5, height: 0.5))
    }

    @Test func boundsWithNegativeSizeAreStandardized() {
        let placement = OverlayPlacement(bounds: CGRect(x: 320, y: 480, width: -320, height: -480), insets: .zero)
        #expect(placement.visibleRect == CGRect(x: 0, y: 0, width: 320, height: 480))
        #expect(placement.maximumOverlaySize == CGSize(width: 320, height: 480))
    }

    /// The constraints' constants the UIKit output sets: a table under a 100-point bar and a
    /// 300-point keyboard keeps the overlay 200 points shorter than its frame and 100 points
    /// above its centre; a plain view (its safe-area guide, no insets) needs no constant.
    @Test func guideConstantsCentreAndCapTheOverlayInTheVisiblePart() {
        let table = OverlayPlacement(
            bounds: CGRect(x: 0, y: 900, width: 320, height: 800),
            insets: .init(top: 100, left: 0, bottom: 300, right: 0)
        )
        #expect(table.guideConstants == [0, -100, 0, -400])
        let plain = OverlayPlacement(bounds: CGRect(x: 0, y: 0, width: 320, height: 480), insets: .zero)
        #expect(plain.guideConstants == [0, 0, 0, 0])
        let unlaidOut = OverlayPlacement(bounds: .zero, insets: .init(top: 100, left: 0, bottom: 0, right: 0))
        #expect(unlaidOut.guideConstants == [0, 0, 0, 0], "no size yet: nothing to cap")
    }

    /// By host kind: a scroll view (a table, a collection view) centres in its frame, which does
    /// not scroll, minus its adjusted content insets; any other view in its safe area, whose
    /// guide leaves the bars out already, so no insets apply.
    @Test func aScrollViewCentresInItsFrameMinusItsInsetsAnyOtherViewInItsSafeArea() {
        #expect(OverlayPlacement.centringGuide(scrollViewFrame: "frame", safeArea: "safe area") == "frame")
        #expect(OverlayPlacement.centringGuide(scrollViewFrame: String?.none, safeArea: "safe area") == "safe area")
        let bounds = CGRect(x: 0, y: 900, width: 320, height: 800)
        let insets = OverlayPlacement.Insets(top: 100, left: 0, bottom: 300, right: 0)
        #expect(OverlayPlacement(bounds: bounds, scrollViewInsets: insets).insets == insets)
        #expect(OverlayPlacement(bounds: bounds, scrollViewInsets: nil).insets == .zero)
    }

    @Test func onlyTheConstantsThatChangeAreTouched() {
        #expect(OverlayPlacement.changedIndices(from: [0, -100, 0, -400], to: [0, -100, 0, -400]).isEmpty)
        #expect(OverlayPlacement.changedIndices(from: [0, -100, 0, -400], to: [0, -50, 0, -400]) == [1])
        #expect(OverlayPlacement.changedIndices(from: [1, 2, 3, 4], to: [0, 2, 3, 0]) == [0, 3])
    }
}
