import NetworkIndicator

/// What a scope's overlay leaves out, so that it never draws a second spinner: how many of the
/// scope's tasks are pull-to-refreshes (the system's refresh control shows one already), and
/// which child scopes draw an overlay of their own (their tasks are theirs to show).
///
/// `networkActivityRefreshable` counts each refresh here, for as long as it also counts in the
/// scope's manager; an overlay of a child scope registers its manager here while it is on
/// screen; an overlay of the scope listens. Main actor only.
@MainActor
final class ScopeOverlayExclusions {
    /// The refreshes running now.
    private(set) var count = 0
    /// Each listener, and the object it lives for (`nil`: until removed).
    private var listeners: [UInt64: (owner: WeakObject?, listener: @MainActor (Int) -> Void)] = [:]
    /// The child scopes whose overlays are on screen, with those overlays, each held weakly: an
    /// overlay released without disappearing (an output let go) covers nothing any more.
    private var coveredChildren: [ObjectIdentifier: (manager: WeakManager, overlays: [WeakObject])] = [:]
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

    /// Calls `listener` with each new count until ``removeListener(_:)`` or until `owner` is
    /// gone; returns its ID.
    func addListener(owner: AnyObject? = nil, _ listener: @escaping @MainActor (Int) -> Void) -> UInt64 {
        defer { nextID += 1 }
        listeners[nextID] = (owner.map { WeakObject(object: $0) }, listener)
        return nextID
    }

    func removeListener(_ id: UInt64) {
        listeners[id] = nil
    }

    /// Whether some child scope draws an overlay of its own now.
    var coversChildren: Bool { !liveCoveredChildren.isEmpty }

    /// The descendant scopes whose overlays on screen cover their own tasks, and their
    /// progress: this scope's overlays leave both out.
    var coveredScopes: [NetworkIndicatorManager] { liveCoveredChildren }

    /// The covered child scopes that live, each with a live overlay.
    private var liveCoveredChildren: [NetworkIndicatorManager] {
        coveredChildren.values.compactMap { covered in
            covered.overlays.contains { $0.object != nil } ? covered.manager.manager : nil
        }
    }

    /// The tasks of the child scopes that draw an overlay of their own, exact now (each
    /// child's `activeTaskCount`, its own descendants included); a covered scope below another
    /// covered one (an output's overlay registers in every ancestor) is counted once, in it.
    var coveredTaskCount: Int {
        let covered = liveCoveredChildren
        let ids = Set(covered.map(ObjectIdentifier.init))
        return covered.reduce(0) { total, child in
            let isInsideAnother = sequence(first: child, next: \.parent).dropFirst()
                .contains { ids.contains(ObjectIdentifier($0)) }
            return isInsideAnother ? total : total + child.activeTaskCount
        }
    }

    /// `overlay`, of `child`, a child scope of this one, appeared: its tasks are left out while
    /// the overlay lives. An entry left by a scope that is gone (its address now another's) is
    /// replaced.
    func childOverlayAppeared(_ child: NetworkIndicatorManager, overlay: AnyObject) {
        let id = ObjectIdentifier(child)
        var overlays = coveredChildren[id].flatMap { $0.manager.manager === child ? $0.overlays : nil } ?? []
        overlays.removeAll { $0.object == nil }
        overlays.append(WeakObject(object: overlay))
        coveredChildren[id] = (WeakManager(manager: child), overlays)
        tell()
    }

    /// `overlay`, of the child scope `id` names, disappeared: once none is left, its tasks
    /// count again.
    func childOverlayDisappeared(_ id: ObjectIdentifier, overlay: AnyObject) {
        guard var covered = coveredChildren[id] else { return }
        covered.overlays.removeAll { $0.object == nil || $0.object === overlay }
        coveredChildren[id] = covered.overlays.isEmpty ? nil : covered
        tell()
    }

    /// The scope of `manager` as the UIKit and AppKit overlay outputs see it, made at the first
    /// ask and kept while `manager` lives: they have no environment to find an enclosing
    /// scope's in, so each output's overlay covers its manager in every ancestor's.
    static func forOutputs(of manager: NetworkIndicatorManager) -> ScopeOverlayExclusions {
        outputScopes = outputScopes.filter { $0.value.manager.manager != nil }
        let id = ObjectIdentifier(manager)
        if let found = outputScopes[id] { return found.refreshes }
        let refreshes = ScopeOverlayExclusions()
        outputScopes[id] = (WeakManager(manager: manager), refreshes)
        return refreshes
    }

    private static var outputScopes: [ObjectIdentifier: (manager: WeakManager, refreshes: ScopeOverlayExclusions)] =
        [:]

    /// An overlay that covered a child scope here was released without disappearing: the
    /// listeners count that scope's tasks again.
    func overlayReleased() {
        tell()
    }

    private func tell() {
        listeners = listeners.filter { $0.value.owner.map { $0.object != nil } ?? true }
        coveredChildren = coveredChildren.filter { $0.value.overlays.contains { $0.object != nil } }
        for entry in listeners.values { entry.listener(count) }
    }
}

/// An overlay's place in the scopes above its manager's, which leave the manager's tasks to it
/// while it lives. ``end(by:)`` takes it out at once (the view went away). Released without it
/// (an output let go on screen), it tells those scopes at the scheduler's next turn, so that
/// their overlays show the manager's running tasks again without waiting for a count change.
@MainActor
final class ScopeCover {
    private let scopes: [ScopeOverlayExclusions]
    private let manager: ObjectIdentifier
    private let scheduler: any NetworkIndicatorScheduler
    private var isEnded = false

    /// Registers `overlay`, of `manager`, in `scopes`; a release is told on the manager's
    /// scheduler.
    init(_ manager: NetworkIndicatorManager, by overlay: AnyObject, in scopes: [ScopeOverlayExclusions]) {
        self.scopes = scopes
        self.manager = ObjectIdentifier(manager)
        self.scheduler = manager.scheduler
        for scope in scopes { scope.childOverlayAppeared(manager, overlay: overlay) }
    }

    /// `overlay` disappeared: the scopes count the manager's tasks again now.
    func end(by overlay: AnyObject) {
        isEnded = true
        for scope in scopes { scope.childOverlayDisappeared(manager, overlay: overlay) }
    }

    deinit {
        guard !isEnded else { return }
        let scopes = scopes
        scheduler.enqueue {
            for scope in scopes { scope.overlayReleased() }
        }
    }
}

/// A manager held weakly: a child scope outlives its overlay only while something else holds it.
struct WeakManager {
    weak var manager: NetworkIndicatorManager?
}

/// An overlay or a listener's owner, held weakly.
struct WeakObject {
    weak var object: AnyObject?
}
