import Foundation

/// What the manager does about its count, its settings and its timers, as a pure state machine.
///
/// It knows no lock, clock, timer or output. Each event is a `mutating func` that returns what
/// to do; the ``IndicatorDriver`` keeps the machine behind its lock, calls it, and performs the
/// returned actions after releasing the lock. Inside, the ``VisibilityPolicy`` decides when the
/// indicator shows; around it the machine coalesces main-queue hops (at most one pending) and
/// decides which timers run: the policy's single delay timer, and the sweep timer.
struct IndicatorStateMachine {
    /// The manager's settings, read at each reconcile (and, for the stale-task threshold, by
    /// the sweep).
    struct Settings {
        var completionCheckInterval: TimeInterval = 1
        var startDelay: TimeInterval = 0
        var completionDelay: TimeInterval = 0.2
        var minimumVisibleDuration: TimeInterval = 0
        var isEnabled = true
        var staleTaskThreshold: TimeInterval?
    }

    /// What the machine needs to know of the registry, read by the driver in one place.
    struct Activity {
        /// The open tasks of the manager and of all its descendants.
        var count: Int
        /// Whether any entry holds a weak reference that the sweep must check.
        var tracksWeakTokens: Bool
    }

    /// The two timers the driver keeps running for the machine.
    enum TimerKind {
        /// The policy's one-shot delay timer (start, completion, minimum visible duration).
        case delay
        /// The repeating sweep for dead and finished tokens.
        case sweep
    }

    /// A change to one timer. Every change carries a new generation: a firing or an
    /// installation that carries an older one is stale.
    enum TimerChange: Equatable {
        case start(after: TimeInterval, repeating: TimeInterval?, generation: UInt64)
        case cancel
    }

    /// What a reconcile asks the driver to do, after the lock.
    struct Reconciliation: Equatable {
        /// For each timer, its change (a `.start` replaces a running timer).
        var timerChanges: [TimerKind: TimerChange] = [:]
        /// The new visibility, when it differs from the last one reported.
        var visibility: Bool?
        /// The new task count, when it changed and an output wants counts.
        var count: Int?
    }

    private(set) var settings = Settings()
    private(set) var policy = VisibilityPolicy()
    private var isHopPending = false
    /// How many attached outputs want task counts: every count change then needs a hop. The
    /// one place this number is kept; ``OutputDelivery`` only knows, per output, whether it
    /// wants them.
    private(set) var countObserverCount = 0
    private var generations: [TimerKind: UInt64] = [:]
    /// The interval of the running sweep timer; `nil` while none runs.
    private(set) var sweepInterval: TimeInterval?
    /// What the last reconcile reported (the outputs were told these, or are being told).
    private(set) var reportedVisibility = false
    private(set) var reportedCount = 0

    // MARK: - Events from any thread

    /// The task count went from `old` to `activity.count` (at `now`). Returns `true` when the
    /// caller must enqueue a reconcile. An edge (none active ↔ some active) needs one unless a
    /// start or completion delay is running: the policy records it and the delay's timer
    /// settles it. Every change needs one while an output wants counts; the first swept token
    /// needs the sweep started.
    mutating func tasksChanged(from old: Int, to activity: Activity, now: @autoclosure () -> TimeInterval) -> Bool {
        let new = activity.count
        var isWanted = (countObserverCount > 0 && old != new) || (sweepInterval == nil && needsSweep(activity))
        if (old == 0) != (new == 0), !policy.absorbEdge(isActive: new > 0, now: now()) {
            isWanted = true
        }
        return isWanted && hopRequested()
    }

    /// The settings changed (`update`); they apply at the next reconcile. Returns `true` when
    /// the caller must enqueue one.
    mutating func settingsChanged(_ update: (inout Settings) -> Void) -> Bool {
        update(&settings)
        return hopRequested()
    }

    /// A stream of visibility updates opened: the next reconcile primes it. Returns `true`
    /// when the caller must enqueue one.
    mutating func streamOpened() -> Bool {
        hopRequested()
    }

    /// An output was attached. One that wants counts is told the last reconciled count at
    /// once (returned), and counts are only reconciled while someone listens: if the registry
    /// moved meanwhile, the answer asks for a reconcile to catch up.
    mutating func outputAttached(
        receivesCount: Bool,
        activity: Activity
    ) -> (count: Int?, needsReconcile: Bool) {
        guard receivesCount else { return (nil, false) }
        countObserverCount += 1
        return (reportedCount, reportedCount != activity.count && hopRequested())
    }

    /// `count` outputs that wanted counts were detached or found deallocated.
    mutating func countObserversLeft(_ count: Int) {
        countObserverCount -= count
    }

    // MARK: - Events on the main actor

    /// The pending hop runs: bring the policy and the timers up to date.
    mutating func reconcile(_ activity: Activity, now: TimeInterval) -> Reconciliation {
        isHopPending = false
        return update(activity, now: now)
    }

    /// The delay timer of `generation` fired. `nil` when it is stale (cancelled or replaced
    /// since it was started): nothing to do.
    mutating func delayTimerFired(generation: UInt64, _ activity: Activity, now: TimeInterval) -> Reconciliation? {
        guard generation == generations[.delay] else { return nil }
        var reconciliation = update(activity, now: now) { $0.timerFired(now: now) }
        if reconciliation.timerChanges[.delay] == nil {
            // The one-shot timer is spent: release it.
            reconciliation.timerChanges[.delay] = change(.delay, to: nil)
        }
        return reconciliation
    }

    /// A sweep ended the tasks it found: bring everything up to date.
    mutating func sweepFinished(_ activity: Activity, now: TimeInterval) -> Reconciliation {
        update(activity, now: now)
    }

    /// Whether a timer started with `generation` is still wanted when the driver installs it.
    func isCurrent(_ timer: TimerKind, generation: UInt64) -> Bool {
        generations[timer] == generation
    }

    // MARK: - Private

    /// Whether the sweep must run: weak tokens are tracked, or a stale-task threshold is set
    /// while anything is active.
    private func needsSweep(_ activity: Activity) -> Bool {
        activity.tracksWeakTokens || (settings.staleTaskThreshold != nil && activity.count > 0)
    }

    /// At most one reconcile is pending at a time: `true` when the caller must enqueue one.
    private mutating func hopRequested() -> Bool {
        guard !isHopPending else { return false }
        isHopPending = true
        return true
    }

    /// Tells the policy the current activity and settings, then `event`; plans the timers and
    /// reports what changed.
    private mutating func update(
        _ activity: Activity,
        now: TimeInterval,
        then event: (inout VisibilityPolicy) -> VisibilityPolicy.Actions = { _ in .none }
    ) -> Reconciliation {
        var reconciliation = Reconciliation()
        apply(
            policy.activityChanged(
                isActive: activity.count > 0,
                now: now,
                startDelay: settings.startDelay,
                completionDelay: settings.completionDelay,
                minimumVisibleDuration: settings.minimumVisibleDuration
            ),
            to: &reconciliation
        )
        apply(policy.enabledChanged(settings.isEnabled, now: now), to: &reconciliation)
        apply(event(&policy), to: &reconciliation)
        if needsSweep(activity) {
            if sweepInterval != settings.completionCheckInterval {
                sweepInterval = settings.completionCheckInterval
                reconciliation.timerChanges[.sweep] = change(.sweep, to: settings.completionCheckInterval)
            }
        } else if sweepInterval != nil {
            sweepInterval = nil
            reconciliation.timerChanges[.sweep] = change(.sweep, to: nil)
        }
        report(count: activity.count, into: &reconciliation)
        return reconciliation
    }

    private mutating func apply(_ actions: VisibilityPolicy.Actions, to reconciliation: inout Reconciliation) {
        switch actions.timer {
        case .start(let delay): reconciliation.timerChanges[.delay] = change(.delay, to: delay)
        case .cancel: reconciliation.timerChanges[.delay] = change(.delay, to: nil)
        case nil: break
        }
    }

    /// A new generation for `timer`: started after `interval` (repeating, for the sweep), or
    /// cancelled when `interval` is `nil`.
    private mutating func change(_ timer: TimerKind, to interval: TimeInterval?) -> TimerChange {
        generations[timer, default: 0] &+= 1
        guard let interval else { return .cancel }
        return .start(after: interval, repeating: timer == .sweep ? interval : nil, generation: generations[timer]!)
    }

    private mutating func report(count: Int, into reconciliation: inout Reconciliation) {
        if policy.isVisible != reportedVisibility {
            reportedVisibility = policy.isVisible
            reconciliation.visibility = reportedVisibility
        }
        if count != reportedCount {
            reportedCount = count
            if countObserverCount > 0 { reconciliation.count = count }
        }
    }
}
