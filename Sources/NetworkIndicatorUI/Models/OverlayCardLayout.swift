/// The shape of the UIKit and AppKit overlay view: the card, centred (a spinner or a bar over
/// the title, on a rounded material), or the light indicator, a small capsule at the top edge
/// (a small spinner, or a short bar beside its percentage, no title line, unlike SwiftUI's light
/// indicator), so that it covers as little of the first row as it can. Plain Swift, tested on
/// Linux; the views set their stack, insets and corners from it.
struct OverlayCardLayout: Equatable, Sendable {
    /// Space between the material's edges and its content, in points.
    struct Padding: Equatable, Sendable {
        let horizontal: Double
        let vertical: Double
    }

    /// Whether the spinner or bar and the percentage sit side by side (not stacked).
    let isRow: Bool
    let padding: Padding
    /// Space between the stacked views, in points.
    let spacing: Double
    /// The narrowest the bar may be, in points.
    let minimumBarWidth: Double
    /// Whether the title line is shown (VoiceOver reads the title either way).
    let showsTitle: Bool
    /// Whether the ends are fully round (a capsule) rather than 12-point corners.
    let isCapsule: Bool

    /// The centred card.
    static let card = Self(
        isRow: false,
        padding: Padding(horizontal: 20, vertical: 16),
        spacing: 8,
        minimumBarWidth: 160,
        showsTitle: true,
        isCapsule: false
    )

    /// The light indicator at the top edge: the measures of SwiftUI's capsule.
    static let lightIndicator = Self(
        isRow: true,
        padding: Padding(horizontal: 12, vertical: 6),
        spacing: 8,
        minimumBarWidth: 60,
        showsTitle: false,
        isCapsule: true
    )

    /// The corner radius for a view `height` points tall.
    func cornerRadius(height: Double) -> Double {
        isCapsule ? height / 2 : 12
    }

    /// `row` for the light indicator's row, `column` for the card's stack: the shells' axis,
    /// orientation and control size (small controls in the row).
    func pick<Value>(column: Value, row: Value) -> Value {
        isRow ? row : column
    }
}

extension OverlayCardLayout {
    /// The shape `plan` draws in: the light indicator wherever the view sits at the top edge,
    /// through its fade-out too, the card otherwise.
    init(_ plan: OverlayPlan) {
        self = plan.isAtTopEdge ? .lightIndicator : .card
    }
}
