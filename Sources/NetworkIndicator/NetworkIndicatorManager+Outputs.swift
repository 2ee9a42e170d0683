extension NetworkIndicatorManager {
    /// Attaches `output`: from now on it is told, on the main actor, whenever the indicator
    /// appears or disappears. It is told the current visibility (and, if it receives counts,
    /// the last reconciled count) right away.
    ///
    /// The manager holds the output **weakly**: keep it alive for as long as it should be told
    /// (in the view, controller or model that shows it). A deallocated output is told nothing
    /// more and is let go, so an output may refer back to the manager without a retain cycle.
    /// Adding an output that is already attached does nothing. May be called from an output's
    /// own callback.
    ///
    /// ```swift
    /// final class FeedViewController: UIViewController {
    ///     private let spinner = SpinnerOutput()   // conforms to NetworkIndicatorOutput
    ///     override func viewDidLoad() {
    ///         super.viewDidLoad()
    ///         manager.addOutput(spinner)   // lives as long as the controller
    ///     }
    /// }
    /// ```
    ///
    /// For a closure, use ``observeVisibility(_:)`` or ``observeActiveTaskCount(_:)``, whose
    /// observation you keep.
    @MainActor
    public func addOutput(_ output: any NetworkIndicatorOutput) {
        driver.addOutput(output)
        progressOutputAdded(output)
    }

    /// Detaches `output`; it is told nothing more, even by a delivery already under way (so
    /// hide its indicator yourself if it was showing). Removing an output that is not attached
    /// does nothing. May be called from an output's own callback.
    ///
    /// When the manager itself is deallocated, its outputs are told `false` (if the indicator
    /// was showing) and let go, on the main queue.
    @MainActor
    public func removeOutput(_ output: any NetworkIndicatorOutput) {
        driver.removeOutput(output)
        progressOutputRemoved(output)
    }

    /// The outputs attached now and still alive, in the order they were added.
    @MainActor
    public var outputs: [any NetworkIndicatorOutput] {
        driver.delivery.outputs
    }

    /// A stream of the indicator's visibility: the current value first, then every change, in
    /// order, as the outputs are told.
    ///
    /// Values are produced on the main queue (the first one after the next main-queue hop), and
    /// buffered without limit, so a slow consumer sees every change. The stream finishes when
    /// the manager is deallocated; cancelling the consuming task unsubscribes it. Callable from
    /// any thread.
    ///
    /// ```swift
    /// for await isVisible in manager.visibilityUpdates() {
    ///     spinner.isHidden = !isVisible
    /// }
    /// ```
    public func visibilityUpdates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        let id = driver.addStream(continuation)
        // Strong: the driver releases every continuation (and so this closure) when its
        // manager goes away.
        continuation.onTermination = { [driver] _ in driver.removeStream(id) }
        return stream
    }
}
