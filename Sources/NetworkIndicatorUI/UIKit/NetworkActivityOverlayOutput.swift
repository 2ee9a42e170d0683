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
/// running, announces its title queued behind current speech (unless the settings opt out).
/// Everything it shows is decided by a plan made in the package's tested code; this output only
/// applies it. It lets touches through unless the settings' `interaction` says `.blocksCard`
/// (the card takes those on it) or `.blocksHost`: from the first moment of that card's load
/// until the load ends (during the show delay too), the host's `isUserInteractionEnabled` is
/// off (no touch, scroll or pull-to-refresh reaches it) and its editing ends (the keyboard
/// goes); while the card is drawn, among the host's subviews VoiceOver reaches only the card
/// (`accessibilityViewIsModal`; bars outside the host stay reachable). The host's setting is
/// given back as it was when the load ends, or when the output is released. A touch on the
/// blocked host, or on its card, falls to the views behind it, as for any view that takes no
/// touches: an enclosing scroll view or page controller still scrolls. Behind the light indicator of a host with content
/// (``hasContent``) nothing is ever blocked. The overlay moves to the front of the host's
/// subviews at each change and each ``updatePlacement()``: UIKit hit-tests in subview order, and
/// a table or collection view adds its rows as it scrolls. While the manager knows how far its
/// tasks are (its `progressSnapshot()`), the overlay shows a `UIProgressView` and a rounded-down
/// percentage instead of the spinner, read by VoiceOver as its value, unless the settings'
/// `showsProgress` is `false`. The overlay joins the host when the output is made and stays
/// there, hidden in between, with constraints made once.
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

    private let settings: NetworkActivityOverlaySettings
    private let scheduler: any NetworkIndicatorScheduler
    private lazy var core = OverlayOutputCore(
        settings: settings,
        scheduler: scheduler,
        accessibility: .system(
            isSeen: { [weak self] in OverlaySight.of(self?.hostView).isSeen },
            title: { [weak self] in self?.plan.title ?? "" },
            focusesBlockingCard: true
        ),
        hostIsGone: { [weak self] in self?.hostView == nil },
        planChanged: { [weak self] plan in self?.apply(plan) }
    )
    /// The plan applied last (``OverlayPlan``): the only state the views follow.
    private var plan = OverlayPlan.hidden
    /// The host's own `isUserInteractionEnabled` while a blocking card turns it off.
    private var hostInput = HostInputKeeper()
    /// The host's field that was editing when a blocking card's load began, and VoiceOver's
    /// element when the card drew: each given back when blocking ends.
    private var typingFocus = FocusKeeper<UIView>()
    private var voiceOverFocus = FocusKeeper<NSObject>()
    /// Centre x and y on the host's frame guide, then the caps of width and height, whose
    /// constants ``updatePlacement()`` keeps current (``OverlayPlacement/guideConstants``).
    private let guideConstraints: [NSLayoutConstraint]
    /// The light indicator's place at the top edge, instead of the centre.
    private let topConstraint: NSLayoutConstraint

    /// Whether the host already shows content: the overlay then sits at the top edge, without
    /// its title line, and lets every touch through (a light indicator over rows that stay
    /// usable) instead of covering the middle. Turned `false` while the light indicator is drawn,
    /// the card takes its place at once, without fading or speaking again; turned `true` while
    /// the card is drawn, the card fades out, and the next load draws the light indicator (turned
    /// `false` again while that load runs, the card comes back). Default `false`. Main actor.
    public var hasContent = false {
        didSet { core.hasContent = hasContent }
    }

    /// Creates an output that covers `hostView` with an overlay titled `title`, or "Loading" in
    /// the user's language if `title` is `nil`. Attach it with
    /// `NetworkIndicatorManager.addOutput(_:)` and keep a reference to it. The overlay joins
    /// `hostView` at once, hidden, with its constraints, and stays there for the output's life.
    ///
    /// - Parameters:
    ///   - hostView: The view to cover; held weakly.
    ///   - title: A key of `bundle`'s `Localizable.strings` (or string catalog), shown and
    ///     announced in the user's language (the key itself where there is no translation);
    ///     `nil` for "Loading" in the package's translations. Xcode does not extract a literal
    ///     passed here: prefer the `LocalizedStringResource` form on iOS 16 and later.
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
        let card = NetworkActivityOverlayView(title: OverlayLabel(title, bundle: bundle).text())
        self.hostView = hostView
        self.card = card
        self.settings = settings
        self.scheduler = scheduler
        // A scroll view's frame layout guide does not move with its content; the insets that
        // shift the centre are applied by updatePlacement(). Any other host: its safe area.
        let guide = OverlayPlacement.centringGuide(
            scrollViewFrame: (hostView as? UIScrollView)?.frameLayoutGuide,
            safeArea: hostView.safeAreaLayoutGuide
        )
        guideConstraints = [
            card.centerXAnchor.constraint(equalTo: guide.centerXAnchor),
            card.centerYAnchor.constraint(equalTo: guide.centerYAnchor),
            Self.limited(card.widthAnchor.constraint(lessThanOrEqualTo: guide.widthAnchor)),
            Self.limited(card.heightAnchor.constraint(lessThanOrEqualTo: guide.heightAnchor)),
        ]
        // Below required, as the size caps: while a switch of style activates the centring first,
        // the two never conflict in a way UIKit would log.
        topConstraint = Self.limited(
            card.topAnchor.constraint(equalTo: hostView.safeAreaLayoutGuide.topAnchor, constant: 8)
        )
        card.translatesAutoresizingMaskIntoConstraints = false
        card.isHidden = true
        card.alpha = 0
        hostView.addSubview(card)
        NSLayoutConstraint.activate(guideConstraints)
        core.title = card.title ?? ""
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
        core.title = String(localized: title)
        card.title = core.title
    }

    /// Takes the overlay down if the output is released, drawn or not, so that dropping the
    /// output is enough to stop it: the card leaves the host, and a host that a `.blocksHost`
    /// card had blocked takes input again.
    deinit {
        let card = card
        let host = hostView
        let changes = OverlayPlan.hidden.hostChanges(from: plan)
        let hostInput = hostInput
        Task { @MainActor in
            card.removeFromSuperview()
            var keeper = hostInput
            host?.isUserInteractionEnabled = keeper.apply(changes, current: host?.isUserInteractionEnabled ?? true)
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

    /// Starts the overlay's presentation from the count the manager tells it when added, then
    /// follows each new count. Main actor.
    public func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        core.activeTaskCountChanged(activeTaskCount)
    }

    /// Nothing: the overlay follows the count and the manager's `isEnabled`, on its own clock,
    /// not the manager's visibility. Main actor.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

    /// Applies `plan`, the controller's decision, to the views: no rule of its own.
    ///
    /// A `.blocksHost` card's load turns the host's `isUserInteractionEnabled` off (touches,
    /// scrolling, pull-to-refresh) and ends its editing (the keyboard), then gives both back as
    /// they were when the load ends: the field that was editing edits again, if it is still in
    /// the window. Once the card draws, VoiceOver's cursor moves to it, and among the host's
    /// subviews VoiceOver reaches only the card (`accessibilityViewIsModal`); the cursor goes
    /// back to the element it was on when blocking ends.
    private func apply(_ plan: OverlayPlan) {
        let changes = plan.hostChanges(from: self.plan)
        self.plan = plan
        let host = hostView
        host?.isUserInteractionEnabled = hostInput.apply(changes, current: host?.isUserInteractionEnabled ?? true)
        typingFocus.apply(
            changes.typingFocus,
            focused: {
                host.flatMap { FocusKeeper.first(in: $0, children: { $0.subviews }, where: { $0.isFirstResponder }) }
            },
            take: {
                host?.endEditing(true)
                return nil
            },
            isStillThere: { $0.window != nil && $0.window === host?.window },
            giveBack: { _ = $0?.becomeFirstResponder() }
        )
        card.apply(plan)
        guideConstraints[1].isActive = !plan.isAtTopEdge
        topConstraint.isActive = plan.isAtTopEdge
        card.isHidden = plan.isHiddenDuringFade(wasHidden: card.isHidden)
        voiceOverFocus.apply(
            changes.accessibilityFocus,
            focused: { AccessibilityAnnouncement.voiceOverCursor },
            // Not to a card the user cannot see (under a sheet, in a background scene).
            mayTake: { _ in OverlaySight.of(host).isSeen },
            take: {
                AccessibilityAnnouncement.moveCursor(toCard: card)
                return nil
            },
            isStillThere: { ($0 as? UIView).map { $0.window != nil } ?? true },
            giveBack: { AccessibilityAnnouncement.moveCursor(backTo: $0) }
        )
        updatePlacement()
        UIView.animate(withDuration: plan.fadeDuration) {
            self.card.alpha = plan.opacity
        } completion: { _ in
            self.card.isHidden = plan.isHiddenAfterFade(wasHidden: self.card.isHidden, current: self.plan)
        }
    }

    /// Centres the overlay again in a scroll view's visible region. For a scroll-view host
    /// (table and collection views included), call it from `viewDidLayoutSubviews()`, so that
    /// the overlay follows changes of the host's size and adjusted content insets (rotation,
    /// bars, the keyboard) while it shows; the output also calls it each time the overlay
    /// changes. For any other host it changes nothing and need not be called: constraints to the
    /// safe-area layout guide keep the overlay in place. Touches no constraint whose value stays
    /// the same, so calling it on every layout pass costs little. It also puts the overlay back
    /// above the rows a table or collection view added since, which would otherwise take the
    /// touches meant for a card that takes them.
    public func updatePlacement() {
        hostView?.bringSubviewToFront(card)
        let insets = (hostView as? UIScrollView)?.adjustedContentInset
        let values = OverlayPlacement(
            bounds: hostView?.bounds ?? .zero,
            scrollViewInsets: insets.map { .init(top: $0.top, left: $0.left, bottom: $0.bottom, right: $0.right) }
        ).guideConstants
        for index in OverlayPlacement.changedIndices(from: guideConstraints.map(\.constant), to: values) {
            guideConstraints[index].constant = values[index]
        }
    }

    /// Just below required: in a host too small for the overlay's padding, overflow rather than
    /// break the overlay's own constraints.
    private static func limited(_ constraint: NSLayoutConstraint) -> NSLayoutConstraint {
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

    package var followedManager: NetworkIndicatorManager? { core.followedManager }

    package func managerEnabledChanged(_ isEnabled: Bool) {
        core.enabledChanged()
    }
}
#endif
