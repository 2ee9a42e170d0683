import NetworkIndicator

/// Owns the child manager of one `networkActivityScope(_:)` view, the logic under the SwiftUI
/// glue: plain Swift, so that it is built and tested on Linux.
///
/// The view keeps one owner for as long as SwiftUI keeps its state (in `@State`: on screen, and
/// in a navigation back stack or an unselected tab) and asks it, at each
/// rebuild, for the manager to put in its content's environment. The owner makes the child the
/// first time, hands the same one back while the parent stays the same, and makes a new one only
/// when the parent changes. Releasing the owner (the view going away) or ``release()`` lets go
/// of the child: once nothing else holds it, the child is freed and its open tasks end in every
/// ancestor (the rule of ``NetworkIndicatorManager/init(parent:label:)``). Main actor only.
@MainActor
final class NetworkActivityScopeOwner {
    /// The child made last, or `nil` before the first ``manager(under:label:)`` and after
    /// ``release()``.
    private(set) var child: NetworkIndicatorManager?

    /// The refreshes running in ``child``, made with it: `networkActivityRefreshable` counts
    /// here, and the scope's overlay leaves them out. `nil` while there is no child.
    private(set) var refreshes: ScopeOverlayExclusions?

    /// Creates an owner that owns no child yet.
    nonisolated init() {}

    /// The child manager of `parent` for this view: the one made before if its parent is
    /// `parent`, otherwise a new child labelled `label` (the previous child, if any, is let
    /// go). The label is taken when a child is made; a new label alone makes no new child.
    func manager(under parent: NetworkIndicatorManager, label: String) -> NetworkIndicatorManager {
        if let child, child.parent === parent { return child }
        let made = NetworkIndicatorManager(parent: parent, label: label)
        child = made
        refreshes = ScopeOverlayExclusions()
        return made
    }

    /// Lets go of the child, if any; the next ``manager(under:label:)`` makes a new one.
    func release() {
        child = nil
        refreshes = nil
    }
}
