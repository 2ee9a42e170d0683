public import Foundation

extension NetworkIndicatorManager {
    /// Calls `body` on the main actor with `owner` and whether the manager has been busy for
    /// `seconds` without a break: `false` at once, before this returns, then `true` once a busy
    /// period (the count above zero) has lasted `seconds`, and `false` when that period ends,
    /// for as long as `owner` lives.
    ///
    /// ```swift
    /// feedActivity.observeSlowNetworkActivity(after: 8, owner: self) { controller, isSlow in
    ///     controller.statusLabel.text = isSlow ? "Still loading…" : nil
    /// }
    /// ```
    ///
    /// A busy period shorter than `seconds` is never reported. The period is the manager's own
    /// and its descendants' tasks, whatever the indicator's delays; it is measured on the
    /// manager's ``scheduler`` (a test's manual scheduler drives it) from the main-queue hop
    /// that first sees the count above zero (if the manager is busy as you call this, from when
    /// its count left zero: a screen that starts watching during a load is told as soon as the
    /// load has lasted `seconds`), and ends at the hop that sees it at zero (a break shorter
    /// than a hop is not seen). `.infinity` never reports a period as slow; a negative
    /// `seconds`, or NaN, counts as zero. The
    /// report may come up to a tenth of `seconds` late, at most 50 ms, so that the system can
    /// coalesce the timer's wake-up with others.
    ///
    /// The lifetime is that of ``observeVisibility(owner:_:)``: nothing to store, `owner` held
    /// weakly and handed to `body`, no call once `owner` is deallocated or the returned
    /// observation is cancelled, and neither `owner` nor the manager kept alive, provided `body`
    /// captures neither strongly. While the observation lives, every change of the count asks
    /// for a main-queue hop, as for an output that receives the count.
    ///
    /// - Parameters:
    ///   - seconds: How long a busy period lasts before it is reported.
    ///   - owner: The object the calls last as long as, typically a view controller or a view.
    ///   - body: Told `owner` and whether the current busy period is slow, on the main actor,
    ///     only when that changes.
    /// - Returns: The observation, to cancel the calls earlier; you may ignore it.
    @MainActor
    @discardableResult
    public func observeSlowNetworkActivity<Owner: AnyObject>(
        after seconds: TimeInterval,
        owner: Owner,
        _ body: @escaping @MainActor (Owner, Bool) -> Void
    ) -> NetworkIndicatorObservation {
        body(owner, false)
        let watch = SlowActivityWatch(
            threshold: seconds,
            delivery: driver.delivery,
            node: driver.node,
            beganBusy: driver.delivery.busySince(driver.node) != nil
        ) { [weak owner] isSlow in
            guard let owner else { return }
            body(owner, isSlow)
        }
        // The count observation keeps the watch, and the watch the body: cancelling it, or the
        // owner's death, lets both go.
        return observeActiveTaskCount(owner: owner) { _, count in watch.countChanged(count) }
    }
}
