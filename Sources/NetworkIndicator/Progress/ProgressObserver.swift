import Foundation

/// An owner-bound closure of ``NetworkIndicatorManager/observeProgress(owner:_:)``.
@MainActor
final class ProgressObserver {
    /// Calls the body with its owner, `false` once the owner is gone; `nil` once the owner is
    /// gone or the observation cancelled, so that the body (and what it captured) is freed.
    private var body: (@MainActor (Double?) -> Bool)?
    /// The owner, to let the body go at the next reading once the owner is gone, whether or not
    /// the fraction changed.
    private weak var owner: AnyObject?

    init<Owner: AnyObject>(owner: Owner, body: @escaping @MainActor (Owner, Double?) -> Void) {
        self.owner = owner
        self.body = { [weak owner] fraction in
            guard let owner else { return false }
            body(owner, fraction)
            return true
        }
    }

    var isFinished: Bool { body == nil || owner == nil }

    func tell(_ fraction: Double?) {
        guard let body else { return }
        if !body(fraction) { self.body = nil }
    }

    /// From the observation's `cancel()`: the body is freed at once and never called again.
    func cancel() {
        body = nil
    }
}

extension OutputDelivery {
    /// A listener of a node's fraction: an output (held weakly), or an owner-bound closure.
    @MainActor
    struct ProgressListener {
        weak var output: (any NetworkIndicatorOutput)?
        let observer: ProgressObserver?
        /// This registration's number (``OutputDelivery/newAttachment()``): an output removed and
        /// added again is a new listener.
        let serial: UInt64

        /// Whether it still listens: its output alive, or its closure's owner alive and not cancelled.
        var isLive: Bool { observer.map { !$0.isFinished } ?? (output != nil) }

        func tell(_ fraction: Double?) {
            observer?.tell(fraction)
            output?.networkIndicatorFractionCompletedDidChange(fraction)
        }
    }
}
