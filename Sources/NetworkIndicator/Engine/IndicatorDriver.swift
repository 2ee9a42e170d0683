import Foundation

/// Storage and effects for one manager's node of an ``IndicatorTree``; the whole tree sits behind
/// the root's lock, shared by every driver of the tree. Each event locks, calls the tree's one
/// event, unlocks, then performs the effects. Only this file takes the lock, and nothing under it
/// runs code we do not own (schedulers, outputs, diagnostics handlers, the last release of a
/// caller's object).
///
/// Callers' objects: a caller's object is not `Sendable`, so the methods that move one into or out
/// of the tree (``beginToken(_:label:)``, ``snapshot(keepingAlive:)``, ``finishSweep(completed:now:)``,
/// ``cancelTree()``) use `withLockUnchecked`. Safe because the registry holds it weakly and under the
/// lock only compares its identity or hands it back; once out, it is only released, or called as
/// ``NetworkActivityCompletionReporting`` and ``NetworkActivityCancellable`` document.
///
/// ``liveDriver`` (emptied by ``shutDown()``, from the manager's `deinit`) is a deliberate cycle:
/// a weak reference would slow every retain (Benchmarks/README.md, "Unsafe and hand-written
/// constructs").
final class IndicatorDriver: Sendable {
    let scheduler: any NetworkIndicatorScheduler
    /// Whether event times come from ``CoarseClock`` under the lock (see ``eventTime()``).
    private let readsCoarseClock: Bool
    private let storage: LockedState<Storage>
    let node: IndicatorTree.NodeID
    let delivery = OutputDelivery()
    /// This driver until ``shutDown()``, then `nil`: the way scheduled work reaches it.
    let liveDriver = LockedState<IndicatorDriver?>(nil)

    /// The driver of a root manager, with a tree of its own.
    init(scheduler: any NetworkIndicatorScheduler, diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler) {
        self.scheduler = scheduler
        self.readsCoarseClock = scheduler is MainQueueScheduler
        self.storage = LockedState(Storage(tree: IndicatorTree(diagnosticsHandler: diagnosticsHandler)))
        self.node = IndicatorTree.rootID
        liveDriver.withLock { $0 = self }
        let box = liveDriver
        storage.withLock { $0.liveDrivers = [box] }
    }

    /// The driver of a scope of `parent`'s manager, in `parent`'s tree.
    init(childOf parent: IndicatorDriver, label: String?) {
        self.scheduler = parent.scheduler
        self.readsCoarseClock = parent.readsCoarseClock
        self.storage = parent.storage
        let box = liveDriver
        self.node = parent.storage.withLock { storage in
            let handler = storage.tree.read(parent.node, ifGone: IndicatorTree.silent) { $0.diagnosticsHandler }
            let node = storage.tree.addNode(childOf: parent.node, label: label, diagnosticsHandler: handler)
            storage.setLiveDriver(box, at: node.index)
            return node
        }
        liveDriver.withLock { $0 = self }
    }

    /// The manager is gone: its tasks end in every ancestor, its timers are cancelled, its streams
    /// finished, its outputs told on the main actor. Work still queued does nothing.
    func shutDown() {
        var time = eventTime()
        let (removal, hops) = storage.withLock { storage in
            let removal = storage.tree.removeNode(node, time: &time)
            storage.liveDrivers[Int(node.index)] = nil
            return (removal, storage.boxes(for: removal.hops))
        }
        liveDriver.withLock { $0 = nil }
        enqueueReconciles(hops)
        for timer in removal.timers { timer.cancel() }
        for stream in removal.streams { stream.finish() }
        scheduler.enqueue { [delivery] in delivery.shutDown() }
    }

    // MARK: - Tasks, from any thread

    /// Begins one task for a caller's `token`, held weakly (not this manager's own opaque token:
    /// see ``beginOpaqueToken(label:)``).
    @inline(__always)  // pays: every begin (Benchmarks/README.md, "Inlining")
    func beginToken(_ token: AnyObject, label: String?) {
        var time = eventTime()
        // A caller's object enters the tree: see "Callers' objects" in the header.
        let hops = storage.withLockUnchecked { storage in
            // Change the tree before reading `storage`: reading it first retains it, and the change copies the tree.
            let hops = storage.tree.beginToken(token, label: label, in: node, time: &time)
            return storage.boxes(for: hops)
        }
        enqueueReconciles(hops)
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
        let (cancellation, hops) = storage.withLockUnchecked { storage in
            let (cancellation, hops) = storage.tree.cancelSubtree(of: node, time: &time)
            return (cancellation, storage.boxes(for: hops))
        }
        enqueueReconciles(hops)
        return cancellation.work
    }

    // MARK: - Reading, from any thread

    /// This manager's entries, one record per child with tasks, and its count, in one lock hold;
    /// the live objects they name go to `keptAlive`, to release after the lock.
    func snapshot(keepingAlive keptAlive: inout [AnyObject]) -> (records: [TaskRegistry.ActivityRecord], count: Int) {
        // Callers' objects leave the tree: see "Callers' objects" in the header.
        storage.withLockUnchecked { $0.tree.snapshot(of: node, keepingAlive: &keptAlive) }
    }

    /// Reads this manager's node under the lock (`ifGone` once shut down): the way `+Node` reads the tree.
    func read<Result: Sendable>(ifGone: Result, _ body: @Sendable (IndicatorTree.Node) -> Result) -> Result {
        storage.withLock { $0.tree.read(node, ifGone: ifGone, body) }
    }

    /// Changes this manager's node under the lock, moving no count (`ifGone` once shut down): the way `+Node` does.
    func update<Result: Sendable>(ifGone: Result, _ body: @Sendable (inout IndicatorTree.Node) -> Result) -> Result {
        storage.withLock { $0.tree.update(node, ifGone: ifGone, body) }
    }

    /// The open tasks of the manager and its descendants that `measured` leaves, counted in one
    /// hold of the tree's lock: each measures up to its `cap` open tasks of its token in its
    /// node (of this tree). For the progress snapshot, never on begin or finish.
    func unmeasuredTaskCount(_ measured: [MeasuredTasks]) -> Int {
        storage.withLock { storage in
            var count = storage.tree.read(node, ifGone: 0) { $0.activeTaskCount }
            for tasks in measured {
                let open = storage.tree.read(tasks.node, ifGone: 0) { node in
                    guard let pinned = tasks.pinned else { return node.registry.openTaskCount(tasks.key) }
                    return node.registry.openTaskCount(pinnedAt: pinned.slot, generation: pinned.generation)
                }
                count -= min(open, tasks.cap)
            }
            return max(count, 0)
        }
    }

    // MARK: - The main queue

    /// The pending hop runs: the machine brings the policy and the timers up to date.
    @MainActor
    func reconcile() {
        let now = scheduler.now
        if let delivery = storage.withLock({ $0.tree.reconcile(node, now: now) }) { perform(delivery) }
    }

    @MainActor
    func delayTimerFired(generation: UInt64) {
        let now = scheduler.now
        let delivery = storage.withLock { $0.tree.delayTimerFired(node, generation: generation, now: now) }
        if let delivery { perform(delivery) }
    }

    /// Installs the started timers; returns the stale ones (replaced, or shut down) to cancel after the lock.
    func install(
        _ started: [(IndicatorStateMachine.TimerKind, UInt64, any NetworkIndicatorTimer)]
    ) -> [any NetworkIndicatorTimer] {
        storage.withLock { $0.tree.install(started, in: node) }
    }

    /// The sweep's first step: ends the tasks of dead tokens and carries the change to the
    /// ancestors; the machine hears of it when the sweep finishes. `nil` once shut down.
    @MainActor
    func sweepRegistry(now: TimeInterval) -> TaskRegistry.SweepResult? {
        let (found, hops) = storage.withLock { storage in
            let (found, hops) = storage.tree.sweepRegistry(node, now: now)
            return (found, storage.boxes(for: hops))
        }
        enqueueReconciles(hops)
        return found
    }

    /// The sweep's last step: ends the tasks of tokens that reported completion (if their entries
    /// are still theirs) and updates the machine; returns the handler for the stale-task reports.
    @MainActor
    func finishSweep(
        completed: [(key: ObjectIdentifier, object: AnyObject)],
        now: TimeInterval
    ) -> NetworkIndicatorDiagnosticsHandler {
        // Callers' objects enter the lock, only to be compared: see "Callers' objects" in the header.
        let (delivery, hops, handler) = storage.withLockUnchecked { storage in
            let (delivery, hops) = storage.tree.finishSweep(node, completed: completed, now: now)
            let handler = storage.tree.read(node, ifGone: IndicatorTree.silent) { $0.diagnosticsHandler }
            return (delivery, storage.boxes(for: hops), handler)
        }
        if let delivery { perform(delivery) }
        enqueueReconciles(hops)
        return handler
    }

    // MARK: - Private

    /// Runs `event` on the tree under the lock, then enqueues the reconciles it asked for.
    @discardableResult
    @inline(__always)  // pays: every task event (Benchmarks/README.md, "Inlining")
    private func changeTasks<Result: Sendable>(
        _ event: (inout IndicatorTree, inout EventTime) -> (Result, IndicatorTree.Hops)
    ) -> Result {
        var time = eventTime()
        let (result, hops) = storage.withLock { storage in
            let (result, hops) = event(&storage.tree, &time)
            return (result, storage.boxes(for: hops))
        }
        enqueueReconciles(hops)
        return result
    }

    /// ``changeTasks(_:)`` for an event whose only result is its hops.
    @inline(__always)  // pays: every event without a result (Benchmarks/README.md, "Inlining")
    private func change(_ event: (inout IndicatorTree, inout EventTime) -> IndicatorTree.Hops) {
        changeTasks { (tree: inout IndicatorTree, time: inout EventTime) in ((), event(&tree, &time)) }
    }

    /// Queues one reconcile of this manager; the machine allows one pending at a time.
    func enqueueReconcile() {
        enqueueReconcile(of: liveDriver)
    }

    /// Queues a reconcile of the driver that `box` holds (any node of this tree), if it still lives then.
    func enqueueReconcile(of box: LockedState<IndicatorDriver?>) {
        scheduler.enqueue { box.withLock { $0 }?.reconcile() }
    }

    /// After the lock: the reconciles an event asked for, this manager's and the others'.
    @inline(__always)  // pays: every task event (Benchmarks/README.md, "Inlining")
    private func enqueueReconciles(_ hops: Hops) {
        if hops.ownNode { enqueueReconcile() }
        guard let others = hops.others else { return }
        for box in others { enqueueReconcile(of: box) }
    }

    /// The time of an event: a reading taken before the lock for a scheduler other than
    /// ``MainQueueScheduler``; otherwise the coarse clock, read under it only if needed.
    private func eventTime() -> EventTime {
        EventTime(preread: readsCoarseClock ? nil : scheduler.now)
    }
}

extension IndicatorDriver {
    /// The tree behind the lock, and the box of each node's driver for scheduled work.
    private struct Storage {
        var tree: IndicatorTree
        /// By node index: the node driver's ``IndicatorDriver/liveDriver`` box, `nil` once removed.
        var liveDrivers: [LockedState<IndicatorDriver?>?] = []

        mutating func setLiveDriver(_ box: LockedState<IndicatorDriver?>, at index: Int32) {
            while liveDrivers.count <= Int(index) { liveDrivers.append(nil) }
            liveDrivers[Int(index)] = box
        }

        /// The tree's hops as the boxes of the drivers to reach after the lock.
        @inline(__always)  // pays: every task event (Benchmarks/README.md, "Inlining")
        func boxes(for hops: IndicatorTree.Hops) -> Hops {
            Hops(ownNode: hops.ownNode, others: hops.others.map { $0.compactMap { liveDrivers[Int($0)] } })
        }
    }

    /// The reconciles to enqueue after the lock.
    private struct Hops: Sendable {
        var ownNode: Bool
        var others: [LockedState<IndicatorDriver?>]?
    }
}
