/// An output that calls a closure with each visibility change.
///
/// ```swift
/// let output = ClosureNetworkIndicatorOutput { isVisible in
///     spinner.isHidden = !isVisible
/// }
/// manager.addOutput(output)   // keep `output`: the manager holds it weakly
/// ```
///
/// The closure runs on the main actor. The manager holds the output weakly, so keep it where
/// the UI it drives lives; the closure may capture the manager without making a cycle.
@MainActor
public final class ClosureNetworkIndicatorOutput: NetworkIndicatorOutput {
    private let handler: @MainActor (Bool) -> Void

    /// Creates an output that calls `handler` with the new visibility, on the main actor.
    public init(_ handler: @escaping @MainActor (Bool) -> Void) {
        self.handler = handler
    }

    /// Calls the closure.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        handler(isVisible)
    }
}
