/// Everything an overlay shows at one moment, as one plain value that a shell applies as it is:
/// which views are present, what takes input, what VoiceOver reaches, the title, the progress and
/// how fast the change fades. The controller makes it from its state (``init(isDrawn:style:interaction:title:isStillLoading:progress:fadeDuration:)``)
/// and tells it whenever it changes; the SwiftUI, UIKit and AppKit shells turn its fields into view
/// properties and decide nothing themselves. Plain Swift, so that every rule is tested on Linux.
///
/// The rules, each a field below:
/// - The card is drawn for a screen with nothing to show; the light indicator (a spinner or bar
///   at the top edge, covering nothing; SwiftUI shows the title beside it, UIKit and AppKit only
///   read it) for a screen that shows content.
/// - `.blocksHost` blocks the host of a card from the first moment of its load until the load
///   ends: a cover takes every touch and the host's own input (its scrolling, its controls, its
///   keys) is off, during the show delay too (so "Pay" cannot be tapped twice, and a load faster
///   than the delay is blocked as well), and no longer once nothing loads, though the card may
///   stay its minimum time. While the card is drawn and blocks, the host's content is hidden from
///   VoiceOver so that only the card is reached (UIKit and SwiftUI; AppKit has no way to). UIKit
///   has no cover: it turns the host's input off, so a touch on the host or the card falls to
///   the views behind the host. Behind the light indicator the content stays usable, whatever
///   the settings say.
/// - Placement is part of what is drawn, and an erase keeps it: the light indicator fades at the
///   top edge, the card at the centre. Content arriving under a drawn card erases the card; it
///   never morphs into the light indicator. The content going from under the light indicator
///   draws the card in its place, cover included.
/// - Once erased (or released, or gone with its view) nothing is present and the host takes
///   input: ``hidden``.
struct OverlayPlan: Equatable, Sendable {
    /// Whether the card (spinner or bar, and the title) is drawn, centred over the content.
    let showsCard: Bool
    /// Whether the light indicator (spinner or bar) is drawn at the top edge.
    let showsLightIndicator: Bool
    /// Whether the overlay's view sits at the top edge, without its title (the light
    /// indicator's place), rather than centred: kept through an erase, so that what fades out
    /// stays where it was drawn.
    let isAtTopEdge: Bool
    /// Whether the clear cover over the whole host is present and takes every touch (SwiftUI,
    /// AppKit; UIKit turns the host's input off instead, ``hostTakesInput``).
    let showsCover: Bool
    /// Whether the drawn card takes the touches that land on it (`.blocksCard`, `.blocksHost`).
    let cardTakesInput: Bool
    /// Whether the host's own content takes input: touches, scrolling, keys and accessibility
    /// activation. `false` only while a `.blocksHost` card's load runs (drawn or not yet).
    let hostTakesInput: Bool
    /// Whether the host's content is hidden from VoiceOver, so that only the card is reached.
    let hidesHostFromAccessibility: Bool
    /// The title shown and read: the overlay's own, or "Still loading…".
    let title: String
    /// Whether ``title`` is "Still loading…" (SwiftUI shows it in the environment's locale).
    let isStillLoading: Bool
    /// A bar and its percentage, or the spinner.
    let progress: OverlayProgress
    /// Seconds the change to this plan fades over: ``fadeDuration``, or `0`
    /// for an overlay whose view went away.
    let fadeDuration: Double
    /// Which of its controller's plans this is, counted from 1 (0 for one made elsewhere): two
    /// erases alike, told one after the other, are not the same plan to a fade that ends.
    var serial: UInt64 = 0

    /// Seconds of an overlay's fade, in and out, on every platform (SwiftUI, UIKit, AppKit).
    static let fadeDuration: Double = 0.2

    /// The fade for a change the model asked to animate or not (`false`: the view went away,
    /// erase at once).
    static func fadeDuration(animated: Bool) -> Double {
        animated ? fadeDuration : 0
    }

    /// Whether either form of the overlay is drawn.
    var isDrawn: Bool { showsCard || showsLightIndicator }

    /// The opacity of the overlay's view: `1` while drawn, `0` erased.
    var opacity: Double { isDrawn ? 1 : 0 }

    /// Nothing drawn and nothing blocked: before the first draw, after the last erase, and what
    /// a released output applies before it removes its views.
    static let hidden = OverlayPlan(
        isDrawn: false,
        style: .card,
        interaction: .passesThrough,
        title: "",
        isStillLoading: false,
        progress: .indeterminate,
        fadeDuration: 0,
        isLoading: false,
        placement: .card
    )

    /// The plan for an overlay that is drawn (`isDrawn`) in `style`, with the settings'
    /// `interaction`, titled `title` (its own; "Still loading…" replaces it while
    /// `isStillLoading`), showing `progress`, while its work runs (`isLoading`) or not; its view
    /// sits where `placement` draws (the style drawn last, for an erase).
    init(
        isDrawn: Bool,
        style: OverlayContentStyle,
        interaction: NetworkActivityOverlaySettings.Interaction,
        title: String,
        isStillLoading: Bool,
        progress: OverlayProgress,
        fadeDuration: Double,
        isLoading: Bool,
        placement: OverlayContentStyle
    ) {
        let blocks = isLoading && style == .card && interaction.coverTakesTouches
        showsCard = isDrawn && style == .card
        showsLightIndicator = isDrawn && style == .lightIndicator
        isAtTopEdge = (isDrawn ? style : placement) == .lightIndicator
        showsCover = blocks
        cardTakesInput = isDrawn && style == .card && interaction.cardTakesTouches
        hostTakesInput = !blocks
        hidesHostFromAccessibility = blocks && isDrawn
        self.title = isStillLoading ? OverlayStillLoading.title() : title
        self.isStillLoading = isStillLoading
        self.progress = progress
        self.fadeDuration = fadeDuration
    }

    /// Whether the overlay's view is hidden while this plan's fade runs, for a view that was
    /// hidden (`wasHidden`): shown at once for a draw, left as it was for an erase, which fades
    /// out first.
    func isHiddenDuringFade(wasHidden: Bool) -> Bool {
        wasHidden && !isDrawn
    }

    /// Whether the overlay's view is hidden once this plan's fade has finished, `current` being
    /// the plan applied last: hidden after the fade-out of an erase, unless a newer plan came
    /// during the fade (a draw that must stay, or another change, an erase alike included,
    /// whose own fade decides).
    func isHiddenAfterFade(wasHidden: Bool, current: OverlayPlan) -> Bool {
        wasHidden || (current == self && !isDrawn)
    }

    /// What a shell must do to its host, beyond its own views, to go from `old` to this plan.
    func hostChanges(from old: OverlayPlan) -> HostChanges {
        HostChanges(
            takesInput: hostTakesInput == old.hostTakesInput ? nil : hostTakesInput,
            typingFocus: Self.focusChange(taken: !hostTakesInput, wasTaken: !old.hostTakesInput),
            accessibilityFocus: Self.focusChange(
                taken: hidesHostFromAccessibility,
                wasTaken: old.hidesHostFromAccessibility
            )
        )
    }

    /// `.take` when `taken` begins, `.giveBack` when it ends, `nil` otherwise.
    private static func focusChange(taken: Bool, wasTaken: Bool) -> FocusChange? {
        guard taken != wasTaken else { return nil }
        return taken ? .take : .giveBack
    }

    /// A focus taken from the host or given back (``FocusKeeper``).
    enum FocusChange: Equatable, Sendable {
        /// Take it, remembering what had it.
        case take
        /// Give it back to what had it, if that is still on screen.
        case giveBack
    }

    /// The host-wide changes of a new plan: the shells touch the host's own settings and focus
    /// only when blocking begins or ends, so that a host the app disabled itself is left alone
    /// otherwise.
    struct HostChanges: Equatable, Sendable {
        /// The host's new "takes input" setting (UIKit's `isUserInteractionEnabled`), or `nil`
        /// to leave it as it is.
        var takesInput: Bool?
        /// The typing focus (the first responder, its keyboard): taken when blocking begins, with
        /// the load, so that no field of the host keeps typing; given back to the field that had
        /// it when blocking ends.
        var typingFocus: FocusChange?
        /// VoiceOver's cursor: taken to the card when a blocking card draws (the content is
        /// hidden from VoiceOver then), given back to the element it was on when that ends.
        var accessibilityFocus: FocusChange?

        init(takesInput: Bool? = nil, typingFocus: FocusChange? = nil, accessibilityFocus: FocusChange? = nil) {
            self.takesInput = takesInput
            self.typingFocus = typingFocus
            self.accessibilityFocus = accessibilityFocus
        }
    }
}

/// A host's own "takes input" setting (UIKit's `isUserInteractionEnabled`) across a blocking
/// card: saved when blocking begins, given back as it was when blocking ends, so that a host the
/// app had turned off itself stays off. Plain Swift, tested on Linux; the UIKit output keeps one.
struct HostInputKeeper: Equatable, Sendable {
    /// The host's setting when blocking began; `nil` while nothing blocks.
    private var saved: Bool?

    /// The host's setting after `changes`, from its setting now, `current`.
    mutating func apply(_ changes: OverlayPlan.HostChanges, current: Bool) -> Bool {
        switch changes.takesInput {
        case false?:
            saved = saved ?? current
            return false
        case true?:
            defer { saved = nil }
            return saved ?? true
        case nil:
            return current
        }
    }
}
