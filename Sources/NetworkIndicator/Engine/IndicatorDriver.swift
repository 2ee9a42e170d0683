import Foundation

/// Runs one manager's ``IndicatorStateMachine``: keeps it, the registry and everything else
/// shared across threads behind one lock, feeds it events, and performs the actions it returns
/// after releasing the lock (timers, main-queue hops, deliveries to outputs and streams).
///
/// This file is the only code that takes the lock: ``state`` is private to it, reached through
/// three primitives, ``changeTasks(_:)`` (a change of the count, carried to the ancestors and
/// told to the machine), ``withState(_:)`` (reads, and changes that move no count) and
/// ``perform(_:)`` (a main-queue event asked of the machine, its answer performed after the
/// lock), and by ``shutDown()`` and the sweep's two steps. The other `IndicatorDriver+` files
/// build the driver's methods on these primitives and perform their answers after the lock; the
/// manager, its extensions, snapshots and groups call those methods, never a primitive.
///
/// What only the main actor touches (the outputs and what they were told) lives in
/// ``OutputDelivery``, reached without the lock.
///
/// Scheduled work reaches the driver through ``liveDriver``, a box that the driver fills at
/// creation and ``shutDown()`` (called by the manager's `deinit`) empties: a deliberate cycle,
/// broken by the manager's `deinit`, instead of a weak reference. An object that is the target
/// of a weak reference gets a side table, and every retain and release of it then takes the
/// runtime's slow path; a child's begin+finish retains the drivers of its ancestors. Measured in
/// the `ratios` runs (Benchmarks/README.md, "Unsafe and hand-written constructs"): the box saves
/// 34 % of a root begin+finish per child at depth 1 and 58 % at depth 2, and little at the root.
/// Work still queued after the shutdown finds the box empty, and a scheduler dropped with work
/// still queued holds no driver.
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

    init(
        scheduler: any NetworkIndicatorScheduler,
        diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler,
        parent: IndicatorDriver? = nil,
        label: String? = nil
    ) {
        self.scheduler = scheduler
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
    /// lock: the scheduler's coarse reading (``NetworkIndicatorScheduler/coarseNow``).
    @inline(__always)
    func timestamp() -> TimeInterval {
        scheduler.coarseNow
    }

    // MARK: - Tasks, from any thread

    /// Runs `change` under the lock (with the time, read before it), tells the
    /// machine how the count moved, carries the change to every ancestor before releasing the
    /// lock, and enqueues the reconciles asked for.
    @discardableResult
    @inline(__always)
    func changeTasks<Result>(_ change: (inout State, TimeInterval) -> Result) -> Result {
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
        if old == 0 {
            state.activeSince = now
            state.busyPeriod &+= 1
        }
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

    /// Runs `body` under the lock: reads, and changes that move no count.
    @inline(__always)
    func withState<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock(body)
    }

    // MARK: - The main queue

    /// (``perform(_:stopping:streams:)``).
    @MainActor
    func perform(_ event: (inout State) -> IndicatorStateMachine.Reconciliation?) {
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
