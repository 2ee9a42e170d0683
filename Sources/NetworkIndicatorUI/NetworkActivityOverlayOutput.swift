// Apple APIs used, with the availability Apple's documentation gives (the package needs iOS 13
// and tvOS 13, so none needs an `#available` check):
// - UIView.addSubview(_:), bounds, alpha, isHidden, safeAreaLayoutGuide (iOS 11.0+),
//   translatesAutoresizingMaskIntoConstraints (iOS 6.0+, tvOS 9.0+) and
//   UIView.animate(withDuration:animations:completion:) (iOS 4.0+, tvOS 9.0+).
// - NSLayoutConstraint (constant, priority, isActive, activate(_:)), UILayoutPriority and
//   layout anchors (iOS 9.0+, tvOS 9.0+).
// - UIView.safeAreaInsets, UIScrollView.adjustedContentInset and UIScrollView.frameLayoutGuide
//   (iOS 11.0+, tvOS 11.0+); UIView.window, isUserInteractionEnabled (iOS 2.0+).
// - Announcements: see AccessibilityAnnouncement.swift (iOS 11.0+).
#if canImport(UIKit) && !os(watchOS)
public import Foundation
public import NetworkIndicator
public import UIKit

/// An output that shows an overlay card over a host view while its manager is
/// loading: the "Loading" overlay over a table, for apps whose status bar shows no spinner.
///
/// The overlay is centred in the part of the host the user can see. Over a plain view it is
/// laid out by constraints to the host's safe-area layout guide, so it follows rotation, bars
/// and size changes by itself. Over a scroll view (a table or collection view) it is centred in
/// the visible bounds minus the adjusted content insets, not in the middle of the content, and
/// stays there while the content scrolls; the insets are not a layout guide, so call
/// ``updatePlacement()`` from `viewDidLayoutSubviews()` for such a host.
///
/// The overlay follows the manager's task count with an ``NetworkActivityOverlaySettings``
/// presentation: it draws after the show delay (a fast load never flashes), stays the minimum
/// time, and, while the host is in a window with nothing presented over it and VoiceOver is
/// running, announces its title queued behind current speech (unless the settings opt out). It lets touches through unless
/// the settings' `interaction` says `.blocksCard` (the card takes those on it) or `.blocksHost`
/// (a clear cover over the whole host takes every touch while the overlay is drawn). Each time
/// it draws, the overlay (and the cover) move to the front of the host's subviews: UIKit
/// hit-tests in subview order, and a table or collection view adds its rows as it scrolls. While the manager knows how far its tasks are (its
/// `progressSnapshot()`), the overlay shows a `UIProgressView` and a rounded-down percentage
/// instead of the spinner, read by VoiceOver as its value, unless the settings'
/// `showsProgress` is `false`. The overlay joins the host the first time it draws
/// and stays there, hidden in between, with constraints made once.
///
/// The manager holds its outputs weakly, so keep the output for as long as the host shows it,
/// typically in a property of the view controller; once the output is released the manager
/// tells it nothing more and the overlay goes away. The output holds the host weakly and never
/// keeps it alive.
///
/// ```swift
/// final class FeedViewController: UITableViewController {
///     let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Feed")  // the screen's
///     private var overlay: NetworkActivityOverlayOutput?
///
///     override func viewDidLoad() {
///         super.viewDidLoad()
///         let output = NetworkActivityOverlayOutput(hostView: tableView)
///         networkActivity.addOutput(output)
///         overlay = output
///     }
///
///     override func viewDidLayoutSubviews() {
///         super.viewDidLayoutSubviews()
///         overlay?.updatePlacement()   // a scroll view's insets: bars, the keyboard
///     }
/// }
/// ```
///
/// Main actor only.
@MainActor
public final class NetworkActivityOverlayOutput: NetworkIndicatorOutput {
    /// The overlay shown over the host (its card: a spinner or a progress bar, and a title).
    /// Add it to no other view; its colours follow the system's materials.
    public var overlayView: UIView { card }

    /// The card itself, which this output places, fills and fades.
    let card: NetworkActivityOverlayView
    /// The view the overlay covers. Held weakly: once it is gone, the output does nothing.
    public private(set) weak var hostView: UIView?

    private var presentation = OverlayPresentation()
    private let settings: NetworkActivityOverlaySettings
    private let scheduler: any NetworkIndicatorScheduler
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
    /// For a scroll-view host: centre x and y (on its frame layout guide), then maximum width
    /// and height, whose constants ``updatePlacement()`` keeps current. Made once.
    private var scrollConstraints: [NSLayoutConstraint] = []
    /// A clear view over the whole host that takes every touch while the overlay is drawn;
    /// made only for `.blocksHost`.
    private lazy var coverView = UIView()

    /// The overlay's vertical position: centred (the card), or at the top edge (the light
    /// indicator of a host with content). Made with the others.
    private var centerYConstraint: NSLayoutConstraint?
    private var topConstraint: NSLayoutConstraint?
    /// The overlay's own title, shown again when "Still loading…" ends.
    private lazy var ownTitle = card.title

    /// Whether the host already shows content: the overlay then sits at the top edge and lets
    /// every touch through (a light indicator over rows that stay usable) instead of covering
    /// the middle; it moves at once if it is drawn, without fading or speaking again. Default
    /// `false`. Main actor.
    public var hasContent = false {
        didSet {
            core.hasContent = hasContent
            applyStyle()
        }
    }

    /// The card, or the light indicator of a host with content.
    private var style: OverlayContentStyle { OverlayContentStyle(hasContent: hasContent) }

    /// Creates an output that covers `hostView` with an overlay titled `title`, or "Loading" in
    /// the user's language if `title` is `nil`. Attach it with
    /// `NetworkIndicatorManager.addOutput(_:)` and keep a reference to it.
    ///
    /// - Parameters:
    ///   - hostView: The view to cover; held weakly.
    ///   - title: A key of `bundle`'s `Localizable.strings` (or string catalog), shown and
    ///     announced in the user's language (the key itself where there is no translation);
    ///     `nil` for "Loading" in the package's translations.
    ///   - bundle: The bundle that translates `title`; `nil` for the app's main bundle.
    ///   - settings: When the overlay draws, how long it stays, whether it speaks and takes
    ///     touches.
    ///   - scheduler: The clock of the show delay and the minimum time; leave the default in an
    ///     app, pass a test's manual scheduler in a test.
    public init(
        hostView: UIView,
        title: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings = .default,
        scheduler: any NetworkIndicatorScheduler = MainQueueScheduler()
    ) {
        self.hostView = hostView
        self.card = NetworkActivityOverlayView(title: OverlayLabel(title, bundle: bundle).text())
        self.settings = settings
        self.scheduler = scheduler
        card.isUserInteractionEnabled = settings.interaction.cardTakesTouches
        core.stillLoadingChanged = { [weak self] in self?.stillLoadingChanged($0) }
    }

    /// Creates an output that covers `hostView` with an overlay titled `title`: Xcode extracts
    /// it into a String Catalog, and it names its own table and bundle. Otherwise as
    /// ``init(hostView:title:bundle:settings:scheduler:)``.
    ///
    /// ```swift
    /// let output = NetworkActivityOverlayOutput(hostView: tableView, title: LocalizedStringResource("Loading feed"))
    /// ```
    @available(iOS 16, tvOS 16, *)
    public convenience init(
        hostView: UIView,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings = .default,
        scheduler: any NetworkIndicatorScheduler = MainQueueScheduler()
    ) {
        self.init(hostView: hostView, title: nil, settings: settings, scheduler: scheduler)
        card.title = String(localized: title)
    }

    /// Takes the overlay down if the output is released while it shows, so that dropping the
    /// output is enough to stop it.
    deinit {
        let card = card
        Task { @MainActor in card.removeFromSuperview() }
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

    /// Starts the overlay's presentation from the count the manager tells it when added, then
    /// follows each new count. Main actor.
    public func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        core.activeTaskCountChanged(activeTaskCount)
    }

    /// The overlay follows the count; a change here (the manager disabled or enabled) makes it
    /// read the manager's `isEnabled` again: a disabled manager's overlay never draws. Main
    /// actor.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        core.visibilityChanged(isVisible)
    }

    /// Fades the overlay in over the host, or out (at once if not `animated`).
    private func drawnChanged(_ isDrawn: Bool, animated: Bool) {
        guard let host = hostView else { return }
        for step in presentation.visibilityChanged(isDrawn) {
            switch step {
            case .attach:
                attach(to: host)
            case .fadeIn:
                card.isHidden = false
                if style.coverTakesTouches(settings) { coverView.isHidden = false }
                bringToFront(in: host)
                updatePlacement()
                UIView.animate(withDuration: OverlayPresentation.fadeDuration) { self.card.alpha = 1 }
            case .fadeOut:
                if settings.interaction.coverTakesTouches { coverView.isHidden = true }
                UIView.animate(withDuration: OverlayPresentation.fadeDuration(animated: animated)) {
                    self.card.alpha = 0
                } completion: { _ in
                    if self.presentation.fadeOutFinished() { self.card.isHidden = true }
                }
            }
        }
    }

    /// Centres the overlay again in a scroll view's visible region. For a scroll-view host
    /// (table and collection views included), call it from `viewDidLayoutSubviews()`, so that
    /// the overlay follows changes of the host's size and adjusted content insets (rotation,
    /// bars, the keyboard) while it shows; the output also calls it each time the overlay
    /// appears. For any other host it does nothing and need not be called: constraints to the
    /// safe-area layout guide keep the overlay in place. Touches no constraint whose value stays
    /// the same, so calling it on every layout pass costs little.
    public func updatePlacement() {
        guard presentation.isShowing, let host = hostView as? UIScrollView, scrollConstraints.count == 4 else {
            return
        }
        bringToFront(in: host)
        let insets = host.adjustedContentInset
        let placement = OverlayPlacement(
            bounds: host.bounds,
            insets: .init(top: insets.top, left: insets.left, bottom: insets.bottom, right: insets.right)
        )
        let maximum = placement.maximumOverlaySize
        let values = [
            placement.centerOffset.width, placement.centerOffset.height,
            maximum?.width ?? 0, maximum?.height ?? 0,
        ]
        for (constraint, value) in zip(scrollConstraints, values) where constraint.constant != value {
            constraint.constant = value
        }
        for constraint in scrollConstraints[2...] where constraint.isActive != (maximum != nil) {
            constraint.isActive = maximum != nil
        }
    }

    /// Puts the cover (if any) and then the overlay above every other subview of `host`, which
    /// hit-tests its subviews from the last: rows a table adds later would otherwise take the
    /// touches meant for the cover, and draw over the overlay.
    private func bringToFront(in host: UIView) {
        guard host.subviews.last !== overlayView else { return }
        if settings.interaction.coverTakesTouches { host.bringSubviewToFront(coverView) }
        host.bringSubviewToFront(overlayView)
    }

    /// Shows "Still loading…" as the title, or the overlay's own title again.
    private func stillLoadingChanged(_ isStillLoading: Bool) {
        if isStillLoading { ownTitle = card.title }
        card.title = isStillLoading ? OverlayStillLoading.title() : ownTitle
    }

    /// Places the overlay for ``hasContent``: centred, taking touches as the settings say, or at
    /// the top edge, taking none.
    private func applyStyle() {
        card.isUserInteractionEnabled = style.cardTakesTouches(settings)
        if !style.coverTakesTouches(settings) { coverView.isHidden = true }
        centerYConstraint?.isActive = style == .card
        topConstraint?.isActive = style == .bar
    }

    /// Adds the overlay to `host`, hidden, with its constraints: once in the output's life.
    private func attach(to host: UIView) {
        if settings.interaction.coverTakesTouches {
            coverView.backgroundColor = .clear
            coverView.isHidden = true
            coverView.translatesAutoresizingMaskIntoConstraints = false
            host.addSubview(coverView)
            let guide = (host as? UIScrollView)?.frameLayoutGuide
            NSLayoutConstraint.activate([
                coverView.leadingAnchor.constraint(equalTo: guide?.leadingAnchor ?? host.leadingAnchor),
                coverView.trailingAnchor.constraint(equalTo: guide?.trailingAnchor ?? host.trailingAnchor),
                coverView.topAnchor.constraint(equalTo: guide?.topAnchor ?? host.topAnchor),
                coverView.bottomAnchor.constraint(equalTo: guide?.bottomAnchor ?? host.bottomAnchor),
            ])
        }
        card.translatesAutoresizingMaskIntoConstraints = false
        card.alpha = 0
        host.addSubview(overlayView)
        if let scrollView = host as? UIScrollView {
            // A scroll view's frame layout guide does not move with its content; the insets
            // that shift the centre are applied by updatePlacement().
            let guide = scrollView.frameLayoutGuide
            scrollConstraints = [
                card.centerXAnchor.constraint(equalTo: guide.centerXAnchor),
                card.centerYAnchor.constraint(equalTo: guide.centerYAnchor),
                limited(card.widthAnchor.constraint(lessThanOrEqualToConstant: 0)),
                limited(card.heightAnchor.constraint(lessThanOrEqualToConstant: 0)),
            ]
            NSLayoutConstraint.activate(Array(scrollConstraints[..<2]))
            centerYConstraint = scrollConstraints[1]
            topConstraint = card.topAnchor.constraint(
                equalTo: scrollView.safeAreaLayoutGuide.topAnchor,
                constant: 8
            )
        } else {
            let guide = host.safeAreaLayoutGuide
            let centerY = card.centerYAnchor.constraint(equalTo: guide.centerYAnchor)
            NSLayoutConstraint.activate([
                card.centerXAnchor.constraint(equalTo: guide.centerXAnchor),
                centerY,
                limited(card.widthAnchor.constraint(lessThanOrEqualTo: guide.widthAnchor)),
                limited(card.heightAnchor.constraint(lessThanOrEqualTo: guide.heightAnchor)),
            ])
            centerYConstraint = centerY
            topConstraint = card.topAnchor.constraint(equalTo: guide.topAnchor, constant: 8)
        }
        applyStyle()
    }

    /// Just below required: in a host too small for the overlay's padding, overflow rather than
    /// break the overlay's own constraints.
    private func limited(_ constraint: NSLayoutConstraint) -> NSLayoutConstraint {
        constraint.priority = UILayoutPriority(rawValue: 999)
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
}
#endif
