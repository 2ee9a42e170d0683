// Apple APIs used, with the availability Apple's documentation gives (the package needs
// macOS 10.15, so none needs an `#available` check):
// - NSView (addSubview(_:), isHidden, alphaValue, window, hitTest(_:), wantsLayer, layer),
//   NSTextField(labelWithString:) (macOS 10.12+), NSStackView (10.9+), NSVisualEffectView with
//   .hudWindow (10.14+) and .behindWindow/.withinWindow blending (10.10+),
//   NSProgressIndicator with .spinning style (10.2+; NSProgressIndicator.Style 10.14+),
//   startAnimation(_:)/stopAnimation(_:), NSFont.systemFont(ofSize:weight:) (10.11+), layout
//   anchors (10.11+).
// - The overlay view's own APIs: see AppKitOverlayCard.swift.
// - NSAnimationContext.runAnimationGroup(_:completionHandler:) (10.12+), animator() (10.5+).
// - NSView.safeAreaLayoutGuide (11.0+, checked), for the light indicator under a toolbar.
// - NSWindow.makeFirstResponder(_:) and firstResponder (10.0+), for the cover's keys;
//   NSTextView.isFieldEditor and NSText.delegate (10.0+), to give a text field its keyboard back.
// - NSEvent.addLocalMonitorForEvents(matching:handler:) and removeMonitor(_:) (10.6+),
//   modifierFlags (10.0+), NSMenu.performKeyEquivalent(with:) (10.0+), for key equivalents.
// - NSAccessibility: setAccessibilityElement(_:), setAccessibilityLabel(_:) (10.10+);
//   announcements: see AccessibilityAnnouncement.swift.
//
// Unsafe code in this file: `nonisolated(unsafe)` on `keyMonitor`, so that the nonisolated
// `deinit` can read it. Why it is correct: it is written on the main actor only, and `deinit`
// runs once nothing else holds the output, so no write can race that last read; the monitor it
// reads is handed to a main-actor task to be removed. Not a speed trick: a `deinit` cannot be
// isolated on the package's floor (SE-0371's isolated deinit needs Swift 6.2 and macOS 15.4).
#if canImport(AppKit) && !canImport(UIKit)
public import AppKit
public import NetworkIndicator

/// An output that shows a spinner and a title, "Loading" by default, over a host view while
/// the manager is loading: the macOS counterpart of the iOS overlay output.
///
/// ```swift
/// final class FeedViewController: NSViewController {
///     let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Feed")
///     private var overlay: NetworkActivityOverlayOutput?
///
///     override func viewDidLoad() {
///         super.viewDidLoad()
///         let output = NetworkActivityOverlayOutput(hostView: view, title: "Loading feed")
///         networkActivity.addOutput(output)
///         overlay = output   // the manager holds outputs weakly
///     }
/// }
/// ```
///
/// The overlay (an `NSProgressIndicator` spinner and a label on a rounded material, centred
/// over the host; a determinate bar and a percentage instead of the spinner while the manager
/// knows how far its tasks are, unless the settings' `showsProgress` is `false`) follows the manager's task count with an ``NetworkActivityOverlaySettings``
/// presentation: drawn after the show delay, kept the minimum time, announced to VoiceOver
/// (queued behind current speech, only while the host is in a visible window with no sheet
/// attached and VoiceOver is running, unless the settings opt out). Everything it shows is
/// decided by a plan made in the package's tested code; this output only applies it. Clicks pass
/// through to the host unless the settings say `interaction: .blocksCard` (the card takes those
/// on it) or `.blocksHost`: while that card is drawn, a cover over the whole host takes every
/// click and scroll, becomes the window's first responder so that typing reaches none of the
/// host's fields, and no key equivalent reaches the host's views (a default button's Return, a
/// Cancel button's Escape, a button's ⌘ shortcut); ⌘ commands still reach the menu bar, and a
/// menu command sent to the first responder goes on to the window, not to the host. Blocking
/// starts with the load, before the card draws, and ends with it; the field that had the
/// keyboard then gets it back. Not blocked: VoiceOver, which still reads and presses the host's
/// controls beside the card (a control pressed without hit-testing, and no view can keep
/// VoiceOver inside itself on macOS): disable what must not run while loading yourself. The cover and the card join the host when the output is made,
/// above the host's subviews of that moment, and stay there, hidden in between: make the output
/// after the host's own subviews.
///
/// Keep the output for as long as the host shows it; the manager holds it weakly, and the
/// output holds the host weakly. Main actor only.
@MainActor
public final class NetworkActivityOverlayOutput: NetworkIndicatorOutput {
    /// The view the overlay covers. Held weakly: once it is gone, the output does nothing.
    public private(set) weak var hostView: NSView?
    /// The overlay shown over the host.
    public let overlayView: NSView

    private let card: AppKitOverlayCard
    /// Takes every click, scroll and key on the host while a `.blocksHost` card is drawn.
    private let cover = AppKitClickCover()
    private let settings: NetworkActivityOverlaySettings
    private let scheduler: any NetworkIndicatorScheduler
    /// The plan applied last (``OverlayPlan``): the only state the views follow.
    private var plan = OverlayPlan.hidden
    /// The responder that had the keyboard when a blocking card's load began (a text field, not
    /// its window's field editor), given back when the load ends.
    private var typingFocus = FocusKeeper<NSResponder>()
    /// The app's key-down monitor while a blocking card's load runs (``BlockedKeys``). Written
    /// on the main actor only; `deinit` reads it last, to remove a monitor still running.
    nonisolated(unsafe) private var keyMonitor = WhileBlocked<Any>()
    /// The overlay's vertical position: centred (the card), or at the top edge (the light
    /// indicator of a host with content).
    private let centerYConstraint: NSLayoutConstraint
    private let topConstraint: NSLayoutConstraint

    /// Whether the host already shows content: the overlay then sits at the top edge, without
    /// its title line, and lets every click through (a light indicator over content that stays
    /// usable) instead of covering the middle. Turned `false` while the light indicator is drawn,
    /// the card takes its place at once, without fading or speaking again; turned `true` while
    /// the card is drawn, the card fades out, and the next load draws the light indicator (turned
    /// `false` again while that load runs, the card comes back). Default `false`. Main actor.
    public var hasContent = false {
        didSet { core.hasContent = hasContent }
    }
    private lazy var core = OverlayOutputCore(
        settings: settings,
        scheduler: scheduler,
        accessibility: .system(
            isSeen: { [weak self] in OverlaySight.of(self?.hostView).isSeen },
            title: { [weak self] in self?.plan.title ?? "" }
        ),
        hostIsGone: { [weak self] in self?.hostView == nil },
        planChanged: { [weak self] plan in self?.apply(plan) }
    )

    /// Creates an output that covers `hostView` with an overlay titled `title`, or "Loading" in
    /// the user's language if `title` is `nil`. Attach it with
    /// `NetworkIndicatorManager.addOutput(_:)` and keep a reference to it.
    ///
    /// - Parameters:
    ///   - hostView: The view to cover; held weakly.
    ///   - title: A key of `bundle`'s `Localizable.strings` (or string catalog), shown and
    ///     announced in the user's language; `nil` for "Loading" in the package's translations.
    ///     Xcode does not extract a literal passed here: prefer the `LocalizedStringResource`
    ///     form on macOS 13 and later.
    ///   - bundle: The bundle that translates `title`; `nil` for the app's main bundle.
    ///   - settings: When the overlay draws, how long it stays, whether it speaks and takes
    ///     clicks.
    ///   - scheduler: The clock of the show delay and the minimum time; leave the default in an
    ///     app.
    public convenience init(
        hostView: NSView,
        title: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings = .default,
        scheduler: any NetworkIndicatorScheduler = MainQueueScheduler()
    ) {
        self.init(
            hostView: hostView,
            resolvedTitle: OverlayLabel(title, bundle: bundle).text(),
            settings: settings,
            scheduler: scheduler
        )
    }

    /// Creates an output that covers `hostView` with an overlay titled `title`: Xcode extracts
    /// it into a String Catalog, and it names its own table and bundle. Otherwise as
    /// ``init(hostView:title:bundle:settings:scheduler:)``.
    @available(macOS 13, *)
    public convenience init(
        hostView: NSView,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings = .default,
        scheduler: any NetworkIndicatorScheduler = MainQueueScheduler()
    ) {
        self.init(hostView: hostView, resolvedTitle: String(localized: title), settings: settings, scheduler: scheduler)
    }

    /// Adds the cover and then the card to the host, hidden, with their constraints: once in
    /// the output's life, above the host's subviews of the moment.
    private init(
        hostView: NSView,
        resolvedTitle: String,
        settings: NetworkActivityOverlaySettings,
        scheduler: any NetworkIndicatorScheduler
    ) {
        let card = AppKitOverlayCard(title: resolvedTitle)
        self.hostView = hostView
        self.settings = settings
        self.scheduler = scheduler
        self.card = card
        overlayView = card
        centerYConstraint = card.centerYAnchor.constraint(equalTo: hostView.centerYAnchor)
        // Below required: while a switch of style activates the centring first, the two never
        // conflict in a way AppKit would log.
        topConstraint = Self.limited(card.topAnchor.constraint(equalTo: Self.topAnchor(of: hostView), constant: 8))
        cover.attach(to: hostView)
        card.translatesAutoresizingMaskIntoConstraints = false
        card.alphaValue = 0
        card.isHidden = true
        hostView.addSubview(card)
        NSLayoutConstraint.activate([
            card.centerXAnchor.constraint(equalTo: hostView.centerXAnchor),
            centerYConstraint,
            // Just below required, as on UIKit: in a host too small for the card, overflow
            // rather than break the card's own constraints.
            Self.limited(card.widthAnchor.constraint(lessThanOrEqualTo: hostView.widthAnchor)),
            Self.limited(card.heightAnchor.constraint(lessThanOrEqualTo: hostView.heightAnchor)),
        ])
        core.title = resolvedTitle
    }

    /// Takes the overlay down if the output is released, drawn or not: the card and the cover
    /// leave the host, so that nothing is left blocking it.
    deinit {
        let views: [NSView] = [card, cover]
        nonisolated(unsafe) let monitor = keyMonitor.resource  // an opaque token of AppKit's
        Task { @MainActor in
            for view in views { view.removeFromSuperview() }
            _ = monitor.map(NSEvent.removeMonitor)
        }
    }

    /// `true`: the overlay follows the count, not the manager's own delays.
    public var receivesActiveTaskCount: Bool { true }

    /// The settings' `showsProgress`: whether the overlay shows a bar and a percentage while
    /// the manager knows how far its tasks are. Read by the manager when the output is added.
    public var receivesFractionCompleted: Bool { core.receivesFractionCompleted }

    /// Shows `fractionCompleted` as a bar and a percentage (or the spinner while it is `nil`),
    /// as the overlay's controller decides. Main actor.
    public func networkIndicatorFractionCompletedDidChange(_ fractionCompleted: Double?) {
        core.fractionCompletedChanged(fractionCompleted)
    }

    /// Starts the presentation from the count told when the output is added, then follows
    /// each new count. Main actor.
    public func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        core.activeTaskCountChanged(activeTaskCount)
    }

    /// Nothing: the overlay follows the count and the manager's `isEnabled`, on its own clock,
    /// not the manager's visibility. Main actor.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

    /// Applies `plan`, the controller's decision, to the views: no rule of its own. While a
    /// `.blocksHost` card's load runs the cover is shown and is the window's first responder, so
    /// that typing reaches no field of the host; when it ends, the field that had the keyboard
    /// gets it back if it is still in the window (otherwise the window's first responder is let
    /// go), unless the app moved the keyboard itself meanwhile.
    private func apply(_ plan: OverlayPlan) {
        let old = self.plan
        self.plan = plan
        let changes = plan.hostChanges(from: old)
        // Shown before it takes the keyboard (AppKit may refuse a hidden view as first
        // responder), and hidden only after it gave the keyboard back (hiding the first
        // responder moves the keyboard to another view of the window).
        cover.isHidden = !(plan.showsCover || old.showsCover)
        let (cover, window, host) = (self.cover, cover.window, hostView)
        typingFocus.apply(
            changes.typingFocus,
            focused: {
                let editor = window?.firstResponder as? NSTextView
                return FocusKeeper.owner(
                    of: window?.firstResponder,
                    isFieldEditor: editor?.isFieldEditor ?? false,
                    client: editor?.delegate as? NSResponder
                )
            },
            // The host's field, or nobody's keyboard (the window itself): not a sidebar's.
            mayTake: { responder in
                responder == nil || responder === window
                    || host.map { (responder as? NSView)?.isDescendant(of: $0) == true } == true
            },
            take: {
                window?.makeFirstResponder(cover)
                return cover
            },
            isStillThere: { ($0 as? NSView)?.window.map { $0 === window } ?? false },
            giveBack: { _ = window?.makeFirstResponder($0) }
        )
        keyMonitor.apply(changes, start: { Self.monitorKeys(blocking: cover) }, stop: NSEvent.removeMonitor)
        cover.isHidden = !plan.showsCover
        card.apply(plan)
        centerYConstraint.isActive = !plan.isAtTopEdge
        topConstraint.isActive = plan.isAtTopEdge
        card.isHidden = plan.isHiddenDuringFade(wasHidden: card.isHidden)
        card.updateSpinner()
        NSAnimationContext.runAnimationGroup { context in
            context.duration = plan.fadeDuration
            card.animator().alphaValue = plan.opacity
        } completionHandler: {
            MainActor.assumeIsolated {
                self.card.isHidden = plan.isHiddenAfterFade(wasHidden: self.card.isHidden, current: self.plan)
                self.card.updateSpinner()
            }
        }
    }

    /// Watches the app's key-down events while `cover` blocks its host, routing each as
    /// ``BlockedKeys`` says: while the cover has the keyboard, the host's views get no key
    /// equivalent and the menu bar still gets ⌘ commands; other windows get everything. The
    /// cover's window is read at each event (the host may join a window after blocking began).
    private static func monitorKeys(blocking cover: NSView) -> Any {
        NSEvent.addLocalMonitorForEvents(matching: .keyDown) { [weak cover] event in
            MainActor.assumeIsolated {
                BlockedKeys.route(
                    isInBlockedWindow: event.window.map { $0 === cover?.window } ?? false,
                    coverHasKeyboard: cover.map { $0.window?.firstResponder === $0 } ?? false,
                    hasCommand: event.modifierFlags.contains(.command)
                ).perform(
                    pass: { event },
                    toMenuBar: { _ = NSApp.mainMenu?.performKeyEquivalent(with: event) }
                )
            }
        } as Any
    }

    /// The top of the host's visible part: below a full-size-content window's toolbar and title
    /// bar (its safe area, macOS 11+), else its top edge.
    private static func topAnchor(of host: NSView) -> NSLayoutYAxisAnchor {
        if #available(macOS 11, *) { return host.safeAreaLayoutGuide.topAnchor }
        return host.topAnchor
    }

    private static func limited(_ constraint: NSLayoutConstraint) -> NSLayoutConstraint {
        constraint.priority = NSLayoutConstraint.Priority(rawValue: 999)
        return constraint
    }
}

/// The output reads its manager (`isEnabled`, the progress snapshot), and `removeOutput` takes
/// its overlay down at once.
extension NetworkActivityOverlayOutput: ManagerAwareOutput {
    package func outputAdded(to manager: NetworkIndicatorManager) {
        // One manager at a time: added to another, the output leaves the first.
        core.added(to: manager)?.removeOutput(self)
    }

    package func outputRemoved(from manager: NetworkIndicatorManager) {
        core.removed(from: manager)
    }

    package var followedManager: NetworkIndicatorManager? { core.followedManager }

    package func managerEnabledChanged(_ isEnabled: Bool) {
        core.enabledChanged()
    }
}
#endif
