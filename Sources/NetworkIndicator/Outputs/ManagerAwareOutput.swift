/// An output that reads its manager, not only what the manager tells it: the package's overlays
/// (in `NetworkIndicatorUI`) ask it for `isEnabled` and `progressSnapshot()` when they decide,
/// and take their overlay down when detached. Package-only: the public protocol stays
/// ``NetworkIndicatorOutput``.
///
/// Main actor, like every output; the first two calls come from
/// ``NetworkIndicatorManager/addOutput(_:)`` and ``NetworkIndicatorManager/removeOutput(_:)``,
/// with no lock held.
@MainActor
package protocol ManagerAwareOutput: NetworkIndicatorOutput {
    /// `manager` is about to attach the output: called before it tells the output anything.
    /// Called again if the output is added again, to the same manager or another.
    func outputAdded(to manager: NetworkIndicatorManager)

    /// `manager` detached the output (or was asked to: also called for an output it did not
    /// hold). It is told nothing more by `manager`.
    func outputRemoved(from manager: NetworkIndicatorManager)

    /// The manager the output follows now, while it lives (held weakly): `nil` once that manager
    /// is gone, and always for an output bound to one manager for good. A manager that goes
    /// tells its outputs goodbye (`false`, `0`, a `nil` fraction) on the main queue, later: an
    /// output that follows a live manager by then has moved, and is not told.
    var followedManager: NetworkIndicatorManager? { get }

    /// The manager's ``NetworkIndicatorSettings/isEnabled`` changed, whether or not its
    /// visibility did (an overlay drawn on its own clock may be up while the manager's indicator
    /// is not). Told in the main-queue hop that applied the change, with no lock held; not told
    /// the value at `outputAdded(to:)` (read the manager's settings then).
    func managerEnabledChanged(_ isEnabled: Bool)
}

extension ManagerAwareOutput {
    /// Nothing to do for an output that reads `isEnabled` only when it decides.
    package func managerEnabledChanged(_ isEnabled: Bool) {}
}
