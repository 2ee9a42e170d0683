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
// - NSAccessibility: setAccessibilityElement(_:), setAccessibilityLabel(_:) (10.10+);
//   announcements: see AccessibilityAnnouncement.swift.
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
/// attached and VoiceOver is running, unless the settings opt out). Clicks pass through to the host unless the settings
/// say `interaction: .blocksCard` (the card takes those on it) or `.blocksHost` (a cover over
/// the whole host takes every click and scroll while the overlay is drawn). The overlay joins
/// the host the first time it draws and stays there, hidden in between.
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
    private let settings: NetworkActivityOverlaySettings
    private let scheduler: any NetworkIndicatorScheduler
    private var presentation = OverlayPresentation()
    /// The overlay's vertical position: centred (the card), or at the top edge (the light
    /// indicator of a host with content). Made when the overlay joins the host.
    private var centerYConstraint: NSLayoutConstraint?
    private var topConstraint: NSLayoutConstraint?

    /// Whether the host already shows content: the overlay then sits at the top edge and lets
    /// every click through (a light indicator over content that stays usable) instead of
    /// covering the middle; it moves at once if it is drawn, without fading or speaking again.
    /// Default `false`. Main actor.
    public var hasContent = false {
        didSet {
            core.hasContent = hasContent
            applyStyle()
        }
    }
    private lazy var core = OverlayOutputCore(
        settings: settings,
        scheduler: scheduler,
        accessibility: .system(
            isSeen: { [weak self] in OverlaySight.of(self?.hostView).isSeen },
            title: { [weak self] in self?.card.title ?? "" }
        ),
        drawnChanged: { [weak self] isDrawn, animated in self?.drawnChanged(isDrawn, animated: animated) },
        progressChanged: { [weak self] progress in self?.card.show(progress) }
    )

    /// Creates an output that covers `hostView` with an overlay titled `title`, or "Loading" in
    /// the user's language if `title` is `nil`. Attach it with
    /// `NetworkIndicatorManager.addOutput(_:)` and keep a reference to it.
    ///
    /// - Parameters:
    ///   - hostView: The view to cover; held weakly.
    ///   - title: A key of `bundle`'s `Localizable.strings` (or string catalog), shown and
    ///     announced in the user's language; `nil` for "Loading" in the package's translations.
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

    private init(
        hostView: NSView,
        resolvedTitle: String,
        settings: NetworkActivityOverlaySettings,
        scheduler: any NetworkIndicatorScheduler
    ) {
        self.hostView = hostView
        self.settings = settings
        self.scheduler = scheduler
        card = AppKitOverlayCard(title: resolvedTitle, blocksClicks: settings.interaction.cardTakesTouches)
        overlayView = card
        core.stillLoadingChanged = { [weak self] in self?.card.showsStillLoading = $0 }
    }

    /// Takes the overlay down if the output is released while it shows.
    deinit {
        let overlayView = overlayView
        Task { @MainActor in overlayView.removeFromSuperview() }
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

    /// The overlay follows the count; a change here (the manager disabled or enabled) makes it
    /// read the manager's `isEnabled` again: a disabled manager's overlay never draws. Main
    /// actor.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        core.visibilityChanged(isVisible)
    }

    /// Takes every click on the host while the overlay is drawn, for `.blocksHost`.
    private lazy var cover = AppKitClickCover()

    private func drawnChanged(_ isDrawn: Bool, animated: Bool) {
        guard let host = hostView else { return }
        for step in presentation.visibilityChanged(isDrawn) {
            switch step {
            case .attach:
                if settings.interaction.coverTakesTouches { cover.attach(to: host) }
                card.translatesAutoresizingMaskIntoConstraints = false
                card.alphaValue = 0
                host.addSubview(card)
                let centerY = card.centerYAnchor.constraint(equalTo: host.centerYAnchor)
                NSLayoutConstraint.activate([
                    card.centerXAnchor.constraint(equalTo: host.centerXAnchor),
                    centerY,
                    // Just below required, as on UIKit: in a host too small for the card, overflow
                    // rather than break the card's own constraints.
                    limited(card.widthAnchor.constraint(lessThanOrEqualTo: host.widthAnchor)),
                    limited(card.heightAnchor.constraint(lessThanOrEqualTo: host.heightAnchor)),
                ])
                centerYConstraint = centerY
                topConstraint = card.topAnchor.constraint(equalTo: host.topAnchor, constant: 8)
                applyStyle()
            case .fadeIn:
                card.isHidden = false
                if OverlayContentStyle(hasContent: hasContent).coverTakesTouches(settings) {
                    cover.isHidden = false
                    host.addSubview(cover, positioned: .above, relativeTo: nil)
                }
                host.addSubview(card, positioned: .above, relativeTo: nil)
                card.updateSpinner()
                NSAnimationContext.runAnimationGroup { context in
                    context.duration = OverlayPresentation.fadeDuration
                    card.animator().alphaValue = 1
                }
            case .fadeOut:
                cover.isHidden = true
                NSAnimationContext.runAnimationGroup { context in
                    context.duration = OverlayPresentation.fadeDuration(animated: animated)
                    card.animator().alphaValue = 0
                } completionHandler: {
                    MainActor.assumeIsolated { self.fadeOutFinished() }
                }
            }
        }
    }

    private func limited(_ constraint: NSLayoutConstraint) -> NSLayoutConstraint {
        constraint.priority = NSLayoutConstraint.Priority(rawValue: 999)
        return constraint
    }

    /// Places the overlay for ``hasContent``: centred, taking clicks as the settings say, or at
    /// the top edge, taking none.
    private func applyStyle() {
        let style = OverlayContentStyle(hasContent: hasContent)
        card.blocksClicks = style.cardTakesTouches(settings)
        if !style.coverTakesTouches(settings) { cover.isHidden = true }
        centerYConstraint?.isActive = style == .card
        topConstraint?.isActive = style == .bar
    }

    private func fadeOutFinished() {
        guard presentation.fadeOutFinished() else { return }
        card.isHidden = true
        card.spinner.stopAnimation(nil)
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
}
#endif
