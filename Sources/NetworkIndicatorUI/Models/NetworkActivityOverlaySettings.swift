public import Foundation

/// How an in-app overlay presents a loading state: when it draws, how long it stays, whether
/// it speaks, and whether its card lets touches through.
///
/// Every overlay of the package (SwiftUI, UIKit, AppKit) follows these, for its own screen;
/// give them per overlay, or once for a whole SwiftUI scope with
/// `networkActivityScope(_:settings:)`. They change nothing about the manager itself (its
/// `settings`, whose delays drive the app-wide indicator and the outputs you attach
/// yourself).
///
/// ```swift
/// var settings = NetworkActivityOverlaySettings()
/// settings.showDelay = 0.3
/// settings.interaction = .blocksHost   // a payment form: nothing is tappable while it loads
/// settings.showsProgress = false   // always the spinner, never a bar
/// ```
///
/// ## Why these defaults
///
/// A spinner that blinks on for a load of a few tens of milliseconds is worse than none: it
/// draws the eye and says nothing. The overlay waits ``showDelay`` (0.5 s) before drawing:
/// loads from a cache or a fast network finish inside it and never draw, while a user who
/// waits longer than about a second (the limit beyond which people lose the feeling of an
/// instant response) already sees the spinner by then. Once drawn, it stays at least
/// ``minimumVisibleDuration`` (1 s): long enough to be read as "loading", not as a flash,
/// and short enough not to hold back content that has arrived. (swift-indefinite-loader waits
/// 0.8 s and keeps its loader 1.2 s; a screen overlay sits in the middle of the content the
/// user asked for, so it may come sooner and leave sooner.)
///
/// A value type, usable on any thread.
public struct NetworkActivityOverlaySettings: Equatable, Sendable {
    /// Seconds the screen must be loading before the overlay draws; a load that ends sooner
    /// never draws. Default 0.5. Zero or less draws at once.
    public var showDelay: TimeInterval

    /// Seconds the overlay stays once drawn, even if the load ends sooner. Default 1. Zero or
    /// less erases it as soon as the load ends. Content that arrives under a drawn card (the
    /// view's `hasContent` turning `true` while the load runs) erases it at once, whatever
    /// this says, and nothing is drawn for the rest of that load.
    public var minimumVisibleDuration: TimeInterval

    /// Whether the overlay announces its title to VoiceOver when it draws. Default `true`.
    /// It is announced only while the user can see the overlay (in a window, with no sheet or
    /// full-screen cover presented over it, its scene not in the background) and VoiceOver is
    /// running, queued behind what VoiceOver is saying rather than interrupting it.
    public var announcesActivity: Bool

    /// Announce "Loading complete" when the overlay erases after being drawn at least this many
    /// seconds because its load ended (not because its manager was deallocated, its view went
    /// away, or its card gave way to content that arrived under it, the load running on), with
    /// the same conditions as ``announcesActivity``, which must be `true`;
    /// `nil` never announces the end. Default 5: a VoiceOver user who heard "Loading" and
    /// waited that long wants to know the content is there, while the end of a short load
    /// needs no words.
    public var completionAnnouncementThreshold: TimeInterval?

    /// What the drawn overlay does with touches (clicks): let them through, take those on its
    /// card, or take every touch on the host view. Default ``Interaction/passesThrough``, so
    /// that the user can still scroll, or cancel the load. ``Interaction/blocksHost`` is the
    /// one that acts before the overlay is drawn: it blocks from the first moment of the load,
    /// during the show delay too (see there); the others change nothing until it is drawn.
    public var interaction: Interaction

    /// Whether the overlay shows how far the load is, when the manager knows
    /// (its `progressSnapshot()`, from tasks begun with a `Progress`): a determinate bar with a
    /// percentage, which VoiceOver reads as the overlay's value ("40 percent"), instead of the
    /// spinner. Default `true`. `false` keeps the spinner always, and the overlay then does not
    /// follow the fraction at all. Changes nothing about when the overlay draws or erases.
    public var showsProgress: Bool

    /// Seconds of one uninterrupted load after which the overlay's title becomes a localized
    /// "Still loading…" (announced to VoiceOver once, as ``announcesActivity`` allows), until
    /// the load ends; `nil` keeps the title. Default `nil`: the overlay's title may be the
    /// app's own ("Paying"), which a generic text must not replace unasked; 8 is a good value
    /// where the default title is used (past the ~5 s after which people start to wonder, and
    /// well before they give up). Set it after creating the settings:
    /// `settings.stillLoadingAfter = 8`. `.infinity` is the same as `nil`; a negative value,
    /// or NaN, counts as zero (the title changes as soon as the overlay's load begins).
    public var stillLoadingAfter: TimeInterval? = nil

    /// The defaults: draw after 0.5 s, stay at least 1 s, announce the start, and the end of
    /// loads drawn 5 s or more, let touches through, show progress where it is known.
    public init(
        showDelay: TimeInterval = 0.5,
        minimumVisibleDuration: TimeInterval = 1,
        announcesActivity: Bool = true,
        completionAnnouncementThreshold: TimeInterval? = 5,
        interaction: Interaction = .passesThrough,
        showsProgress: Bool = true
    ) {
        self.showDelay = showDelay
        self.minimumVisibleDuration = minimumVisibleDuration
        self.announcesActivity = announcesActivity
        self.completionAnnouncementThreshold = completionAnnouncementThreshold
        self.interaction = interaction
        self.showsProgress = showsProgress
    }

    /// The defaults, as ``init(showDelay:minimumVisibleDuration:announcesActivity:completionAnnouncementThreshold:interaction:showsProgress:)``
    /// gives them.
    public static let `default` = NetworkActivityOverlaySettings()
}

extension NetworkActivityOverlaySettings {
    /// What a drawn overlay does with touches (clicks on macOS). A plain value.
    public enum Interaction: Equatable, Sendable {
        /// Every touch reaches the content, the card's included. The default.
        case passesThrough
        /// The card takes the touches that land on it; the rest of the host view stays usable.
        case blocksCard
        /// From the first moment of the card's load until the load ends, nothing reaches the
        /// host's content: no touch, scroll, key, VoiceOver or Switch Control action, as
        /// SVProgressHUD's and MBProgressHUD's blocking modes do. Only the drawing waits for the
        /// show delay: a load faster than the delay is blocked and never drawn. Blocking ends
        /// with the load, though the card may stay its minimum time; while the card is drawn,
        /// VoiceOver reads only it in UIKit and SwiftUI (on iOS its cursor moves to the card,
        /// and back to where it was when blocking ends); an AppKit host's controls stay within
        /// VoiceOver's reach. The host's field that was being edited when blocking began
        /// gets the keyboard back when it ends, if it is still in the window (UIKit, AppKit). For a
        /// form that must not be sent twice (a payment), or a screen that must not change while
        /// it saves. Behind the light indicator of a screen with content, nothing is blocked. On
        /// macOS the cover takes clicks, scrolls, typing and the host's key equivalents (a
        /// default button's Return); ⌘ commands still reach the menu bar, and VoiceOver can
        /// still press the host's controls: disable those yourself. In SwiftUI the content is
        /// disabled (`disabled(_:)`, which blocks every kind of action), so its controls look
        /// disabled from the first moment of the load, a fast one's included.
        case blocksHost

        /// Whether the card takes the touches that land on it.
        var cardTakesTouches: Bool { self != .passesThrough }

        /// Whether a cover over the whole host takes every touch.
        var coverTakesTouches: Bool { self == .blocksHost }
    }
}
