/// How an output's overlay view gets on and off screen once ``OverlayVisibilityModel`` decided
/// to draw or erase it: the view mechanics of `NetworkActivityOverlayOutput` (UIKit and
/// AppKit), without either, so that they are tested on Linux.
///
/// The overlay view joins its host once and stays there: it fades in and out and is hidden in
/// between, so its constraints are made once and never pile up. A draw during a fade-out keeps
/// the overlay where it is.
struct OverlayPresentation: Equatable, Sendable {
    /// One thing to do to the overlay view, in order.
    enum Step: Equatable, Sendable {
        /// Add the overlay to its host and make its constraints (once in the output's life).
        case attach
        /// Unhide the overlay and fade it in.
        case fadeIn
        /// Fade the overlay out, then call ``OverlayPresentation/fadeOutFinished()``.
        case fadeOut
    }

    /// Seconds of an overlay's fade, in and out, on every platform (SwiftUI, UIKit, AppKit).
    static let fadeDuration: Double = 0.2

    /// The fade for a change the model asked to animate or not (`false`: the view went away,
    /// erase at once).
    static func fadeDuration(animated: Bool) -> Double {
        animated ? fadeDuration : 0
    }

    /// Whether the model last said drawn.
    private(set) var isShowing = false
    /// Whether the overlay view is in its host.
    private(set) var isAttached = false
    /// Whether the overlay is on screen: from a fade-in until a fade-out that no show
    /// interrupted has finished.
    private(set) var isOnScreen = false

    /// The model says the overlay is drawn (`isVisible`) or not. Returns what to do, in order;
    /// nothing if the overlay already shows that.
    mutating func visibilityChanged(_ isVisible: Bool) -> [Step] {
        guard isVisible != isShowing else { return [] }
        isShowing = isVisible
        guard isVisible else { return [.fadeOut] }
        var steps: [Step] = []
        if !isAttached {
            isAttached = true
            steps.append(.attach)
        }
        steps.append(.fadeIn)
        isOnScreen = true
        return steps
    }

    /// A fade-out finished. Returns whether to hide the overlay view: `false` when a show came
    /// during the fade, which keeps the overlay where it is.
    mutating func fadeOutFinished() -> Bool {
        guard !isShowing else { return false }
        isOnScreen = false
        return true
    }
}
