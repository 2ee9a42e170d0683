import Foundation

/// Runs one manager's ``IndicatorStateMachine``: keeps it, the registry and everything else
/// shared across threads behind one lock, feeds it events, and performs the actions it returns
/// after releasing the lock (timers, main-queue hops, deliveries to outputs and streams).
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
    /// Everything shared across threads, behind the one lock.
    struct State {
        var registry = TaskRegistry()
        var classifier = TokenClassifier()
        var machine = IndicatorStateMachine()
        var settings = IndicatorStateMachine.Settings()
        var staleTaskThreshold: TimeInterval?
        var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler
        var streams = StreamRegistry()
        /// The running timers, by the machine's name for them.
        var timers: [IndicatorStateMachine.Timer: any NetworkIndicatorCancellable] = [:]
        /// The manager is gone: queued work does nothing.
        var isShutDown = false
        /// The open tasks of every descendant manager (scopes), kept exact by each change in a
        /// descendant, applied under this lock while the descendant's lock is held.
        var descendantTaskCount = 0
        /// The drivers of the child managers, for resets and snapshots. A child's driver is not
        /// its manager: holding it keeps no manager alive, and a child removes itself when its
        /// manager goes away.
        var children: [ObjectIdentifier: IndicatorDriver] = [:]
        /// When the count last went from zero to more (for a parent's snapshot).
        var activeSince: TimeInterval = 0

        /// The manager's own tasks and those of all its descendants.
        var activeTaskCount: Int { registry.activeTaskCount + descendantTaskCount }

        /// Whether the sweep must run: weak tokens are tracked, or a stale-task threshold is set
        /// while anything is active.
        var needsSweep: Bool {
            registry.sweptEntryCount > 0 || (staleTaskThreshold != nil && activeTaskCount > 0)
        }
    }

    let scheduler: any NetworkIndicatorScheduler
    let state: LockedState<State>
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
                parent.childShutDown(self, endedTaskCount: ended, now: now, hops: &hops)
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

    // MARK: - Events from any thread

    /// The time for a task's start and for the edges a delay absorbs, read before taking the
    /// lock: the coarse clock for the main queue, the scheduler's own clock otherwise.
    @inline(__always)
    func timestamp() -> TimeInterval {
        readsCoarseClock ? CoarseClock.now : scheduler.now
    }

    /// Runs `change` under the lock (with the time, read before it), tells the machine how the
    /// count moved (unless `reconcilesItself`: the sweep reconciles right after), carries the
    /// change to every ancestor before releasing the lock, and enqueues the reconciles asked for.
    @discardableResult
    @inline(__always)
    func changeTasks<Result>(
        reconcilesItself: Bool = false,
        _ change: (inout State, TimeInterval) -> Result
    ) -> Result {
        let now = timestamp()
        var hops: [IndicatorDriver] = []
        let (result, hop) = state.withLock { state in
            let old = state.activeTaskCount
            let result = change(&state, now)
            return (
                result, countChanged(from: old, in: &state, now: now, notifiesMachine: !reconcilesItself, hops: &hops)
            )
        }
        if hop { enqueueReconcile() }
        if !hops.isEmpty {
            for driver in hops { driver.enqueueReconcile() }
        }
        return result
    }

    /// Begins one task for a caller's `token` (held weakly, unless it is this manager's own
    /// opaque token, whose `deinit` reports its end).
    func beginToken(_ token: AnyObject, isOwnOpaqueToken: Bool, label: String?) {
        let key = ObjectIdentifier(token)
        changeTasks { state, now in
            let kind = state.classifier.kind(of: token, isOwnOpaqueToken: isOwnOpaqueToken)
            state.registry.begin(key, object: kind.isSwept ? token : nil, kind: kind, label: label, now: now)
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

    /// Reads the registry under the lock.
    func withRegistry<Result>(_ body: (borrowing TaskRegistry) -> Result) -> Result {
        state.withLock { body($0.registry) }
    }

    /// Changes the settings under the lock; they apply at the next main-queue hop.
    func updateSettings(_ update: (inout State) -> Void) {
        let hop = state.withLock { state in
            update(&state)
            return state.machine.hopRequested()
        }
        if hop { enqueueReconcile() }
    }

    /// Passes a diagnostic to the handler, outside the lock.
    func report(_ kind: NetworkIndicatorDiagnostic.Kind, label: String) {
        let handler = state.withLock { $0.diagnosticsHandler }
        handler(NetworkIndicatorDiagnostic(kind: kind, label: label))
    }
}
