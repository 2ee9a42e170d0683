import Foundation

/// One manager's handle on an ``IndicatorTree``: the whole tree sits behind one lock, shared by
/// every driver of the tree, beside one ``OutputDelivery`` on the main actor. Each event locks,
/// calls the tree's one event, unlocks, then enqueues the tree's hop if the event asked for it.
/// Nothing under the lock runs code we do not own (schedulers, outputs, diagnostics handlers,
/// the last release of a caller's object).
///
/// Callers' objects: a caller's object is not `Sendable`, so the methods that move one into or out
/// of the tree (``beginToken(_:label:)``, ``snapshot(keepingAlive:)``, ``cancelTree()``, and the
/// sweep's last step in ``OutputDelivery``) use `withLockUnchecked`. Safe because the registry
/// holds it weakly and under the lock only compares its identity or hands it back; once out, it
/// is only released, or called as ``NetworkActivityCompletionReporting`` and
/// ``NetworkActivityCancellable`` document.
final class IndicatorDriver: Sendable {
    let scheduler: any NetworkIndicatorScheduler
    /// Whether event times come from ``CoarseClock`` under the lock (see ``eventTime()``).
    private let readsCoarseClock: Bool
    private let tree: LockedState<IndicatorTree>
    let node: IndicatorTree.NodeID
    /// The tree's outputs and timers, shared by every driver of the tree.
    let delivery: OutputDelivery

    /// The driver of a root manager, with a tree of its own.
    init(scheduler: any NetworkIndicatorScheduler, diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler) {
        self.scheduler = scheduler
        self.readsCoarseClock = scheduler is MainQueueScheduler
        self.tree = LockedState(IndicatorTree(diagnosticsHandler: diagnosticsHandler))
        self.node = IndicatorTree.rootID
        self.delivery = OutputDelivery(tree: tree, scheduler: scheduler)
    }

    /// The driver of a scope of `parent`'s manager, in `parent`'s tree.
    init(childOf parent: IndicatorDriver, label: String?) {
        self.scheduler = parent.scheduler
        self.readsCoarseClock = parent.readsCoarseClock
        self.tree = parent.tree
        self.delivery = parent.delivery
        self.node = parent.tree.withLock { tree in
            let handler = tree.read(parent.node, ifGone: IndicatorTree.silent) { $0.diagnosticsHandler }
            return tree.addNode(childOf: parent.node, label: label, diagnosticsHandler: handler)
        }
    }

    /// The manager is gone: its tasks end in every ancestor, and on the main actor its timers
    /// stop, its streams finish and its outputs are told.
    func shutDown() {
        var time = eventTime()
        if tree.withLock({ $0.removeNode(node, time: &time) }) { delivery.enqueueHop(on: scheduler) }
        scheduler.enqueue { [delivery, node] in delivery.remove(node) }
        if node == IndicatorTree.rootID { delivery.rootRemoved() }
    }

    // MARK: - Tasks, from any thread

    /// Begins one task for a caller's `token`, held weakly (not this manager's own opaque token:
    /// see ``beginOpaqueToken(label:)``).
    @inline(__always)  // pays: every begin (Benchmarks/README.md, "Inlining")
    func beginToken(_ token: AnyObject, label: String?) {
        var time = eventTime()
        // A caller's object enters the tree: see "Callers' objects" in the header.
        let needsHop = tree.withLockUnchecked { $0.beginToken(token, label: label, in: node, time: &time) }
        if needsHop { delivery.enqueueHop(on: scheduler) }
    }

    /// Begins one task under `key` that the sweep never checks; `object`, held weakly, is what a cancel reaches.
    func begin(_ key: ObjectIdentifier, object: (any AnyObject & Sendable)?, kind: TaskKind, label: String?) {
        change { $0.begin(key, object: object, kind: kind, label: label, in: node, time: &$1) }
    }

    /// Pins a slot for a new opaque token and begins its first task; returns the pair the caller
    /// makes the token with after the lock (a never-pinned pair once the manager is gone).
    @inline(__always)  // pays: every new opaque token (Benchmarks/README.md, "Inlining")
    func beginOpaqueToken(label: String?) -> PinnedSlot {
        changeTasks { $0.beginOpaqueToken(label: label, in: node, time: &$1) } ?? PinnedSlot(slot: -1, generation: 0)
    }

    /// Begins one more task of the opaque token `pinned`; `false` if its pair is stale.
    func beginOpaqueToken(_ pinned: PinnedSlot, label: String?) -> Bool {
        changeTasks { $0.beginOpaqueToken(pinned, label: label, in: node, time: &$1) }
    }

    /// Ends one task of the opaque token pinned at `slot` in `generation`; a stale pair is
    /// `.unknown`.
    func finishOne(pinnedAt slot: Int32, generation: UInt32) -> TaskRegistry.FinishOutcome {
        changeTasks { $0.finishOne(pinnedAt: slot, generation: generation, in: node, time: &$1) }
    }

    /// Ends every task of the opaque token at (`slot`, `generation`); the slot stays pinned.
    func finishAll(pinnedAt slot: Int32, generation: UInt32) {
        change { $0.finishAll(pinnedAt: slot, generation: generation, unpinning: false, in: node, time: &$1) }
    }

    /// The opaque token at (`slot`, `generation`) is released: its tasks end, the slot is freed and
    /// its generation bumped. A stale pair (the generation compare fails) changes nothing.
    @inline(__always)  // pays: every opaque release (Benchmarks/README.md, "Inlining")
    func release(slot: Int32, generation: UInt32) {
        change { $0.finishAll(pinnedAt: slot, generation: generation, unpinning: true, in: node, time: &$1) }
    }

    /// Ends one task under `key`.
    @inline(__always)  // pays: every finish (Benchmarks/README.md, "Inlining")
    func finishOne(_ key: ObjectIdentifier) -> TaskRegistry.FinishOutcome {
        changeTasks { $0.finishOne(key, in: node, time: &$1) }
    }

    /// Ends every task under `key` without reporting anything (a token or group going away).
    func finishAll(_ key: ObjectIdentifier) {
        change { $0.finishAll(key, in: node, time: &$1) }
    }

    /// Begins one counted task.
    func push() {
        change { $0.push(in: node, time: &$1) }
    }

    /// Ends one counted task; `false` (and no change) if none is open.
    func pop() -> Bool {
        changeTasks { $0.pop(in: node, time: &$1) }
    }

    /// Ends every task of this manager and of all its descendants, in one hold of the lock.
    func resetTree() {
        change { $0.resetSubtree(of: node, time: &$1) }
    }

    /// Ends the cancellable tasks of this manager's subtree in one lock hold; returns their work, to
    /// cancel after the lock. Objects not returned are released here, after the lock.
    func cancelTree() -> [any NetworkActivityCancellable] {
        var time = eventTime()
        // Callers' objects leave the tree: see "Callers' objects" in the header.
        let (cancellation, needsHop) = tree.withLockUnchecked { $0.cancelSubtree(of: node, time: &time) }
        if needsHop { delivery.enqueueHop(on: scheduler) }
        return cancellation.work
    }

    // MARK: - Reading, from any thread

    /// This manager's entries, one record per child with tasks, and its count, in one lock hold;
    /// the live objects they name go to `keptAlive`, to release after the lock.
    func snapshot(keepingAlive keptAlive: inout [AnyObject]) -> (records: [TaskRegistry.ActivityRecord], count: Int) {
        // Callers' objects leave the tree: see "Callers' objects" in the header.
        tree.withLockUnchecked { $0.snapshot(of: node, keepingAlive: &keptAlive) }
    }

    /// Reads this manager's node under the lock (`ifGone` once shut down): the way `+Node` reads the tree.
    func read<Result: Sendable>(ifGone: Result, _ body: @Sendable (IndicatorTree.Node) -> Result) -> Result {
        tree.withLock { $0.read(node, ifGone: ifGone, body) }
    }

    /// Changes this manager's node under the lock, moving no count and asking no hop (`ifGone`
    /// once shut down).
    func update<Result: Sendable>(ifGone: Result, _ body: @Sendable (inout IndicatorTree.Node) -> Result) -> Result {
        tree.withLock { $0.update(node, ifGone: ifGone, body) }
    }

    /// Runs a tree event that moves no count, then enqueues the tree's hop if it asked for it.
    func machineEvent<Result: Sendable>(_ event: @Sendable (inout IndicatorTree, IndicatorTree.NodeID) -> (Result, Bool)) -> Result {
        let (result, needsHop) = tree.withLock { event(&$0, node) }
        if needsHop { delivery.enqueueHop(on: scheduler) }
        return result
    }

    /// The open tasks of the manager and its descendants that `measured` leaves, counted in one
    /// hold of the tree's lock: each measures up to its `cap` open tasks of its token in its
    /// node (of this tree). For the progress snapshot, never on begin or finish.
    func unmeasuredTaskCount(_ measured: [MeasuredTasks]) -> Int {
        tree.withLock { tree in
            var count = tree.read(node, ifGone: 0) { $0.activeTaskCount }
            for tasks in measured {
                let open = tree.read(tasks.node, ifGone: 0) { node in
                    guard let pinned = tasks.pinned else { return node.registry.openTaskCount(tasks.key) }
                    return node.registry.openTaskCount(pinnedAt: pinned.slot, generation: pinned.generation)
                }
                count -= min(open, tasks.cap)
            }
            return max(count, 0)
        }
    }

    // MARK: - Private

    /// Runs `event` on the tree under the lock, then enqueues the tree's hop if it asked for it.
    @discardableResult
    @inline(__always)  // pays: every task event (Benchmarks/README.md, "Inlining")
    private func changeTasks<Result: Sendable>(
        _ event: (inout IndicatorTree, inout EventTime) -> (Result, Bool)
    ) -> Result {
        var time = eventTime()
        let (result, needsHop) = tree.withLock { event(&$0, &time) }
        if needsHop { delivery.enqueueHop(on: scheduler) }
        return result
    }

    /// ``changeTasks(_:)`` for an event whose only result is whether it asks for the hop.
    @inline(__always)  // pays: every event without a result (Benchmarks/README.md, "Inlining")
    private func change(_ event: (inout IndicatorTree, inout EventTime) -> Bool) {
        changeTasks { (tree: inout IndicatorTree, time: inout EventTime) in ((), event(&tree, &time)) }
    }

    /// The time of an event: a reading taken before the lock for a scheduler other than
    /// ``MainQueueScheduler``; otherwise the coarse clock, read under it only if needed.
    private func eventTime() -> EventTime {
        EventTime(preread: readsCoarseClock ? nil : scheduler.now)
    }
}
