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
    /// Attach an output to one manager: an output attached to two hears both, interleaved (one
    /// manager's visibility, then the other's), since its callbacks do not say which manager
    /// calls. ``NetworkIndicatorModel`` and `NetworkIndicatorUI`'s overlay outputs follow one
    /// manager at a time: added to a second, they leave the first, as a view added to a new
    /// superview leaves its old one. To show several managers in one place, show their common
    /// parent, whose count includes its scopes'.
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
    /// For a closure, use ``observeVisibility(owner:_:)``, which lasts as long as its owner.
    @MainActor
    public func addOutput(_ output: any NetworkIndicatorOutput) {
        (output as? any ManagerAwareOutput)?.outputAdded(to: self)
        // An output that removed itself as it was told the visibility is told nothing more; the
        // fraction as its attachment says (`receivesFractionCompleted` is read once).
        if driver.addOutput(output)?.receivesFraction == true { fractionListenerAdded(output) }
    }

    /// Detaches `output`; it is told nothing more, even by a delivery already under way (so
    /// hide its indicator yourself if it was showing; a ``TerminalSpinnerOutput`` stops and
    /// erases its line by itself, and the overlay outputs of `NetworkIndicatorUI` take
    /// themselves down). Removing an output that is not attached does nothing. May be
    /// called from an output's own callback.
    ///
    /// When the manager itself is deallocated, its outputs are told `false` (if the indicator
    /// was showing), those that receive the count are told `0`, and all are let go, on the main
    /// queue.
    @MainActor
    public func removeOutput(_ output: any NetworkIndicatorOutput) {
        let detached = driver.removeOutput(output)
        if detached?.receivesFraction == true { progressRollUp.tick() }  // fits the poll
        if detached != nil, let output = output as? any RemovalAwareOutput {
            output.networkIndicatorOutputWasRemoved()
        }
        (output as? any ManagerAwareOutput)?.outputRemoved(from: self)
    }

    /// The outputs attached now and still alive, in the order they were added.
    @MainActor
    package var outputs: [any NetworkIndicatorOutput] {
        driver.delivery.outputs(of: driver.node)
    }

    /// A stream of the indicator's visibility: the current value first, then every change, in
    /// order, as the outputs are told.
    ///
    /// Values are produced on the main queue, the first one at the next main-queue hop: it is
    /// the visibility then. A stream of a manager deallocated before that hop ends without a
    /// value, unless an output or an earlier stream was attached to the manager: then it yields
    /// a last `false`, whatever the indicator showed.
    /// Only the newest value waits for a slow consumer (`bufferingNewest(1)`): it always
    /// catches up with the current visibility, possibly skipping changes in between, and an
    /// unread stream holds one value, never a growing buffer. The stream finishes on the main
    /// queue once the manager is deallocated, after a last `false` if the indicator was showing
    /// (as every output is told); cancelling the consuming task unsubscribes it.
    /// Callable from any thread. The stream is an output of the manager, kept by it until the
    /// stream ends.
    ///
    /// ```swift
    /// for await isVisible in manager.visibilityUpdates() {
    ///     spinner.isHidden = !isVisible
    /// }
    /// ```
    public func visibilityUpdates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        driver.delivery.attachStream(continuation, to: driver.node, on: driver.scheduler)
        return stream
    }
}
