import Foundation

/// Storage and effects for one manager's node of an ``IndicatorTree``: every manager of a tree
/// (a root and its scopes) shares the root's lock and the tree value behind it. Each event is
/// one method here: read the time if needed, take the lock, call the tree's one event, release
/// the lock, perform the effects (main-queue hops, timers, deliveries to outputs and streams).
///
/// The lock and its ``Storage`` are `private` to this file, so the compiler enforces that only
/// the methods written here take the lock. Under the lock, code only reads and changes the
/// tree; whatever can run code we do not own (schedulers, outputs, diagnostics handlers, the
/// last release of a caller's object) happens after it is released.
///
/// ## Callers' objects
///
/// The lock box follows the standard library's `Mutex`: its state goes in as `sending` and is
/// reached as `inout sending`, so the compiler checks what enters and leaves the lock. A
/// caller's object is not `Sendable` (`AnyObject`), and the manager's whole point is to hold
/// callers' objects weakly, from any thread: the methods that move one into or out of the tree
/// where the compiler cannot follow it (``beginToken(_:label:)``, ``snapshot(keepingAlive:)``,
/// ``finishSweep(completed:now:)``, ``cancelTree()``) take the lock with `withLockUnchecked`.
/// It is safe because the driver never calls a caller's object under the lock or on another
/// thread: the registry holds it weakly and reads it only to compare identities or to hand it
/// back, and what leaves the lock is only released afterwards or, for a
/// ``NetworkActivityCompletionReporting`` token, asked `isNetworkActivityFinished` on the main
/// actor, or, for a ``NetworkActivityCancellable`` one that a cancel ended, told `cancel()` on
/// the canceller's thread, as those protocols document.
///
/// ## Scheduled work
///
/// Scheduled work reaches the driver through ``liveDriver``, a box that the driver fills at
/// creation and ``shutDown()`` (called by the manager's `deinit`) empties: a cycle broken by
/// the manager's `deinit`, instead of a weak reference, because a weakly referenced object gets
/// a side table that makes every retain of it slow (Benchmarks/README.md, "Unsafe and
/// hand-written constructs"). The tree's storage keeps each node's box, so that an event in a
/// scope can queue its ancestors' reconciles.
final class IndicatorDriver: Sendable {
    let scheduler: any NetworkIndicatorScheduler
    /// The scheduler is ``MainQueueScheduler``, whose clock has a cheap coarse reading
    /// (``CoarseClock``), read under the lock only when a start time or a delay edge needs it.
    /// Any other scheduler's `now` is the caller's code: it is read before taking the lock.
    private let readsCoarseClock: Bool
    /// The tree of this manager, shared by every driver of the tree.
    private let storage: LockedState<Storage>
    /// This manager's node in the tree.
    let node: IndicatorTree.NodeID
    let delivery = OutputDelivery()
    /// The way back to this driver for scheduled work: the driver until ``shutDown()``, then
    /// `nil`.
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

    /// The driver of a scope of `parent`'s manager, in `parent`'s tree, named `label` in its
    /// parent's snapshot.
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

    /// The manager is gone: its remaining tasks end in every ancestor, the timers are
    /// cancelled, the streams finished, and the outputs told (on the main actor) that the
    /// indicator is gone. Work still queued does nothing.
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
        // Outputs belong to the main actor: they hear that the indicator is gone there.
        scheduler.enqueue { [delivery] in delivery.shutDown() }
    }

    // MARK: - Tasks, from any thread

    /// Begins one task for a caller's `token`, held weakly (not this manager's own opaque token:
    /// see ``beginOpaqueToken(label:)``).
    @inline(__always)
    func beginToken(_ token: AnyObject, label: String?) {
        var time = eventTime()
        // A caller's object enters the tree: see "Callers' objects" in the header.
        let hops = storage.withLockUnchecked { storage in
            // The tree changes before the storage is read: `storage.boxes(for: storage.tree…)`
            // would read (and retain) the storage first, and the change would copy the tree.
            let hops = storage.tree.beginToken(token, label: label, in: node, time: &time)
            return storage.boxes(for: hops)
        }
        enqueueReconciles(hops)
    }

    /// Begins one task under `key` that the sweep never checks: a group's (`object` is its key)
    /// or a helper's load (`object` is the load), held weakly so that a cancel reaches it.
    func begin(_ key: ObjectIdentifier, object: (any AnyObject & Sendable)?, kind: TaskKind, label: String?) {
        change { $0.begin(key, object: object, kind: kind, label: label, in: node, time: &$1) }
    }

    /// Pins a slot for a new opaque token and begins its first task; returns the slot and its
    /// generation, which the caller makes the token with after the lock. A pair that is never
    /// pinned if the manager is gone.
    @inline(__always)
    func beginOpaqueToken(label: String?) -> PinnedSlot {
        changeTasks { $0.beginOpaqueToken(label: label, in: node, time: &$1) } ?? PinnedSlot(slot: -1, generation: 0)
    }

    /// Begins one more task of the opaque token `pinned`; `false` if its pair is stale.
    func beginOpaqueToken(_ pinned: PinnedSlot, label: String?) -> Bool {
        changeTasks { $0.beginOpaqueToken(pinned, label: label, in: node, time: &$1) }
    }

    /// Ends one task of the opaque token pinned at `slot` in `generation`.
    func finishOne(pinnedAt slot: Int32, generation: UInt32) -> TaskRegistry.FinishOutcome {
        changeTasks { $0.finishOne(pinnedAt: slot, generation: generation, in: node, time: &$1) }
    }

    /// Ends every task of the opaque token pinned at `slot` in `generation` without freeing
    /// the slot (the token lives on).
    func finishAll(pinnedAt slot: Int32, generation: UInt32) {
        change { $0.finishAll(pinnedAt: slot, generation: generation, unpinning: false, in: node, time: &$1) }
    }

    /// The opaque token pinned at `slot` in `generation` is released: its tasks end and the
    /// slot is freed, its generation bumped. A stale pair (the generation compare fails)
    /// changes nothing.
    @inline(__always)
    func release(slot: Int32, generation: UInt32) {
        change { $0.finishAll(pinnedAt: slot, generation: generation, unpinning: true, in: node, time: &$1) }
    }

    /// Ends one task under `key`.
    @inline(__always)
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

    /// Ends the tasks whose work can be cancelled, in this manager and all its descendants, in
    /// one hold of the lock, and returns the work, to cancel after the lock. The callers'
    /// objects read under the lock leave it in the result (see "Callers' objects" in the
    /// header); the ones not returned are released here, after the lock.
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

    /// The manager's entries and one record per child with tasks, as snapshot records, and its
    /// count, all read in one hold of the lock. The live objects that name them are appended
    /// to `keptAlive`, to release after the lock.
    func snapshot(keepingAlive keptAlive: inout [AnyObject]) -> (records: [TaskRegistry.ActivityRecord], count: Int) {
        // Callers' objects leave the tree: see "Callers' objects" in the header.
        storage.withLockUnchecked { $0.tree.snapshot(of: node, keepingAlive: &keptAlive) }
    }

    /// Reads this manager's node under the lock; `ifGone` once shut down. The one way the
    /// readers in `IndicatorDriver+Node.swift` reach the tree.
    @inline(__always)
    func read<Result: Sendable>(ifGone: Result, _ body: @Sendable (IndicatorTree.Node) -> Result) -> Result {
        storage.withLock { $0.tree.read(node, ifGone: ifGone, body) }
    }

    /// Changes this manager's node under the lock, without a count change; `ifGone` once shut
    /// down. The one way the methods in `IndicatorDriver+Node.swift` change the tree.
    @inline(__always)
    func update<Result: Sendable>(ifGone: Result, _ body: @Sendable (inout IndicatorTree.Node) -> Result) -> Result {
        storage.withLock { $0.tree.update(node, ifGone: ifGone, body) }
    }

    // MARK: - The main queue

    /// The pending hop runs: the machine brings the policy and the timers up to date.
    @MainActor
    func reconcile() {
        let now = scheduler.now
        if let delivery = storage.withLock({ $0.tree.reconcile(node, now: now) }) { perform(delivery) }
    }

    /// The delay timer of `generation` fired.
    @MainActor
    func delayTimerFired(generation: UInt64) {
        let now = scheduler.now
        let delivery = storage.withLock { $0.tree.delayTimerFired(node, generation: generation, now: now) }
        if let delivery { perform(delivery) }
    }

    /// Installs the timers just started, in one go; returns those whose generation is no
    /// longer current (replaced meanwhile, or shut down), to cancel after the lock.
    func install(
        _ started: [(IndicatorStateMachine.TimerKind, UInt64, any NetworkIndicatorCancellable)]
    ) -> [any NetworkIndicatorCancellable] {
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

    /// The sweep's last step: ends the tasks of tokens that reported completion (if their
    /// entries are still theirs), carries the change to the ancestors, and brings the machine
    /// up to date; returns the diagnostics handler, for the stale-task reports.
    @MainActor
    func finishSweep(
        completed: [(key: ObjectIdentifier, object: AnyObject)],
        now: TimeInterval
    ) -> NetworkIndicatorDiagnosticsHandler {
        // Callers' objects enter the lock, only to be compared: see "Callers' objects" in the
        // header.
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
    @inline(__always)
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
    @inline(__always)
    private func change(_ event: (inout IndicatorTree, inout EventTime) -> IndicatorTree.Hops) {
        changeTasks { (tree: inout IndicatorTree, time: inout EventTime) in ((), event(&tree, &time)) }
    }

    /// Queues one reconcile of this manager on the main queue; the machine allows one pending
    /// at a time.
    func enqueueReconcile() {
        enqueueReconcile(of: liveDriver)
    }

    /// Queues one reconcile, on the main queue, of the driver that `box` holds (this one's, or
    /// another node's of the same tree), if it still lives then.
    func enqueueReconcile(of box: LockedState<IndicatorDriver?>) {
        scheduler.enqueue { box.withLock { $0 }?.reconcile() }
    }

    /// After the lock: the reconciles an event asked for, this manager's and the others'.
    @inline(__always)
    private func enqueueReconciles(_ hops: Hops) {
        if hops.ownNode { enqueueReconcile() }
        guard let others = hops.others else { return }
        for box in others { enqueueReconcile(of: box) }
    }

    /// The time of an event: the scheduler's own reading for a scheduler other than
    /// ``MainQueueScheduler``, taken before the lock; otherwise the coarse clock, read only if
    /// needed (a new entry's start time, an edge a running delay absorbs).
    @inline(__always)
    private func eventTime() -> EventTime {
        EventTime(preread: readsCoarseClock ? nil : scheduler.now)
    }
}

extension IndicatorDriver {
    /// The tree behind the lock, and the box of each node's driver for scheduled work.
    private struct Storage {
        var tree: IndicatorTree
        /// By node index: the ``IndicatorDriver/liveDriver`` box of the node's driver, `nil`
        /// for a removed node.
        var liveDrivers: [LockedState<IndicatorDriver?>?] = []

        mutating func setLiveDriver(_ box: LockedState<IndicatorDriver?>, at index: Int32) {
            while liveDrivers.count <= Int(index) { liveDrivers.append(nil) }
            liveDrivers[Int(index)] = box
        }

        /// The tree's hops as the boxes of the drivers to reach after the lock.
        @inline(__always)
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
