/// Whether the user can see an overlay now: the condition of each of its VoiceOver
/// announcements, in plain Swift so that it is tested on Linux. The shells only gather the
/// facts (their view's window, the presentations over it, the scene's phase) at the moment of
/// an announcement.
///
/// An overlay is seen only when all three hold:
/// - its view is in a window (a SwiftUI overlay between its appearance and disappearance, a
///   UIKit or AppKit host in a window, and that window shown);
/// - nothing is presented over it: a sheet, a full-screen cover, a popover or an alert of its
///   window that it is not inside of (VoiceOver's focus is in that presentation, and an
///   announcement of the screen under it would speak of something the user cannot see);
/// - its scene is not in the background.
///
/// A fact a shell cannot learn (no view to probe, as on watchOS) counts as seen, as before.
struct OverlaySight: Equatable, Sendable {
    /// The scene's phase, as SwiftUI's `scenePhase` or UIKit's scene activation state says.
    enum ScenePhase: Equatable, Sendable {
        /// In the foreground, taking events.
        case active
        /// In the foreground, not taking events (an incoming call, the app switcher): still
        /// seen.
        case inactive
        /// Not shown.
        case background

        /// The phase of a UIKit scene whose `activationState` has `rawValue`: unattached (-1)
        /// and background (2) are not shown, foreground-inactive (1) is inactive, and
        /// foreground-active (0), or a state a later SDK adds, is active.
        init(sceneActivationState rawValue: Int) {
            switch rawValue {
            case -1, 2: self = .background
            case 1: self = .inactive
            default: self = .active
            }
        }
    }

    /// Whether the overlay's view is in a window that is shown.
    var isInWindow: Bool
    /// Whether a presentation of its window covers it.
    var isCovered: Bool
    /// Its scene's phase.
    var scenePhase: ScenePhase

    init(isInWindow: Bool, isCovered: Bool = false, scenePhase: ScenePhase = .active) {
        self.isInWindow = isInWindow
        self.isCovered = isCovered
        self.scenePhase = scenePhase
    }

    /// Whether the user can see the overlay now.
    var isSeen: Bool {
        isInWindow && !isCovered && scenePhase != .background
    }

    /// Whether a presentation covers an overlay: follows `presented` from `root` (a window's
    /// root view controller) to the topmost presentation that is not being dismissed
    /// (`isBeingDismissed`: a sheet on its way out no longer covers anything), and says `true`
    /// unless that one holds the overlay (`holdsOverlay`). With nothing presented, the root is
    /// the topmost, and the overlay is covered only if the root does not hold it.
    static func isCovered<Node: AnyObject>(
        root: Node,
        presented: (Node) -> Node?,
        isBeingDismissed: (Node) -> Bool,
        holdsOverlay: (Node) -> Bool
    ) -> Bool {
        var topmost = root
        while let next = presented(topmost), next !== topmost, !isBeingDismissed(next) { topmost = next }
        return !holdsOverlay(topmost)
    }
}
