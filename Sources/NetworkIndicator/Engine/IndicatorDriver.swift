import Foundation

/// Runs one manager's ``IndicatorStateMachine``: keeps it, the registry and everything else
/// shared across threads behind one lock, feeds it events, and performs the actions it returns
/// after releasing the lock (timers, main-queue hops, deliveries to outputs and streams).
///
/// This file is the only code that takes the lock: ``state`` is private to it. The manager, its
/// extensions, snapshots and groups call the methods here; the other `IndicatorDriver+` files
/// perform what these methods return, after the lock.
///
/// What only the main actor touches (the outputs and what they were told) lives in
/// ``OutputDelivery``, reached without the lock.
///
/// Scheduled work reaches the driver through ``liveDriver``, a box that the driver fills at
/// creation and ``shutDown()`` (called by the manager's `deinit`) empties; nothing refers to the
/// driver weakly, because an object that is the target of a weak reference has every retain and
/// release take the runtime's slow path, and the begin/finish paths retain the driver. Work
/// still queued after the shutdown finds the box empty, and a scheduler dropped with work still
/// queued holds no driver.
final class IndicatorDriver: Sendable {
    let scheduler: any NetworkIndicatorScheduler
    private let state: LockedState<State>
    let delivery = OutputDelivery()
    /// The parent manager's driver, which every count change reaches before the call returns.
    let parent: IndicatorDriver?
    /// The name of the manager in its parent's snapshot.
    let label: String?
    /// The way back to this driver for scheduled work: the driver until ``shutDown()``, then
    /// `nil`.
    let liveDriver = LockedState<IndicatorDriver?>(nil)
    /// `true` for ``MainQueueScheduler``, whose clock has a cheap coarse reading.
    private let readsCoarseClock: Bool

    init(
        scheduler: any NetworkIndicatorScheduler,
        diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler,
        parent: IndicatorDriver? = nil,
        label: String? = nil
    ) {
        self.scheduler = scheduler
        self.readsCoarseClock = scheduler is MainQueueScheduler
        self.state = LockedState(State(diagnosticsHandler: diagnosticsHandler))
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
        var hops: [IndicatorDriver] = []
        let now = timestamp()
        let (timers, streams) = state.withLock { state in
            state.isShutDown = true
            liveDriver.withLock { $0 = nil }
            if let parent {
                let ended = state.registry.activeTaskCount
                state.registry.removeAll()
                parent.state.withLock { parentState in
                    parentState.children[ObjectIdentifier(self)] = nil
                    parent.descendantsChanged(by: -ended, in: &parentState, now: now, hops: &hops)
                }
            }
            defer {
                state.timers.removeAll()
                state.streams.removeAll()
            }
            return (Array(state.timers.values), state.streams.all)
        }
        for driver in hops { driver.enqueueReconcile() }
        for timer in timers { timer.cancel() }
        for stream in streams { stream.finish() }
        // Outputs belong to the main actor: they hear that the indicator is gone there.
        scheduler.enqueue { [delivery] in delivery.shutDown() }
    }

    /// The time for a task's start and for the edges a delay absorbs, read before taking the
    /// lock: the coarse clock for the main queue, the scheduler's own clock otherwise.
    @inline(__always)
    func timestamp() -> TimeInterval {
        readsCoarseClock ? CoarseClock.now : scheduler.now
    }

    // MARK: - Tasks, from any thread

    /// Runs `change` under the lock (with the time, read before it), tells the
    /// machine how the count moved, carries the change to every ancestor before releasing the
    /// lock, and enqueues the reconciles asked for.
    @discardableResult
    @inline(__always)
    private func changeTasks<Result>(_ change: (inout State, TimeInterval) -> Result) -> Result {
        let now = timestamp()
        var hops: [IndicatorDriver] = []
        let (result, hop) = state.withLock { state in
            let old = state.activeTaskCount
            let result = change(&state, now)
            guard carry(from: old, in: &state, now: now, hops: &hops) else { return (result, false) }
            return (result, state.machine.tasksChanged(from: old, to: state.activity, now: now))
        }
        if hop { enqueueReconcile() }
        for driver in hops { driver.enqueueReconcile() }
        return result
    }

    /// After the count changed from `old` (lock held): records when it left zero and carries
    /// the change to the ancestors, whose locks are taken in turn, child before parent, while
    /// this one is held, so that every ancestor sees a descendant's changes in the order they
    /// happened. Returns whether the count moved. Ancestors whose machine asks for a reconcile
    /// are collected in `hops`, enqueued after the locks.
    @inline(__always)
    private func carry(from old: Int, in state: inout State, now: TimeInterval, hops: inout [IndicatorDriver]) -> Bool {
        let new = state.activeTaskCount
        guard new != old else { return false }
        if old == 0 { state.activeSince = now }
        if let parent {
            parent.state.withLock { parent.descendantsChanged(by: new - old, in: &$0, now: now, hops: &hops) }
        }
        return true
    }

    /// A descendant's count moved by `delta` (its lock and this one are held).
    private func descendantsChanged(
        by delta: Int,
        in state: inout State,
        now: TimeInterval,
        hops: inout [IndicatorDriver]
    ) {
        let old = state.activeTaskCount
        state.descendantTaskCount += delta
        if carry(from: old, in: &state, now: now, hops: &hops),
            state.machine.tasksChanged(from: old, to: state.activity, now: now)
        {
            hops.append(self)
        }
    }

    /// Begins one task for a caller's `token` (held weakly, unless it is this manager's own
    /// opaque token, whose `deinit` reports its end).
    func beginToken(_ token: AnyObject, isOwnOpaqueToken: Bool, label: String?) {
        changeTasks { state, now in
            let kind = state.classifier.kind(of: token, isOwnOpaqueToken: isOwnOpaqueToken)
            state.registry.begin(
                ObjectIdentifier(token),
                object: kind.isSwept ? token : nil,
                kind: kind,
                label: label,
                now: now
            )
        }
    }

    /// Begins one task under `key` that no weak reference tracks (an opaque token, a group).
    func begin(_ key: ObjectIdentifier, kind: TaskKind, label: String?) {
        changeTasks { $0.registry.begin(key, object: nil, kind: kind, label: label, now: $1) }
    }

    /// Ends one task under `key`.
    func finishOne(_ key: ObjectIdentifier) -> TaskRegistry.FinishOutcome {
        changeTasks { state, _ in state.registry.finishOne(key) }
    }

    /// Ends every task under `key` without reporting anything (a token or group going away).
    func finishAll(_ key: ObjectIdentifier) {
        changeTasks { state, _ in state.registry.finishAll(key) }
    }

    /// Begins one counted task.
    func push() {
        changeTasks { $0.registry.push(now: $1) }
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

    // MARK: - Reading, from any thread

    /// The open tasks of the manager and its descendants.
    var activeTaskCount: Int {
        state.withLock { $0.activeTaskCount }
    }

    /// Reads the registry under the lock.
    func withRegistry<Result>(_ body: (borrowing TaskRegistry) -> Result) -> Result {
        state.withLock { body($0.registry) }
    }

    /// The manager's own entries as snapshot records (the live objects that name them are
    /// appended to `keptAlive`, to release after the lock), its children, and its count.
    func snapshotParts(
        keepingAlive keptAlive: inout [AnyObject]
    ) -> (records: [TaskRegistry.ActivityRecord], children: [IndicatorDriver], count: Int) {
        state.withLock { state in
            (state.registry.records(keepingAlive: &keptAlive), Array(state.children.values), state.activeTaskCount)
        }
    }

    /// This manager's count and when it last left zero, for its parent's snapshot.
    var activity: (count: Int, since: TimeInterval) {
        state.withLock { ($0.activeTaskCount, $0.activeSince) }
    }

    // MARK: - Settings and diagnostics, from any thread

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

    /// Passes a diagnostic to the handler, outside the lock.
    func report(_ kind: NetworkIndicatorDiagnostic.Kind, label: String) {
        diagnosticsHandler(NetworkIndicatorDiagnostic(kind: kind, label: label))
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

    /// Asks the machine under the lock (with `event`), then performs its answer after the lock
    /// (``perform(_:stopping:streams:)``).
    @MainActor
    private func perform(_ event: (inout State) -> IndicatorStateMachine.Reconciliation?) {
        let taken = state.withLock {
            state -> (IndicatorStateMachine.Reconciliation, [any NetworkIndicatorCancellable], StreamRegistry.Delivery)?
            in
            guard !state.isShutDown, let reconciliation = event(&state) else { return nil }
            let stopped = reconciliation.timerChanges.keys.compactMap { state.timers.removeValue(forKey: $0) }
            let streams = state.streams.takeDelivery(visibilityChanged: reconciliation.visibility != nil)
            return (reconciliation, stopped, streams)
        }
        guard let (reconciliation, stopped, streams) = taken else { return }
        perform(reconciliation, stopping: stopped, streams: streams)
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
        var hops: [IndicatorDriver] = []
        let found = state.withLock { state -> TaskRegistry.SweepResult? in
            guard !state.isShutDown else { return nil }
            let old = state.activeTaskCount
            let found = state.registry.sweep(now: now, staleThreshold: state.machine.settings.staleTaskThreshold)
            _ = carry(from: old, in: &state, now: now, hops: &hops)
            return found
        }
        for driver in hops { driver.enqueueReconcile() }
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
        var hops: [IndicatorDriver] = []
        var handler = diagnosticsHandler
        perform { state in
            let old = state.activeTaskCount
            for candidate in completed {
                state.registry.finishAll(candidate.key, ifStillOwnedBy: candidate.object)
            }
            _ = carry(from: old, in: &state, now: now, hops: &hops)
            handler = state.diagnosticsHandler
            return state.machine.sweepFinished(state.activity, now: now)
        }
        for driver in hops { driver.enqueueReconcile() }
        return handler
    }
}
