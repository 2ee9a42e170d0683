import Testing

@testable import NetworkIndicatorUI

/// The UIKit and AppKit overlay view's shape: the centred card, or the light indicator, a small
/// capsule at the top edge (as SwiftUI's) that covers as little of the first row as it can.
@Suite("Overlay card layout")
struct OverlayCardLayoutTests {
    private func plan(drawn: Bool, _ style: OverlayContentStyle, placement: OverlayContentStyle = .card) -> OverlayPlan
    {
        OverlayPlan(
            isDrawn: drawn,
            style: style,
            interaction: .passesThrough,
            title: "Loading",
            isStillLoading: false,
            progress: .indeterminate,
            fadeDuration: 0.2,
            isLoading: drawn,
            placement: placement
        )
    }

    @Test func theLightIndicatorIsASmallCapsuleAndKeepsItsShapeAsItFades() {
        #expect(OverlayCardLayout(plan(drawn: true, .lightIndicator)) == .lightIndicator)
        #expect(
            OverlayCardLayout(plan(drawn: false, .lightIndicator, placement: .lightIndicator)) == .lightIndicator,
            "an erase keeps the shape it was drawn in"
        )
        #expect(OverlayCardLayout(plan(drawn: true, .card)) == .card)
        #expect(OverlayCardLayout(.hidden) == .card)
    }

    @Test func theCapsuleIsSmallerThanTheCardInEveryMeasure() {
        let (light, card) = (OverlayCardLayout.lightIndicator, OverlayCardLayout.card)
        #expect(light.padding.horizontal < card.padding.horizontal)
        #expect(light.padding.vertical < card.padding.vertical)
        #expect(light.minimumBarWidth < card.minimumBarWidth)
        #expect(light.isRow && !card.isRow, "spinner or bar beside the percentage, not above a title")
        #expect(!light.showsTitle && card.showsTitle)
    }

    @Test func aCapsuleIsRoundedByHalfItsHeightACardBy12Points() {
        #expect(OverlayCardLayout.lightIndicator.cornerRadius(height: 28) == 14)
        #expect(OverlayCardLayout.card.cornerRadius(height: 120) == 12)
        #expect(OverlayCardLayout.lightIndicator.pick(column: "vertical", row: "horizontal") == "horizontal")
        #expect(OverlayCardLayout.card.pick(column: "vertical", row: "horizontal") == "vertical")
    }
}
