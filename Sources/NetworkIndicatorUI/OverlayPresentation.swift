/// What an overlay does when its manager says the indicator appears or disappears: the
/// decisions of ``NetworkActivityOverlayOutput``, without UIKit, so that they are tested on
/// Linux.
///
/// The overlay view joins its host once and stays there: it fades in and out and is hidden in
/// between, so its constraints are made once and never pile up. VoiceOver users hear the title
/// when the overlay comes on screen, and not again when a show interrupts a fade-out (the overlay
/// never left the screen). An overlay that never became visible (the manager's start delay
/// absorbed a short task) is never told `true`, so it announces nothing.
struct OverlayPresentation: Equatable, Sendable {
    /// One thing to do to the overlay view, in order.
    enum Step: Equatable, Sendable {
        /// Add the overlay to its host and make its constraints (once in the output's life).
        case attach
        /// Unhide the overlay and fade it in; post an accessibility announcement of the title
        /// if `announces`.
        case fadeIn(announces: Bool)
        /// Fade the overlay out, then call ``OverlayPresentation/fadeOutFinished()``.
        case fadeOut
    }

    /// Whether the manager last said visible.
    private(set) var isShowing = false
    /// Whether the overlay view is in its host.
    private(set) var isAttached = false
    /// Whether the overlay is on screen: from a fade-in until a fade-out that no show
    /// interrupted has finished.
    private(set) var isOnScreen = false

    /// The manager says the indicator is `isVisible`. Returns what to do, in order; nothing if
    /// the overlay already shows that.
    mutating func visibilityChanged(_ isVisible: Bool) -> [Step] {
        guard isVisible != isShowing else { return [] }
        isShowing = isVisible
        guard isVisible else { return [.fadeOut] }
        var steps: [Step] = []
        if !isAttached {
            isAttached = true
            steps.append(.attach)
        }
        steps.append(.fadeIn(announces: !isOnScreen))
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
