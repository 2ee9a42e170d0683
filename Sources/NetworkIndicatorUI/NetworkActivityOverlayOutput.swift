// Apple APIs used, with the availability Apple's documentation gives (the package needs iOS 13
// and tvOS 13, so none needs an `#available` check):
// - UIView.addSubview(_:), removeFromSuperview(), bounds, alpha,
//   translatesAutoresizingMaskIntoConstraints (iOS 6.0+, tvOS 9.0+) and
//   UIView.animate(withDuration:animations:completion:) (iOS 4.0+, tvOS 9.0+).
// - NSLayoutConstraint (constant, priority, isActive, activate(_:)), UILayoutPriority and
//   layout anchors (iOS 9.0+, tvOS 9.0+).
// - UIView.safeAreaInsets, UIScrollView.adjustedContentInset and UIScrollView.frameLayoutGuide
//   (iOS 11.0+, tvOS 11.0+).
#if canImport(UIKit) && !os(watchOS)
public import NetworkIndicator
public import UIKit

/// An output that shows a ``NetworkActivityOverlayView`` over a host view while the indicator
/// is visible: the "Loading" overlay over a table, for apps whose status bar shows no spinner.
///
/// The overlay is centred in the part of the host the user can see: for a scroll view, table
/// view or collection view, in the visible bounds minus the adjusted content insets (bars, safe
/// area), not in the middle of the content, and it stays there while the content scrolls; for
/// any other view, in its safe area.
///
/// The manager holds its outputs weakly, so keep the output for as long as the host shows it,
/// typically in a property of the view controller; once the output is released the manager
/// tells it nothing more and the overlay goes away. The output holds the host weakly and never
/// keeps it alive.
///
/// ```swift
/// final class FeedViewController: UITableViewController {
///     private var networkActivity: NetworkActivityOverlayOutput?
///
///     override func viewDidLoad() {
///         super.viewDidLoad()
///         let output = NetworkActivityOverlayOutput(hostView: tableView)
///         NetworkIndicatorManager.shared.addOutput(output)
///         networkActivity = output
///     }
///
///     override func viewDidLayoutSubviews() {
///         super.viewDidLayoutSubviews()
///         networkActivity?.updatePlacement()   // follows rotation, bars and the keyboard
///     }
/// }
/// ```
///
/// Main actor only.
@MainActor
public final class NetworkActivityOverlayOutput: NetworkIndicatorOutput {
    /// The overlay shown over the host; customise it before it first shows.
    public let overlayView: NetworkActivityOverlayView
    /// The view the overlay covers. Held weakly: once it is gone, the output does nothing.
    public private(set) weak var hostView: UIView?

    private var isShowing = false
    /// Centre x and y, then maximum width and height; made when the overlay joins the host.
    private var constraints: [NSLayoutConstraint] = []

    /// Creates an output that covers `hostView` with an overlay titled `title`, or "Loading" in
    /// the app's language if `title` is `nil`. Attach it with
    /// `NetworkIndicatorManager.addOutput(_:)` and keep a reference to it.
    public init(hostView: UIView, title: String? = nil) {
        self.hostView = hostView
        self.overlayView = NetworkActivityOverlayView(title: title)
    }

    /// Takes the overlay down if the output is released while it shows, so that dropping the
    /// output is enough to stop it.
    deinit {
        let overlayView = overlayView
        Task { @MainActor in overlayView.removeFromSuperview() }
    }

    /// Fades the overlay in over the host, or out and away from it.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        guard isVisible != isShowing, let host = hostView else { return }
        isShowing = isVisible
        if isVisible, overlayView.superview !== host {
            overlayView.alpha = 0
            attach(to: host)
        }
        updatePlacement()
        UIView.animate(withDuration: 0.2) {
            self.overlayView.alpha = isVisible ? 1 : 0
        } completion: { _ in
            // A show that arrived during the fade-out keeps the overlay where it is.
            if !self.isShowing { self.overlayView.removeFromSuperview() }
        }
    }

    /// Centres the overlay again in the host's visible region. The output does this each time
    /// the overlay appears; call it from `viewDidLayoutSubviews()` as well, so that the overlay
    /// follows changes of the host's size and insets (rotation, bars, the keyboard) while it
    /// shows. Does nothing while the overlay is hidden, and touches no constraint whose value
    /// stays the same, so calling it on every layout pass costs little.
    public func updatePlacement() {
        guard isShowing, let host = hostView, overlayView.superview === host, constraints.count == 4 else { return }
        let insets = (host as? UIScrollView)?.adjustedContentInset ?? host.safeAreaInsets
        let placement = OverlayPlacement(
            bounds: host.bounds,
            insets: .init(top: insets.top, left: insets.left, bottom: insets.bottom, right: insets.right)
        )
        let maximum = placement.maximumOverlaySize
        let values = [
            placement.centerOffset.width, placement.centerOffset.height,
            maximum?.width ?? 0, maximum?.height ?? 0,
        ]
        for (constraint, value) in zip(constraints, values) where constraint.constant != value {
            constraint.constant = value
        }
        for constraint in constraints[2...] where constraint.isActive != (maximum != nil) {
            constraint.isActive = maximum != nil
        }
    }

    private func attach(to host: UIView) {
        overlayView.removeFromSuperview()
        overlayView.translatesAutoresizingMaskIntoConstraints = false
        host.addSubview(overlayView)
        // A scroll view's frame layout guide does not move with its content.
        let guide = (host as? UIScrollView)?.frameLayoutGuide
        let maximumWidth = overlayView.widthAnchor.constraint(lessThanOrEqualToConstant: 0)
        let maximumHeight = overlayView.heightAnchor.constraint(lessThanOrEqualToConstant: 0)
        // Just below required: in a host too small for the overlay's padding, overflow rather
        // than break the overlay's own constraints.
        maximumWidth.priority = UILayoutPriority(rawValue: 999)
        maximumHeight.priority = UILayoutPriority(rawValue: 999)
        constraints = [
            overlayView.centerXAnchor.constraint(equalTo: guide?.centerXAnchor ?? host.centerXAnchor),
            overlayView.centerYAnchor.constraint(equalTo: guide?.centerYAnchor ?? host.centerYAnchor),
            maximumWidth,
            maximumHeight,
        ]
        NSLayoutConstraint.activate(Array(constraints[..<2]))
    }
}
#endif
