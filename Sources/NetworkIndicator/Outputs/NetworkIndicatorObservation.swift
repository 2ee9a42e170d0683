/// A closure registered with ``NetworkIndicatorManager/observeVisibility(_:)`` or
/// ``NetworkIndicatorManager/observeActiveTaskCount(_:)``: it is told for as long as this
/// observation lives, and until ``cancel()``. (An owner-bound closure, such as
/// ``NetworkIndicatorManager/observeProgress(owner:_:)``'s, lasts as long as its owner instead;
/// its observation only serves to cancel it earlier.)
///
/// ```swift
/// final class FeedViewController: UIViewController {
///     private var networkActivity: NetworkIndicatorObservation?
///
///     override func viewDidLoad() {
///         super.viewDidLoad()
///         networkActivity = NetworkIndicatorManager.shared.observeVisibility { [weak self] in
///             self?.loadingView.isHidden = !$0
///         }
///     }
/// }
/// ```
///
/// The observation is the only strong reference to its closure: the manager holds it weakly, as
/// it holds every output. Releasing the observation, or calling ``cancel()``, frees the closure
/// at once, so the closure may capture the manager strongly without a cycle. It must not
/// capture the object that keeps the observation strongly: object → observation → closure →
/// object is a retain cycle that keeps both, and the calls, alive forever. Capture that object
/// weakly as above, or use ``NetworkIndicatorManager/observeVisibility(owner:_:)`` and
/// ``NetworkIndicatorManager/observeActiveTaskCount(owner:_:)``, whose observation lasts as
/// long as its owner with nothing stored. An observation that outlives its manager is
/// harmless: when the manager goes away its observations are told `false` (if the indicator
/// was showing) and nothing more.
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

/// The output behind an observation: calls one closure, with the visibility or with the count.
@MainActor
final class ClosureObserver: NetworkIndicatorOutput {
    enum Body {
        case visibility(@MainActor (Bool) -> Void)
        case activeTaskCount(@MainActor (Int) -> Void)
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
