extension NetworkIndicatorManager {
    /// Calls `body` on the main actor with ``progressSnapshot()`` and its owner: the current value
    /// at once, before this returns, then each change, at most ten times a second, for as long
    /// as `owner` lives or until you cancel the returned observation.
    ///
    /// ```swift
    /// manager.observeProgress(owner: self) { controller, fraction in
    ///     controller.progressView.isHidden = fraction == nil
    ///     controller.progressView.progress = Float(fraction ?? 0)
    /// }
    /// ```
    ///
    /// The manager holds `owner` weakly and `body` strongly: there is nothing to store, and
    /// `body` reaches the owner through its first argument, so it needs no capture list and
    /// makes no cycle (do not capture `owner` in `body` itself: that would keep it alive for as
    /// long as the manager). Nor must `body` capture this manager strongly: the manager keeps
    /// `body`, so that is a cycle; reach the manager through `owner`, or capture it
    /// `[weak manager]`. Once `owner` is freed, `body` is not called again and is let go at
    /// the next reading. The fraction is read on the manager's scheduler every 0.1 s, only while
    /// tasks begun with a `Progress` are tracked (then once more when the scope goes idle, to
    /// tell `nil`), and `body`
    /// is called only when the value changes. `body` may call back into the manager.
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the observation, such as a view controller.
    ///   - body: Told each fraction, on the main actor, with the owner.
    /// - Returns: The observation, to ``NetworkIndicatorObservation/cancel()`` it earlier; you
    ///   need not keep it.
    @MainActor
    @discardableResult
    package func observeProgress<Owner: AnyObject>(
        owner: Owner,
        _ body: @escaping @MainActor (Owner, Double?) -> Void
    ) -> NetworkIndicatorObservation {
        let observer = ProgressObserver(owner: owner, body: body)
        if driver.delivery.attach(observer, to: driver.node, receivesFraction: true, keeps: true) != nil {
            fractionListenerAdded(observer)
        }
        return NetworkIndicatorObservation { observer.cancel() }
    }

    /// Tells `output`, just attached and wanting the fraction (see
    /// ``NetworkIndicatorOutput/receivesFractionCompleted``), the fraction now, after bringing the
    /// others up to it, and fits the poll; from ``addOutput(_:)`` and ``observeProgress(owner:_:)``.
    @MainActor
    func fractionListenerAdded(_ output: any NetworkIndicatorOutput) {
        driver.delivery.deliverProgress(progressSnapshot().fractionCompleted, to: driver.node, newListener: output)
        progressRollUp.tick()
    }
}
