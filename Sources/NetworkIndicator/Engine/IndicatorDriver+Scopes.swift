import Foundation

/// Scopes: a change in a child manager reaches every ancestor before the call returns. Locks
/// are taken child before parent, never the other way round, so that no two calls deadlock.
extension IndicatorDriver {
    /// After the count changed from `old` (lock held): tells the machine, and the ancestors,
    /// whose locks are taken in turn, child before parent, while this one is held, so that
    /// every ancestor sees a descendant's changes in the order they happened. Returns whether
    /// this driver's machine asks for a reconcile; ancestors whose machine does are collected
    /// in `hops`. Both are enqueued after the locks.
    @inline(__always)
    func countChanged(
        from old: Int,
        in state: inout State,
        now: TimeInterval,
        notifiesMachine: Bool = true,
        hops: inout [IndicatorDriver]
    ) -> Bool {
        let new = state.activeTaskCount
        guard new != old else { return false }
        if old == 0 { state.activeSince = now }
        parent?.descendantsChanged(by: new - old, now: now, hops: &hops)
        return notifiesMachine
            && state.machine.countChanged(from: old, to: new, needsSweep: state.needsSweep, now: now)
    }

    /// A descendant's count moved by `delta` (its lock is held).
    func descendantsChanged(by delta: Int, now: TimeInterval, hops: inout [IndicatorDriver]) {
        state.withLock { state in
            let old = state.activeTaskCount
            state.descendantTaskCount += delta
            if countChanged(from: old, in: &state, now: now, hops: &hops) { hops.append(self) }
        }
    }

    /// The child `child` shut down with `endedTaskCount` tasks of its own still open (its lock
    /// is held).
    func childShutDown(
        _ child: IndicatorDriver,
        endedTaskCount: Int,
        now: TimeInterval,
        hops: inout [IndicatorDriver]
    ) {
        state.withLock { state in
            state.children[ObjectIdentifier(child)] = nil
            let old = state.activeTaskCount
            state.descendantTaskCount -= endedTaskCount
            if countChanged(from: old, in: &state, now: now, hops: &hops) { hops.append(self) }
        }
    }

    /// Ends every task of this manager and of all its descendants (children first).
    func resetTree() {
        let children = state.withLock { Array($0.children.values) }
        for child in children { child.resetTree() }
        changeTasks { state, _ in state.registry.removeAll() }
    }
}
