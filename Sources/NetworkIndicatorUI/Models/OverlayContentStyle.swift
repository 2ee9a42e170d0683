/// How an overlay draws, in plain Swift so that it is tested on Linux: the card over the
/// content, or, when its screen already shows content, a light indicator that covers nothing.
///
/// A screen that refreshes what it already shows (going back to a loaded feed) should keep its
/// rows readable and usable: the light indicator sits at the top edge (SwiftUI: a small capsule;
/// UIKit and AppKit: the overlay pinned there), never takes a touch, and is announced politely
/// (queued, as every announcement of the overlay). A screen with nothing to show yet gets the
/// card. Content arriving under a drawn card erases the card; content leaving from under the
/// light indicator draws the card in its place, without waiting or speaking again
/// (``OverlayPlan``).
enum OverlayContentStyle: Equatable, Sendable {
    /// The card: spinner (or bar) and title, centred over the content.
    case card
    /// The light indicator at the top edge, with a spinner (or a bar when one applies),
    /// non-blocking. Not "bar", which names the progress bar everywhere else.
    case lightIndicator

    /// The style for a screen that does (`hasContent`) or does not show content.
    init(hasContent: Bool) {
        self = hasContent ? .lightIndicator : .card
    }
}
