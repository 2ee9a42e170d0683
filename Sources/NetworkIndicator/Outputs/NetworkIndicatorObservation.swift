/// The handle of a closure bound to an owner: ``NetworkIndicatorManager/observeVisibility(owner:_:)``
/// and ``NetworkIndicatorManager/observeSlowNetworkActivity(after:owner:_:)`` return one.
///
/// The manager keeps the observation itself, for as long as the owner lives, so the handle may
/// be ignored: releasing it ends nothing. Keep it only to end the calls earlier with
/// ``cancel()``, which frees the closure at once:
///
/// ```swift
/// final class FeedViewController: UIViewController {
///     private var networkActivity: NetworkIndicatorObservation?
///
///     override func viewDidLoad() {
///         super.viewDidLoad()
///         networkActivity = NetworkIndicatorManager.shared.observeVisibility(owner: self) { controller, isVisible in
///             controller.loadingView.isHidden = !isVisible
///         }
///     }
///
///     func stopShowingActivity() {
///         networkActivity?.cancel()
///     }
/// }
/// ```
///
/// An observation that outlives its manager is harmless: when the manager goes away its
/// observations are told `false` (if the indicator was showing) and nothing more, and
/// ``cancel()`` does nothing.
///
/// Created and cancelled on the main actor; it may be released on any thread.
@MainActor
public final class NetworkIndicatorObservation {
    /// The output the manager holds weakly; `nil` once cancelled.
    private var observer: ClosureObserver?
    /// For an observation the manager keeps itself (bound to an owner): how it hears of
    /// ``cancel()``; `nil` once cancelled.
    private var onCancel: (@MainActor () -> Void)?

    init(_ observer: ClosureObserver) {
        self.observer = observer
    }

    init(onCancel: @escaping @MainActor () -> Void) {
        self.onCancel = onCancel
    }

    /// Whether ``cancel()`` was called: the closure is gone and is told nothing more.
    public var isCancelled: Bool { observer == nil && onCancel == nil }

    /// Stops the observation and frees its closure at once; the closure is not called again,
    /// even by a delivery already under way. Calling it again does nothing. May be called from
    /// the closure itself.
    public func cancel() {
        observer = nil
        let onCancel = self.onCancel
        self.onCancel = nil
        onCancel?()
    }
}

/// The output behind an observation: calls one closure, with the visibility, the count or the
/// manager's `isEnabled`.
@MainActor
final class ClosureObserver: NetworkIndicatorOutput {
    enum Body {
        case visibility(@MainActor (Bool) -> Void)
        case activeTaskCount(@MainActor (Int) -> Void)
        /// The manager's `isEnabled` (``ManagerAwareOutput/managerEnabledChanged(_:)``).
        case isEnabled(@MainActor (Bool) -> Void)
    }

    private let body: Body

    init(_ body: Body) {
        self.body = body
    }

    var receivesActiveTaskCount: Bool {
        if case .activeTaskCount = body { return true }
        return false
    }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        if case .visibility(let body) = body { body(isVisible) }
    }

    func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        if case .activeTaskCount(let body) = body { body(activeTaskCount) }
    }
}

extension ClosureObserver: ManagerAwareOutput {
    func outputAdded(to manager: NetworkIndicatorManager) {}

    func outputRemoved(from manager: NetworkIndicatorManager) {}

    /// Bound to its one manager: told its goodbye.
    var followedManager: NetworkIndicatorManager? { nil }

    func managerEnabledChanged(_ isEnabled: Bool) {
        if case .isEnabled(let body) = body { body(isEnabled) }
    }
}
