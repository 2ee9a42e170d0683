extension NetworkIndicatorManager {
    /// Calls `body` on the main actor with `owner` and the indicator's visibility: the current
    /// value at once, before this returns, then every change, for as long as `owner` lives.
    ///
    /// ```swift
    /// final class FeedViewController: UIViewController {
    ///     override func viewDidLoad() {
    ///         super.viewDidLoad()
    ///         NetworkIndicatorManager.shared.observeVisibility(owner: self) { controller, isVisible in
    ///             controller.loadingView.isHidden = !isVisible
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Nothing to store and no capture list: the manager keeps the observation, holds `owner`
    /// weakly and hands it to `body`, so neither `owner` nor the manager is kept alive by it.
    /// The calls end when `owner` is deallocated (`body` is never called after that, and is
    /// freed at the next change or the next owner-bound registration) or when the returned
    /// observation is cancelled (`body` is freed at once); releasing the returned observation
    /// ends nothing. `body` should use the `owner` it is handed: capturing `owner` strongly
    /// would keep it alive for as long as the manager, and the calls with it. `body` must not
    /// capture this manager strongly either (the manager keeps `body`, so that is a cycle that
    /// outlives `owner` until the next change): reach the manager through `owner`, or capture
    /// it `[weak manager]`. Changes are told as to any output: after the delays, coalesced, only
    /// when the value changes.
    ///
    /// - Parameters:
    ///   - owner: The object the calls last as long as, typically a view controller or a view.
    ///   - body: Told `owner` and each visibility, on the main actor.
    /// - Returns: The observation, to cancel the calls earlier; you may ignore it.
    @MainActor
    @discardableResult
    public func observeVisibility<Owner: AnyObject>(
        owner: Owner,
        _ body: @escaping @MainActor (Owner, Bool) -> Void
    ) -> NetworkIndicatorObservation {
        observe(owner: owner, as: ClosureObserver.Body.visibility, body)
    }

    /// Calls `body` on the main actor with `owner` and the number of active tasks: the last
    /// reconciled count at once, before this returns, then each new count, for as long as
    /// `owner` lives.
    ///
    /// ```swift
    /// NetworkIndicatorManager.shared.observeActiveTaskCount(owner: self) { controller, count in
    ///     controller.badge.text = count > 0 ? "\(count)" : nil
    /// }
    /// ```
    ///
    /// The lifetime is that of ``observeVisibility(owner:_:)``: nothing to store, `owner` held
    /// weakly, no call once it is deallocated, none after the returned observation is
    /// cancelled, and neither `owner` nor the manager kept alive, provided `body` captures
    /// neither strongly: reach the manager through `owner`, or capture it `[weak manager]`
    /// (the manager keeps `body`, so a strong capture is a cycle). Counts are coalesced:
    /// intermediate values may be skipped, and the count lags ``activeTaskCount`` by a main-queue
    /// hop. While the observation lives, every change of the count asks for a main-queue hop (the
    /// first one after `owner` died ends it).
    ///
    /// - Parameters:
    ///   - owner: The object the calls last as long as, typically a view controller or a view.
    ///   - body: Told `owner` and each count, on the main actor.
    /// - Returns: The observation, to cancel the calls earlier; you may ignore it.
    @MainActor
    @discardableResult
    package func observeActiveTaskCount<Owner: AnyObject>(
        owner: Owner,
        _ body: @escaping @MainActor (Owner, Int) -> Void
    ) -> NetworkIndicatorObservation {
        observe(owner: owner, as: ClosureObserver.Body.activeTaskCount, body)
    }

    /// Calls `body` on the main actor with `owner` and the manager's
    /// ``NetworkIndicatorSettings/isEnabled`` each time it changes, whether or not the
    /// visibility does (not at once: read ``settings``), for as long as `owner` lives; the
    /// lifetime is that of ``observeVisibility(owner:_:)``. For the package's overlays, which
    /// draw on their own clock.
    @MainActor
    @discardableResult
    package func observeEnabled<Owner: AnyObject>(
        owner: Owner,
        _ body: @escaping @MainActor (Owner, Bool) -> Void
    ) -> NetworkIndicatorObservation {
        observe(owner: owner, as: ClosureObserver.Body.isEnabled, body)
    }

    /// An owner-bound observation of one of `ClosureObserver`'s values (`kind`), told to `body`
    /// with the owner while it lives.
    @MainActor
    private func observe<Owner: AnyObject, Value>(
        owner: Owner,
        as kind: (@escaping @MainActor (Value) -> Void) -> ClosureObserver.Body,
        _ body: @escaping @MainActor (Owner, Value) -> Void
    ) -> NetworkIndicatorObservation {
        let registry = ownerBoundObservations
        let id = registry.makeID()
        // Weak registry: it keeps this closure (through the observation), and must die with the
        // manager.
        let observer = ClosureObserver(
            kind { [weak owner, weak registry] value in
                guard let owner else { return registry?.end(id) ?? () }
                body(owner, value)
            }
        )
        let observation = observe(observer)
        registry.keep(observation, as: id) { [weak owner] in owner != nil }
        return observation
    }

    @MainActor
    private func observe(_ observer: ClosureObserver) -> NetworkIndicatorObservation {
        let observation = NetworkIndicatorObservation(observer)
        addOutput(observer)
        return observation
    }
}
