import Foundation

/// Whether an overlay speaks: the decision behind every overlay's VoiceOver announcement, in
/// plain Swift so that it is tested on Linux.
///
/// An overlay speaks only when all three hold: its settings allow it (the model asks only
/// then), the user can see it (``OverlaySight``: in a window, with no sheet or cover presented
/// over it, its scene not in the background; an overlay of a screen that is not shown must not
/// speak), and VoiceOver is running (nobody else hears announcements, and posting them costs). What it
/// says is queued behind current speech, never interrupting it: the shells post with the
/// speech-queue attribute (UIKit) or a medium priority (AppKit).
enum OverlayAnnouncement {
    /// What to announce.
    enum Kind: Equatable, Sendable {
        /// The overlay drew: its title ("Loading").
        case started
        /// A long load ended: "Loading complete".
        case finished
        /// A load outlasted ``NetworkActivityOverlaySettings/stillLoadingAfter``: "Still
        /// loading…", once per load.
        case stillLoading
    }

    /// Whether to post an announcement now.
    static func shouldPost(isSeen: Bool, isVoiceOverRunning: Bool) -> Bool {
        isSeen && isVoiceOverRunning
    }

    /// Whether to post `kind` now, for an overlay whose shell moved VoiceOver's cursor to its
    /// card (`cursorIsOnCard`: a blocking card in a shell that moves it): the card then speaks
    /// its title itself, and a `.started` announcement would say it twice.
    static func shouldPost(_ kind: Kind, isSeen: Bool, isVoiceOverRunning: Bool, cursorIsOnCard: Bool) -> Bool {
        shouldPost(isSeen: isSeen, isVoiceOverRunning: isVoiceOverRunning) && !(kind == .started && cursorIsOnCard)
    }

    /// What to say for `kind`: the overlay's title when it draws ("Loading, 40 percent" when
    /// it draws with a bar), "Loading complete" from `bundle` (this target's) at the end of a
    /// long load.
    static func text(
        for kind: Kind,
        title: String,
        progress: OverlayProgress,
        bundle: Bundle = .module
    ) -> String {
        switch kind {
        case .started:
            progress.spokenText(title: title, bundle: bundle)
        case .finished:
            bundle.localizedString(forKey: OverlayLabel.completionKey, value: OverlayLabel.completionKey, table: nil)
        case .stillLoading:
            OverlayStillLoading.title(bundle: bundle)
        }
    }
}

extension NetworkActivityOverlayController {
    /// What the shell knows of accessibility, asked at the moment of an announcement.
    struct Accessibility {
        /// Whether the user can see the overlay now (``OverlaySight/isSeen``): in a window, with
        /// no presentation over it, its scene not in the background.
        var isSeen: @MainActor () -> Bool
        /// Whether VoiceOver is running now.
        var isVoiceOverRunning: @MainActor () -> Bool
        /// Posts the announcement, queued behind current speech, with what the overlay shows
        /// (an overlay that draws with a bar says its percentage too).
        var post: @MainActor (OverlayAnnouncement.Kind, OverlayProgress) -> Void
        /// Whether the shell moves VoiceOver's cursor to a blocking card when it draws (UIKit
        /// does): the card then speaks for itself, and is not announced.
        var focusesBlockingCard = false
    }
}
