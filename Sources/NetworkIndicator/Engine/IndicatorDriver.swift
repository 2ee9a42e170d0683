import Foundation

/// Runs one manager's ``IndicatorStateMachine``: keeps it, the registry and everything else
/// shared across threads behind one lock, feeds it events, and performs the actions it returns
/// after releasing the lock (timers, main-queue hops, deliveries to outputs and streams).
///
/// The lock and its ``State`` are `private` to this file, so the compiler enforces that only the
/// methods written here take the lock; everything else (the manager and its extensions,
/// snapshots, groups, tokens, and the main-queue side in `IndicatorDriver+MainQueue.swift`)
/// calls these methods. Under the lock, code only reads and changes the state; whatever can run
/// code we do not own (schedulers, outputs, diagnostics handlers, the last release of a
/// caller's object) happens after it is released.
///
/// ## Callers' objects
///
/// The lock box follows the standard library's `Mutex`: its state goes in as `sending` and is
/// reached as `inout sending`, so the compiler checks what enters and leaves the lock, and
/// ``State`` needs no `@unchecked Sendable`. A caller's object is not `Sendable` (`AnyObject`),
/// and the manager's whole point is to hold callers' objects weakly, from any thread: the four
/// methods that move one into or out of the state where the compiler cannot follow it
/// (``beginToken(_:label:)``, ``snapshotParts(keepingAlive:)``,
/// ``finishSweep(completed:now:)``, ``cancelTree()``) take the lock with `withLockUnchecked`,
/// which skips that check. (The sweep's result, made fresh under the lock, passes the check.) It is safe because the
/// driver never calls a caller's object under the lock or on another thread: the registry holds
/// it weakly and reads it only to compare identities or to hand it back, and what leaves the
/// lock is only released afterwards or, for a ``NetworkActivityCompletionReporting`` token,
/// asked `isNetworkActivityFinished` on the main actor, as that protocol documents, or, for a
/// ``NetworkActivityCancellable`` one that a cancel ended, told `cancel()` on the canceller's
/// thread, as that protocol documents.
///
/// ## A tree of managers
///
/// A root and all its scopes (child managers, at any depth) share one lock, the root's: each
/// driver's ``State`` stays in its own box, but every box of a tree is reached under the root
/// box's lock (``TreeLockedState``). A change in a scope takes that lock once, changes the
/// scope's state, and carries the count to every ancestor's state before releasing it, so each
/// ancestor sees a descendant's changes in the order they happened, and there is no lock order
/// to keep. An ancestor's state is reached with the proof that the lock is held (`LockHeld`,
/// noncopyable, lent only inside the lock), checked against the tree's lock, not by taking it
/// again (it is not recursive). Before, every level had its own lock, taken child before
/// parent; each change in a scope already took every ancestor's lock, so sharing one serializes
/// nothing more, and saves a lock pair per level (Benchmarks/README.md, "Fifth pass").
///
/// Scheduled work reaches the driver through ``liveDriver``, a box that the driver fills at
/// creation and ``shutDown()`` (called by the manager's `deinit`) empties: a deliberate cycle,
/// broken by the manager's `deinit`, instead of a weak reference, because a weakly referenced
/// object gets a side table and every retain of it then takes the runtime's slow path. The
/// measured gain is in
/// Benchmarks/README.md ("Unsafe and hand-written constructs").
final class IndicatorDriver: Sendable {
    let scheduler: any NetworkIndicatorScheduler
    /// The scheduler is ``MainQueueScheduler``, whose clock has a cheap coarse reading
    /// (``CoarseClock``), read under the lock only when a start time or a delay edge needs it.
    /// Any other scheduler's `now` is the caller's code: it is read before taking the lock.
    private let readsCoarseClock: Bool
    private let state: TreeLockedState
    let delivery = OutputDelivery()
    /// The parent manager's driver, which every count change reaches before the call returns.
    let parent: IndicatorDriver?
    /// The name of the manager in its parent's snapshot.
    let label: String?
    /// The way back to this driver for scheduled work: the driver until ``shutDown()``, then
    /// `nil`.
    let liveDriver = LockedState<IndicatorDriver?>(nil)

    init(
        scheduler: any NetworkIndicatorScheduler,
        diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler,
        parent: IndicatorDriver? = nil,
        label: String? = nil
    ) {
        self.scheduler = scheduler
        self.readsCoarseClock = scheduler is MainQueueScheduler
        self.state = TreeLockedState(State(diagnosticsHandler: diagnosticsHandler), under: parent?.state)
        self.parent = parent
        self.label = label
        liveDriver.withLock { $0 = self }
        parent?.state.withLock { $0.children[ObjectIdentifier(self)] = self }
    }

    /// The manager is gone: cancels the timers, finishes the streams, and has the outputs told
    /// (on the main actor) that the indicator is gone. Work still queued does nothing.
    ///
    /// A child's remaining tasks (its descendants are gone: they keep it alive) end in every
    /// ancestor at once, and the child leaves its parent's list.
    func shutDown() {
        var clock = clock()
        var hops = Hops()
        let (timers, streams) = state.withTreeLock { state, held in
            state.isShutDown = true
            liveDriver.withLock { $0 = nil }
            if let parent {
                let ended = state.registry.activeTaskCount
                state.registry.removeAll()
                parent.descendantsChanged(
                    by: -ended,
                    clock: &clock,
                    hops: &hops,
                    held: held,
                    leaving: ObjectIdentifier(self)
                )
            }
            defer {
                state.timers.removeAll()
                state.streams.removeAll()
            }
            return (Array(state.timers.values), state.streams.all)
        }
        hops.enqueueReconciles()
        for timer in timers { timer.cancel() }
        for stream in streams { stream.finish() }
        // Outputs belong to the main actor: they hear that the indicator is gone there.
        scheduler.enqueue { [delivery] in delivery.shutDown() }
    }

    // MARK: - Tasks, from any thread

    /// Begins one task for a caller's `token`, held weakly (not this manager's own opaque token:
    /// see ``beginOpaqueToken(of:label:)``).
    @inline(__always)
    func beginToken(_ token: AnyObject, label: String?) {
        var clock = clock()
        var hops = Hops()
        // A caller's object enters the state: see "Callers' objects" in the header.
        let hop = state.withLockUnchecked { state, held in
            let old = state.activeTaskCount
            let kind = state.classifier.kind(of: token)
            state.registry.begin(
                ObjectIdentifier(token),
                object: token,
                kind: kind,
                label: label,
                now: clock.now()
            )
            return settle(from: old, in: &state, clock: &clock, hops: &hops, held: held)
        }
        enqueueReconciles(hop: hop, hops: hops)
    }

    /// Begins one task under `key` that the sweep never checks: a group's (`object` is its key)
    /// or a helper's load (`object` is the load), held weakly so that a cancel reaches it.
    /// Both objects are the package's own and `Sendable`.
    func begin(_ key: ObjectIdentifier, object: (any AnyObject & Sendable)?, kind: TaskKind, label: String?) {
        changeTasks { $0.registry.begin(key, object: object, kind: kind, label: label, now: $1.now()) }
    }

    // MARK: Opaque tokens, in slots pinned to them (no hash lookup)

    /// Makes an opaque token of `manager` (this driver's), with the index of the slot pinned to
    /// it, and begins its first task. The token is made under the lock (an allocation, no code
    /// of the caller's), so that it knows its slot from the start.
    @inline(__always)
    func beginOpaqueToken(of manager: NetworkIndicatorManager, label: String?) -> NetworkActivityToken {
        // Handed out through a local, not as the locked closure's result: a generic result is
        // copied on its way out, a retain and a release of the token per begin.
        var made: NetworkActivityToken?
        changeTasks { state, clock in
            let slot = state.registry.nextPinnedSlot
            let token = NetworkActivityToken(manager: manager, slot: slot)
            state.registry.beginPinned(newAt: slot, key: ObjectIdentifier(token), label: label, now: clock.now())
            made = token
        }
        return made!
    }

    /// Begins one more task of the opaque token `key` pinned at `slot`; `false` if the slot is
    /// not pinned to it.
    func beginOpaqueToken(at slot: Int32, key: ObjectIdentifier, label: String?) -> Bool {
        changeTasks { $0.registry.beginPinned(at: slot, key: key, label: label, now: $1.now()) }
    }

    /// Ends one task of the opaque token `key` pinned at `slot`.
    func finishOne(pinnedAt slot: Int32, key: ObjectIdentifier) -> TaskRegistry.FinishOutcome {
        changeTasks { state, _ in state.registry.finishOnePinned(at: slot, key: key) }
    }

    /// Ends every task of the opaque token `key` pinned at `slot`; `unpinning` (its `deinit`)
    /// also frees the slot. Inlined into the manager's `endTasks(ofOpaqueToken:pinnedAt:unpinning:)`,
    /// its one caller, which the token's `deinit` reaches.
    @inline(__always)
    func finishAll(pinnedAt slot: Int32, key: ObjectIdentifier, unpinning: Bool) {
        changeTasks { state, _ in state.registry.finishAllPinned(at: slot, key: key, unpinning: unpinning) }
    }

    /// Ends one task under `key`.
    ///
    /// ``changeTasks(_:)`` spelled out: through it, the optimizer kept this closure out of line
    /// (about 30 instructions per finish under callgrind: Benchmarks/README.md, "Fourth pass").
    @inline(__always)
    func finishOne(_ key: ObjectIdentifier) -> TaskRegistry.FinishOutcome {
        var clock = clock()
        var hops = Hops()
        let (outcome, hop) = state.withTreeLock { state, held in
            let old = state.activeTaskCount
            let outcome = state.registry.finishOne(key)
            return (outcome, settle(from: old, in: &state, clock: &clock, hops: &hops, held: held))
        }
        enqueueReconciles(hop: hop, hops: hops)
        return outcome
    }

    /// Ends every task under `key` without reporting anything (a token or group going away).
    func finishAll(_ key: ObjectIdentifier) {
        changeTasks { state, _ in state.registry.finishAll(key) }
    }

    /// Begins one counted task.
    func push() {
        changeTasks { $0.registry.push(now: $1.now()) }
    }

    /// Ends one counted task; `false` (and no change) if none is open.
    func pop() -> Bool {
        changeTasks { state, _ in state.registry.pop() }
    }

    /// Ends every task of this manager and of all its descendants (children first).
    func resetTree() {
        let children = state.withLock { Array($0.children.values) }
        for child in children { child.resetTree() }
        changeTasks { state, _ in state.registry.removeAll() }
    }

    /// Ends the tasks whose work can be cancelled, in this manager and all its descendants
    /// (children first, each in one hold of the tree's lock, as ``resetTree()``), and returns
    /// the work, to cancel after the lock. The callers' objects read under the lock leave it in
    /// the result (see "Callers' objects" in the header); the ones not returned are released
    /// here, after each hold.
    func cancelTree() -> [any NetworkActivityCancellable] {
        let children = state.withLock { Array($0.children.values) }
        var work = children.flatMap { $0.cancelTree() }
        var clock = clock()
        var hops = Hops()
        // Callers' objects leave the state: see "Callers' objects" in the header.
        let (cancellation, hop) = state.withLockUnchecked { state, held in
            let old = state.activeTaskCount
            let cancellation = state.registry.endCancellableTasks()
            return (cancellation, settle(from: old, in: &state, clock: &clock, hops: &hops, held: held))
        }
        enqueueReconciles(hop: hop, hops: hops)
        work += cancellation.work
        return work
    }

    // MARK: - Reading, from any thread

    /// The open tasks of the manager and its descendants.
    var activeTaskCount: Int {
        state.withLock { $0.activeTaskCount }
    }

    /// Whether `key` has an open task in this manager (and the manager is not gone): the
    /// progress roll-up (`Progress/`) asks it when a fraction is read, never on begin or finish.
    func hasOpenTask(_ key: ObjectIdentifier) -> Bool {
        state.withLock { !$0.isShutDown && $0.registry.table.value(for: key) != nil }
    }

    /// Whether the opaque token `key` pinned at `slot` has an open task (see ``hasOpenTask(_:)``).
    func hasOpenTask(pinnedAt slot: Int32, key: ObjectIdentifier) -> Bool {
        state.withLock { !$0.isShutDown && $0.registry.hasOpenTask(pinnedAt: slot, key: key) }
    }

    /// The open tasks of the manager and its descendants, and how many times that count has
    /// left zero: a new busy period tells the progress roll-up that the scope was idle in
    /// between, even if nobody read it while it was.
    var progressActivity: ProgressActivity {
        state.withLock { ProgressActivity(count: $0.activeTaskCount, busyPeriod: $0.busyPeriod) }
    }

    /// The label the caller's token `key` was begun with, if its tasks ended lately and it is
    /// still alive (see ``EndedLabels``): for the report of a finish that found no task.
    func labelOfEndedToken(_ key: ObjectIdentifier) -> String? {
        state.withLock { $0.registry.endedLabels.label(of: key) }
    }

    /// The open operations of the group keyed `key`.
    func groupCount(for key: ObjectIdentifier) -> Int {
        state.withLock { $0.registry.groupCount(for: key) }
    }

    /// The manager's own entries as snapshot records (the live objects that name them are
    /// appended to `keptAlive`, to release after the lock), its children, and its count.
    func snapshotParts(
        keepingAlive keptAlive: inout [AnyObject]
    ) -> (records: [TaskRegistry.ActivityRecord], children: [IndicatorDriver], count: Int) {
        // Callers' objects leave the state: see "Callers' objects" in the header.
        state.withLockUnchecked { state, _ in
            (state.registry.records(keepingAlive: &keptAlive), Array(state.children.values), state.activeTaskCount)
        }
    }

    /// This manager's count and when it last left zero, for its parent's snapshot.
    var activity: (count: Int, since: TimeInterval) {
        state.withLock { ($0.activeTaskCount, $0.activeSince) }
    }

    /// The settings now.
    var settings: IndicatorStateMachine.Settings {
        state.withLock { $0.machine.settings }
    }

    /// Changes the settings under the lock; they apply at the next main-queue hop.
    func updateSettings(_ update: (inout IndicatorStateMachine.Settings) -> Void) {
        if state.withLock({ $0.machine.settingsChanged(update) }) { enqueueReconcile() }
    }

    /// The handler that receives diagnostics.
    var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler {
        state.withLock { $0.diagnosticsHandler }
    }

    /// Replaces the handler; the old one (and whatever it captured) is released after the lock.
    func replaceDiagnosticsHandler(with handler: @escaping NetworkIndicatorDiagnosticsHandler) {
        let old = state.withLock { state in
            defer { state.diagnosticsHandler = handler }
            return state.diagnosticsHandler
        }
        _ = old
    }

    // MARK: - Streams and outputs

    /// Registers a stream's continuation (primed at the next hop); returns its id.
    func addStream(_ continuation: StreamRegistry.Continuation) -> UInt64 {
        let (id, hop) = state.withLock { ($0.streams.add(continuation), $0.machine.streamOpened()) }
        if hop { enqueueReconcile() }
        return id
    }

    /// Forgets the stream `id` (its consumer went away).
    func removeStream(_ id: UInt64) {
        state.withLock { $0.streams.remove(id) }
    }

    /// Tells the machine that an output was attached; returns the count to tell it at once, if
    /// it wants counts.
    func outputAttached(receivesCount: Bool) -> Int? {
        let (count, hop) = state.withLock {
            $0.machine.outputAttached(receivesCount: receivesCount, activity: $0.activity)
        }
        if hop { enqueueReconcile() }
        return count
    }

    /// `count` outputs that wanted counts were detached or found deallocated.
    func countObserversLeft(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.machine.countObserversLeft(count) }
    }

    // MARK: - The main queue

    /// The pending hop runs: the machine brings the policy and the timers up to date.
    @MainActor
    func reconcile() {
        let now = scheduler.now
        perform { $0.machine.reconcile($0.activity, now: now) }
    }

    /// The delay timer of `generation` fired.
    @MainActor
    func delayTimerFired(generation: UInt64) {
        let now = scheduler.now
        perform { $0.machine.delayTimerFired(generation: generation, $0.activity, now: now) }
    }

    /// Installs the timers just started, in one go; returns those whose generation is no
    /// longer current (replaced meanwhile, or shut down), to cancel after the lock.
    func install(
        _ started: [(IndicatorStateMachine.Timer, UInt64, any NetworkIndicatorCancellable)]
    ) -> [any NetworkIndicatorCancellable] {
        state.withLock { state in
            started.compactMap { timer, generation, handle -> (any NetworkIndicatorCancellable)? in
                guard !state.isShutDown, state.machine.isCurrent(timer, generation: generation) else { return handle }
                state.timers[timer] = handle
                return nil
            }
        }
    }

    /// The sweep's first step: ends the tasks of dead tokens and carries the change to the
    /// ancestors; the machine hears of it when the sweep finishes. `nil` once shut down.
    @MainActor
    func sweepRegistry(now: TimeInterval) -> TaskRegistry.SweepResult? {
        var hops = Hops()
        let found = state.withTreeLock { state, held -> TaskRegistry.SweepResult? in
            guard !state.isShutDown else { return nil }
            let old = state.activeTaskCount
            let found = state.registry.sweep(now: now, staleThreshold: state.machine.settings.staleTaskThreshold)
            var clock = Clock(preread: now)
            carry(from: old, to: state.activeTaskCount, in: &state, clock: &clock, hops: &hops, held: held)
            return found
        }
        hops.enqueueReconciles()
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
        var hops = Hops()
        var handler = diagnosticsHandler
        // Callers' objects enter the lock, only to be compared: see "Callers' objects" in the
        // header.
        let taken = state.withLockUnchecked { state, held -> Taken? in
            guard !state.isShutDown else { return nil }
            let old = state.activeTaskCount
            for candidate in completed {
                state.registry.finishAll(candidate.key, ifStillOwnedBy: candidate.object)
            }
            var clock = Clock(preread: now)
            carry(from: old, to: state.activeTaskCount, in: &state, clock: &clock, hops: &hops, held: held)
            handler = state.diagnosticsHandler
            return Self.take(state.machine.sweepFinished(state.activity, now: now), from: &state)
        }
        if let (reconciliation, stopped, streams) = taken {
            perform(reconciliation, stopping: stopped, streams: streams)
        }
        hops.enqueueReconciles()
        return handler
    }

    // MARK: - Private

    /// Asks the machine `event` under the lock (unless shut down) and performs its answer after
    /// the lock: the timers it stops, then `IndicatorDriver+MainQueue.swift`'s delivery.
    @MainActor
    private func perform(_ event: (inout sending State) -> IndicatorStateMachine.Reconciliation?) {
        guard let (reconciliation, stopped, streams) = take(event) else { return }
        perform(reconciliation, stopping: stopped, streams: streams)
    }

    /// The locked half of ``perform(_:)``: asks the machine and takes what to perform.
    private func take(
        _ event: (inout sending State) -> IndicatorStateMachine.Reconciliation?
    ) -> Taken? {
        state.withLock { state in
            guard !state.isShutDown, let reconciliation = event(&state) else { return nil }
            return Self.take(reconciliation, from: &state)
        }
    }

    /// What the main actor performs after the lock: the machine's answer, the timers it stops,
    /// and the streams to tell.
    private typealias Taken = (
        IndicatorStateMachine.Reconciliation, [any NetworkIndicatorCancellable], StreamRegistry.Delivery
    )

    /// Takes the timers `reconciliation` stops and the streams to tell out of `state`.
    private static func take(_ reconciliation: IndicatorStateMachine.Reconciliation, from state: inout State) -> Taken {
        let stopped = reconciliation.timerChanges.keys.compactMap { state.timers.removeValue(forKey: $0) }
        let streams = state.streams.takeDelivery(visibilityChanged: reconciliation.visibility != nil)
        return (reconciliation, stopped, streams)
    }

    /// Runs `change` under the lock, tells the machine how the count moved, carries the change
    /// to every ancestor before releasing the lock, and enqueues the reconciles asked for.
    @discardableResult
    @inline(__always)
    private func changeTasks<Result: Sendable>(_ change: (inout sending State, inout Clock) -> Result) -> Result {
        var clock = clock()
        var hops = Hops()
        let (result, hop) = state.withTreeLock { state, held in
            let old = state.activeTaskCount
            let result = change(&state, &clock)
            return (result, settle(from: old, in: &state, clock: &clock, hops: &hops, held: held))
        }
        enqueueReconciles(hop: hop, hops: hops)
        return result
    }

    /// After a change of the count from `old` (lock held): carries it to the ancestors and
    /// tells the machine; returns whether this manager needs a reconcile.
    @inline(__always)
    private func settle(
        from old: Int,
        in state: inout State,
        clock: inout Clock,
        hops: inout Hops,
        held: borrowing LockHeld
    ) -> Bool {
        let new = state.activeTaskCount
        return carry(from: old, to: new, in: &state, clock: &clock, hops: &hops, held: held)
            && state.machine.tasksChanged(from: old, to: state.activity(count: new), now: clock.now())
    }

    /// After the lock: the reconciles a change asked for, this manager's and its ancestors'.
    @inline(__always)
    private func enqueueReconciles(hop: Bool, hops: Hops) {
        if hop { enqueueReconcile() }
        hops.enqueueReconciles()
    }

    /// After the count changed from `old` to `new`, which is ``State/activeTaskCount`` now (the
    /// tree's lock `held`): carries the change to the parent under the same lock, so that every
    /// ancestor sees a descendant's changes in the order they happened. Returns whether the
    /// count moved. Ancestors whose machine asks for a reconcile are collected in `hops`,
    /// enqueued after the lock.
    @inline(__always)
    @discardableResult
    private func carry(
        from old: Int,
        to new: Int,
        in state: inout State,
        clock: inout Clock,
        hops: inout Hops,
        held: borrowing LockHeld
    ) -> Bool {
        guard let moved = countMoved(from: old, to: new, in: &state, clock: &clock) else { return false }
        // Optional chaining borrows the parent (no `if let` copy, so no retain and release).
        parent?.descendantsChanged(by: moved, clock: &clock, hops: &hops, held: held)
        return true
    }

    /// How far the count moved from `old` to `new` (``State/activeTaskCount`` now, the tree's
    /// lock held), `nil` if it did not; where it left zero, a new busy period begins.
    @inline(__always)
    private func countMoved(from old: Int, to new: Int, in state: inout State, clock: inout Clock) -> Int? {
        guard new != old else { return nil }
        if old == 0 {
            // The progress roll-up's busy period: one increment where the count leaves zero.
            state.busyPeriod &+= 1
            // Only a parent's snapshot reads when a child became active.
            if parent != nil { state.activeSince = clock.now() }
        }
        return new - old
    }

    /// A descendant's count moved by `delta` (the tree's lock `held`, not taken again).
    ///
    /// Inlined into the changed manager's own path (the parent's step); each further ancestor
    /// is reached through ``ancestorChanged(by:clock:hops:held:)``, out of line, which breaks the
    /// recursion that would otherwise keep the optimizer from inlining any of it.
    @inline(__always)
    private func descendantsChanged(by delta: Int, clock: inout Clock, hops: inout Hops, held: borrowing LockHeld) {
        let hop = state.withLock(held: held) {
            descendantsChanged(by: delta, in: &$0, clock: &clock, hops: &hops, held: held)
        }
        if hop { hops.append(self) }
    }

    /// ``descendantsChanged(by:clock:hops:held:)`` out of line, for a grandparent and above.
    @inline(never)
    private func ancestorChanged(by delta: Int, clock: inout Clock, hops: inout Hops, held: borrowing LockHeld) {
        descendantsChanged(by: delta, clock: &clock, hops: &hops, held: held)
    }

    /// A child that is `leaving` (shut down) ends its remaining `delta` tasks and leaves the list
    /// of children, under one lock: a path of its own, so that no other change carries the
    /// dictionary work.
    private func descendantsChanged(
        by delta: Int,
        clock: inout Clock,
        hops: inout Hops,
        held: borrowing LockHeld,
        leaving: ObjectIdentifier
    ) {
        let hop = state.withLock(held: held) { state in
            state.children[leaving] = nil
            return descendantsChanged(by: delta, in: &state, clock: &clock, hops: &hops, held: held)
        }
        if hop { hops.append(self) }
    }

    /// The locked half of both: applies `delta`, carries the change further up, and tells the
    /// machine; returns whether this manager needs a reconcile.
    @inline(__always)
    private func descendantsChanged(
        by delta: Int,
        in state: inout State,
        clock: inout Clock,
        hops: inout Hops,
        held: borrowing LockHeld
    ) -> Bool {
        let old = state.activeTaskCount
        state.descendantTaskCount += delta
        let new = old + delta
        guard let moved = countMoved(from: old, to: new, in: &state, clock: &clock) else { return false }
        parent?.ancestorChanged(by: moved, clock: &clock, hops: &hops, held: held)
        return state.machine.tasksChanged(from: old, to: state.activity(count: new), now: clock.now())
    }

    /// The time of a change: the scheduler's own reading for a scheduler other than
    /// ``MainQueueScheduler``, taken before the lock; otherwise the coarse clock, read only if
    /// needed (a new entry's start time, an edge a running delay absorbs).
    @inline(__always)
    private func clock() -> Clock {
        Clock(preread: readsCoarseClock ? nil : scheduler.now)
    }
}

/// The ancestors whose machine asked for a reconcile during one change, enqueued after the
/// lock. Almost always none: kept as an optional array, because an empty array is still a
/// reference to the shared empty storage that each change would release (measured in
/// Benchmarks/README.md, "Issue 26").
private struct Hops {
    private var drivers: [IndicatorDriver]?

    mutating func append(_ driver: IndicatorDriver) {
        if drivers == nil { drivers = [driver] } else { drivers?.append(driver) }
    }

    /// Enqueues each collected driver's reconcile (after the lock).
    func enqueueReconciles() {
        guard let drivers else { return }
        for driver in drivers { driver.enqueueReconcile() }
    }
}

/// The time of one change, read at most once, and only when asked: see
/// ``IndicatorDriver/clock()``. Passed `inout` from the first reader to the last (the entry's
/// start, a child's `activeSince`, the machines' edges up the tree), so that one change reads
/// the coarse clock once.
private struct Clock {
    private var reading: TimeInterval?

    init(preread: TimeInterval?) {
        reading = preread
    }

    @inline(__always)
    mutating func now() -> TimeInterval {
        if let reading { return reading }
        let now = CoarseClock.now
        reading = now
        return now
    }
}

extension IndicatorDriver {
    /// Everything shared across threads, behind the one lock, reachable only in this file.
    /// Not `Sendable` (it holds callers' objects weakly): the lock box takes it as `sending`,
    /// and callers' objects cross into and out of it only where the header's "Callers' objects"
    /// says.
    private struct State {
        var registry = TaskRegistry()
        var classifier = TokenClassifier()
        /// The settings, the policy, the timers' generations and the count observers.
        var machine = IndicatorStateMachine()
        var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler
        var streams = StreamRegistry()
        /// The running timers, by the machine's name for them.
        var timers: [IndicatorStateMachine.Timer: any NetworkIndicatorCancellable] = [:]
        /// The manager is gone: queued work does nothing.
        var isShutDown = false
        /// The open tasks of every descendant manager (scopes), kept exact by each change in a
        /// descendant, applied by the descendant's change under the tree's one lock.
        var descendantTaskCount = 0
        /// The drivers of the child managers, for resets and snapshots. A child's driver is not
        /// its manager: holding it keeps no manager alive, and a child removes itself when its
        /// manager goes away.
        var children: [ObjectIdentifier: IndicatorDriver] = [:]
        /// When the count last went from zero to more (read by a parent's snapshot; kept only
        /// by a child).
        var activeSince: TimeInterval = 0
        /// How many times the count went from zero to more: the progress roll-up's busy period
        /// (``IndicatorDriver/progressActivity``).
        var busyPeriod: UInt64 = 0

        /// The manager's own tasks and those of all its descendants.
        var activeTaskCount: Int { registry.activeTaskCount + descendantTaskCount }

        /// What the machine decides on, built here and nowhere else.
        var activity: IndicatorStateMachine.Activity {
            activity(count: activeTaskCount)
        }

        /// ``activity`` for a caller that already has ``activeTaskCount`` (`count`, which must
        /// equal it): read just before, or computed from the change it made.
        func activity(count: Int) -> IndicatorStateMachine.Activity {
            IndicatorStateMachine.Activity(count: count, tracksWeakTokens: registry.sweptEntryCount > 0)
        }
    }
}

extension IndicatorDriver {
    /// A driver's ``State`` behind its tree's one lock: a root's own box, or, for a scope, its
    /// own box reached under the root's lock (the scope's own lock is never taken). See "A tree
    /// of managers" in the header.
    private struct TreeLockedState: Sendable {
        private let own: LockedState<State>
        /// The box whose lock is taken: the root's (`own` for a root).
        private let lockBox: LockedState<State>

        /// `state` under the lock of `parent`'s tree, or under its own lock if `parent` is `nil`.
        init(_ state: sending State, under parent: TreeLockedState?) {
            own = LockedState(state)
            lockBox = parent?.lockBox ?? own
        }

        /// Runs `body` with the tree's lock held: see ``LockedState/withLock(_:)``.
        @inline(__always)
        func withLock<Result>(_ body: (inout sending State) -> sending Result) -> sending Result {
            own.withLock(of: lockBox) { state, _ in body(&state) }
        }

        /// Runs `body` with the tree's lock held, and the proof that it is, to reach the
        /// ancestors' states with ``withLock(held:_:)``.
        @inline(__always)
        func withTreeLock<Result>(
            _ body: (inout sending State, borrowing LockHeld) -> sending Result
        ) -> sending Result {
            own.withLock(of: lockBox, body)
        }

        /// ``withTreeLock(_:)`` without the compiler's check of what enters and
        /// leaves the state: see ``LockedState/withLockUnchecked(of:_:)``.
        @inline(__always)
        func withLockUnchecked<Result>(_ body: (inout State, borrowing LockHeld) -> Result) -> Result {
            own.withLockUnchecked(of: lockBox, body)
        }

        /// Runs `body` while a descendant's change holds the tree's lock (`held`): the lock is
        /// not taken again (it is not recursive). A proof from another tree stops the process.
        @inline(__always)
        func withLock<Result>(
            held: borrowing LockHeld,
            _ body: (inout sending State) -> sending Result
        ) -> sending Result {
            own.withLock(held: held, of: lockBox, body)
        }
    }
}

/// A manager's count and its current busy period, as the progress roll-up sees them.
struct ProgressActivity: Equatable {
    let count: Int
    let busyPeriod: UInt64
}
