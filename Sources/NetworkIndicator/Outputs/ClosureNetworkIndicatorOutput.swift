/// An output that calls a closure with each visibility change.
///
/// ```swift
/// manager.addOutput(ClosureNetworkIndicatorOutput { isVisible in
///     spinner.isHidden = !isVisible
/// })
/// ```
///
/// The closure runs on the main actor; it is retained for as long as the output is attached.
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
