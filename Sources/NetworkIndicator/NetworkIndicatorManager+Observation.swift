extension NetworkIndicatorManager {
    /// Calls `body` on the main actor with the indicator's visibility: the current value at
    /// once, before this returns, then every change, for as long as the returned observation
    /// lives or until you cancel it.
    ///
    /// ```swift
    /// private var networkActivity: NetworkIndicatorObservation?   // keep it
    ///
    /// networkActivity = manager.observeVisibility { isVisible in
    ///     spinner.isHidden = !isVisible
    /// }
    /// ```
    ///
    /// Keep the observation: the manager holds `body` only through it, so dropping the result
    /// stops the calls at once (the compiler warns where the result is unused), and releasing it
    /// or calling ``NetworkIndicatorObservation/cancel()`` frees `body`. `body` may therefore
    /// capture the manager, or the object that keeps the observation, strongly: nothing leaks.
    /// Changes are told as to any output: after the delays, coalesced, only when the value
    /// changes. `body` may call back into the manager.
    ///
    /// - Parameter body: Told each visibility, on the main actor.
    /// - Returns: The observation; the calls last as long as it does.
    @MainActor
    public func observeVisibility(_ body: @escaping @MainActor (Bool) -> Void) -> NetworkIndicatorObservation {
        observe(ClosureObserver(.visibility(body)))
    }

    /// Calls `body` on the main actor with the number of active tasks: the last reconciled
    /// count at once, before this returns, then each new count, for as long as the returned
    /// observation lives or until you cancel it.
    ///
    /// ```swift
    /// downloads = manager.observeActiveTaskCount { count in
    ///     badge.text = count > 0 ? "\(count)" : nil
    /// }
    /// ```
    ///
    /// Counts are coalesced: intermediate values may be skipped, and the count lags
    /// ``activeTaskCount`` by a main-queue hop. While a count observation lives, every change of
    /// the count asks for a main-queue hop (a visibility observation needs one only when the
    /// indicator may appear or disappear). Keep the observation, as with
    /// ``observeVisibility(_:)``; releasing it frees `body`, which may capture the manager.
    ///
    /// - Parameter body: Told each count, on the main actor.
    /// - Returns: The observation; the calls last as long as it does.
    @MainActor
    public func observeActiveTaskCount(_ body: @escaping @MainActor (Int) -> Void) -> NetworkIndicatorObservation {
        observe(ClosureObserver(.activeTaskCount(body)))
    }

    @MainActor
    private func observe(_ observer: ClosureObserver) -> NetworkIndicatorObservation {
        let observation = NetworkIndicatorObservation(observer)
        addOutput(observer)
        return observation
    }
}
