import NetworkIndicator

/// What a scope's overlay leaves out, so that it never draws a second spinner: how many of the
/// scope's tasks are pull-to-refreshes (the system's refresh control shows one already), and
/// which child scopes draw an overlay of their own (their tasks are theirs to show).
///
/// `networkActivityRefreshable` counts each refresh here, for as long as it also counts in the
/// scope's manager; an overlay of a child scope registers its manager here while it is on
/// screen; an overlay of the scope listens. Main actor only.
@MainActor
final class NetworkActivityRefreshes {
    /// The refreshes running now.
    private(set) var count = 0
    private var listeners: [UInt64: @MainActor (Int) -> Void] = [:]
    /// The child scopes whose overlays are on screen, with how many overlays each.
    private var coveredChildren: [ObjectIdentifier: (manager: WeakManager, overlays: Int)] = [:]
    private var nextID: UInt64 = 0

    nonisolated init() {}

    /// A refresh started.
    func begin() {
        count += 1
        tell()
    }

    /// A refresh ended. An end without a begin does nothing.
    func end() {
        guard count > 0 else { return }
        count -= 1
        tell()
    }

    /// Calls `listener` with each new count until ``removeListener(_:)``; returns its ID.
    func addListener(_ listener: @escaping @MainActor (Int) -> Void) -> UInt64 {
        defer { nextID += 1 }
        listeners[nextID] = listener
        return nextID
    }

    func removeListener(_ id: UInt64) {
        listeners[id] = nil
    }

    /// Whether some child scope draws an overlay of its own now.
    var coversChildren: Bool { !coveredChildren.isEmpty }

    /// The tasks of the child scopes that draw an overlay of their own, exact now (each
    /// child's `activeTaskCount`, its own descendants included).
    var coveredTaskCount: Int {
        coveredChildren.values.reduce(0) { $0 + ($1.manager.manager?.activeTaskCount ?? 0) }
    }

    /// An overlay of `child`, a child scope of this one, appeared: its tasks are left out.
    func childOverlayAppeared(_ child: NetworkIndicatorManager) {
        let id = ObjectIdentifier(child)
        coveredChildren[id] = (WeakManager(manager: child), (coveredChildren[id]?.overlays ?? 0) + 1)
        tell()
    }

    /// An overlay of `child` disappeared: once none is left, its tasks count again.
    func childOverlayDisappeared(_ child: NetworkIndicatorManager) {
        let id = ObjectIdentifier(child)
        guard let covered = coveredChildren[id] else { return }
        coveredChildren[id] = covered.overlays > 1 ? (covered.manager, covered.overlays - 1) : nil
        tell()
    }

    private func tell() {
        for listener in listeners.values { listener(count) }
    }
}

/// A manager held weakly: a child scope outlives its overlay only while something else holds it.
struct WeakManager {
    weak var manager: NetworkIndicatorManager?
}
