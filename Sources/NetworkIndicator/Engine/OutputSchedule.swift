import Foundation

/// When a manager's outputs are told and which of its timers run, as a pure value: each event is a
/// `mutating func` returning what ``OutputDelivery`` performs after the lock. Around the
/// ``VisibilityPolicy`` (the visibility's state machine) it keeps at most one main-queue hop
/// pending and decides which timers run: the policy's delay timer and the sweep timer.
struct OutputSchedule {
    typealias Settings = NetworkIndicatorSettings  // read at each reconcile

    /// What the schedule needs to know of the registry.
    struct Activity {
        /// The open tasks of the manager and of all its descendants.
        var count: Int
        /// Whether any entry holds a weak reference that the sweep must check.
        var tracksWeakTokens: Bool
    }

    enum TimerKind {
        /// The policy's one-shot delay timer (start, completion, minimum visible duration).
        case delay
        /// The repeating sweep for dead and finished tokens.
        case sweep
        /// A call of a ``DeadlineTarget`` (a ``ProgressRollUp``'s poll, a ``SlowActivityWatch``'s
        /// threshold), listed by ``TreeDeadlines``, never by the schedule.
        case call
    }

    /// What a reconcile asks ``OutputDelivery`` to do, after the lock.
    struct Reconciliation: Equatable {
        /// For each timer, its change (a `.start` replaces a running timer; the sweep's repeats at
        /// its delay, see ``TreeDeadlines/apply(_:of:now:)``).
        var timerChanges: [TimerKind: VisibilityPolicy.TimerAction] = [:]
        /// The new visibility, when it differs from the last one reported.
        var visibility: Bool?
        /// The new task count, when it changed and an output wants counts.
        var count: Int?
        /// The new `isEnabled`, when it differs from the last one reported: told to the package's
        /// overlays, which decide on their own clock whether to draw (``ManagerAwareOutput``).
        var isEnabled: Bool?
    }

    private(set) var settings = Settings()
    /// The stale-task threshold of the parent, in force here while ``settings`` sets none: for a
    /// root, its tree's default (see ``IndicatorTree/init(diagnosticsHandler:defaultStaleThreshold:)``).
    private(set) var inheritedStaleThreshold: TimeInterval?
    /// The stale-task threshold in force: the node's own, else its parent's; `nil` when off
    /// (`.infinity` turns it off). Kept, not derived, because every count change reads it.
    private(set) var staleThreshold: TimeInterval?
    private(set) var policy = VisibilityPolicy()
    /// Whether a hop was asked for and has not run yet (the tree's drain skips a node without one).
    private(set) var isHopPending = false
    /// How many attached outputs want task counts (then every count change needs a hop).
    private(set) var countObserverCount = 0
    /// `countObserverCount`, plus one while the node records task events, which the hop takes
    /// (`IndicatorTree+TaskEvents.swift`): while it is not 0, every count change needs a hop.
    private var everyChangeHops = 0
    /// The interval of the running sweep timer; `nil` while none runs.
    private(set) var sweepInterval: TimeInterval?
    /// What the last reconcile reported to the outputs.
    private(set) var reportedVisibility = false
    private(set) var reportedCount = 0
    private var reportedEnabled = true

    // MARK: - Events from any thread

    /// The task count went from `old` to `activity.count`; `true` when the caller must enqueue a
    /// hop: on an edge no running delay absorbs, on every change while an output wants counts or
    /// the node records task events, and for the first swept token (to start the sweep).
    mutating func tasksChanged(from old: Int, to activity: Activity, now: @autoclosure () -> TimeInterval) -> Bool {
        let new = activity.count
        var isWanted = (everyChangeHops > 0 && old != new) || (sweepInterval == nil && needsSweep(activity))
        if (old == 0) != (new == 0), !policy.absorbEdge(isActive: new > 0, now: now()) {
            isWanted = true
        }
        return isWanted && hopRequested()
    }

    /// The settings changed; they apply at the next reconcile. `true`: the caller must enqueue one.
    mutating func settingsChanged(_ update: (inout Settings) -> Void) -> Bool {
        let old = settings
        update(&settings)
        let delays = { (new: Settings) in [new.startDelay, new.completionDelay, new.minimumVisibleDuration] }
        if delays(settings) != delays(old) { policy.delaySettingsChanged() }
        updateStaleThreshold()
        return hopRequested()
    }

    /// A new node's schedule, in force the stale-task threshold it inherits (`nil`: none).
    init(inheritingStaleThreshold threshold: TimeInterval? = nil) {
        inheritedStaleThreshold = threshold
        updateStaleThreshold()
    }

    /// The parent's threshold in force is now `threshold`. Returns whether the one in force here
    /// changed, and whether the caller must enqueue a hop (asked for when it changed, so that the
    /// sweep starts or stops).
    mutating func inherit(staleThreshold threshold: TimeInterval?) -> (changed: Bool, needsHop: Bool) {
        let old = staleThreshold
        inheritedStaleThreshold = threshold
        updateStaleThreshold()
        guard staleThreshold != old else { return (false, false) }
        return (true, hopRequested())
    }

    private mutating func updateStaleThreshold() {
        let threshold = settings.staleTaskThreshold ?? inheritedStaleThreshold
        staleThreshold = threshold?.isFinite == true ? threshold : nil
    }

    /// An output was attached. One that wants counts is told the last reconciled count at once
    /// (returned), and a hop is asked for if the count moved since.
    mutating func outputAttached(
        receivesCount: Bool,
        activity: Activity
    ) -> (count: Int?, needsReconcile: Bool) {
        guard receivesCount else { return (nil, false) }
        countObserverCount += 1
        everyChangeHops += 1
        return (reportedCount, reportedCount != activity.count && hopRequested())
    }

    /// The node starts (`true`) or stops recording task events; called only when that changes.
    mutating func recordingChanged(to records: Bool) {
        everyChangeHops += records ? 1 : -1
    }

    /// `count` outputs that wanted counts were detached or found deallocated.
    mutating func countObserversLeft(_ count: Int) {
        countObserverCount -= count
        everyChangeHops -= count
    }

    // MARK: - Events on the main actor

    /// The pending hop runs: bring the policy and the timers up to date.
    mutating func reconcile(_ activity: Activity, now: TimeInterval) -> Reconciliation {
        isHopPending = false
        return update(activity, now: now)
    }

    /// The delay timer fired. A late firing of a timer cancelled or replaced since cannot come
    /// (``TreeDeadlines`` drops it with the change), and would change no visibility if it did:
    /// the policy measures every delay from its own state (``VisibilityPolicy/timerFired(now:)``).
    mutating func delayTimerFired(_ activity: Activity, now: TimeInterval) -> Reconciliation {
        var reconciliation = update(activity, now: now) { $0.timerFired(now: now) }
        if reconciliation.timerChanges[.delay] == nil {
            reconciliation.timerChanges[.delay] = .cancel  // the one-shot timer is spent: release it
        }
        return reconciliation
    }

    /// A sweep ended the tasks it found: bring everything up to date.
    mutating func sweepFinished(_ activity: Activity, now: TimeInterval) -> Reconciliation {
        update(activity, now: now)
    }

    // MARK: - Private

    private func needsSweep(_ activity: Activity) -> Bool {
        activity.tracksWeakTokens || (staleThreshold != nil && activity.count > 0)
    }

    /// At most one reconcile is pending at a time: `true` when the caller must enqueue one. (The
    /// tree asks it too, for a recording node's task events that moved no count.)
    mutating func hopRequested() -> Bool {
        guard !isHopPending else { return false }
        isHopPending = true
        return true
    }

    /// Tells the policy the activity and settings, then `event`; plans timers, reports changes
    /// (the visibility as the policy's ``VisibilityPolicy/isVisible`` is now).
    private mutating func update(
        _ activity: Activity,
        now: TimeInterval,
        then event: (inout VisibilityPolicy) -> VisibilityPolicy.TimerAction? = { _ in nil }
    ) -> Reconciliation {
        var reconciliation = Reconciliation()
        apply(policy.activityChanged(isActive: activity.count > 0, now: now, settings: settings), to: &reconciliation)
        apply(policy.enabledChanged(settings.isEnabled, now: now), to: &reconciliation)
        apply(policy.restartDelay(now: now, settings: settings), to: &reconciliation)
        apply(event(&policy), to: &reconciliation)
        if needsSweep(activity) {
            if sweepInterval != settings.completionCheckInterval {
                sweepInterval = settings.completionCheckInterval
                reconciliation.timerChanges[.sweep] = .start(after: settings.completionCheckInterval)
            }
        } else if sweepInterval != nil {
            sweepInterval = nil
            reconciliation.timerChanges[.sweep] = .cancel
        }
        report(count: activity.count, into: &reconciliation)
        return reconciliation
    }

    private func apply(_ timer: VisibilityPolicy.TimerAction?, to reconciliation: inout Reconciliation) {
        if let timer { reconciliation.timerChanges[.delay] = timer }
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
        if policy.isEnabled != reportedEnabled {
            reportedEnabled = policy.isEnabled
            reconciliation.isEnabled = reportedEnabled
        }
    }
}

// MARK: - The tree's deadlines

/// Pure: every pending timer of one tree as a deadline (each node's delay and sweep, each
/// manager's progress poll, each slow-activity watch), and what the scheduler's one timer is armed for. ``OutputDelivery``
/// holds it on the main actor, performs the ``Arming`` it answers and runs what a firing makes due:
/// the sweeps, then the delays of all nodes in one hold of the tree's lock, then the calls. A hide
/// that reaches four managers (a scope three deep) runs one timer and one firing.
struct TreeDeadlines {
    /// One node's timer, due at `due`, then every `interval` if it repeats.
    struct Deadline {
        let node: IndicatorTree.NodeID
        let kind: OutputSchedule.TimerKind
        /// The generation a call's target gave (``DeadlineTarget/deadlineFired(generation:)``
        /// hears it back); 0 for a schedule's timer.
        let generation: UInt64
        var due: TimeInterval
        let interval: TimeInterval?
        let leeway: TimeInterval
        /// What a call (``OutputSchedule/TimerKind/call``) calls; gone with its manager or its
        /// observation, and then the call leaves at the next arming (or, due already, fires into
        /// nothing and does not repeat).
        weak var target: (any DeadlineTarget)?
    }

    /// What the scheduler's timer must become: stopped, or started (replacing any running one).
    enum Arming: Equatable {
        case stop
        case start(after: TimeInterval, repeating: TimeInterval?, leeway: TimeInterval, generation: UInt64)
    }

    /// Every pending deadline, in the order it was listed.
    private(set) var pending: [Deadline] = []
    /// When the armed timer fires next, every how often if it repeats, and how late it may run;
    /// `nil` while none runs.
    private(set) var armed: (due: TimeInterval, interval: TimeInterval?, leeway: TimeInterval)?
    /// Bumped at each start: a firing of a timer replaced since (already queued) is stale.
    private(set) var generation: UInt64 = 0

    /// Applies a schedule's timer changes for `node` at `now`: each started timer replaces the
    /// one of its kind (the sweep repeats at its delay), each cancelled one leaves.
    mutating func apply(
        _ changes: [OutputSchedule.TimerKind: VisibilityPolicy.TimerAction],
        of node: IndicatorTree.NodeID,
        now: TimeInterval
    ) {
        for (kind, change) in changes {
            pending.removeAll { $0.node == node && $0.kind == kind }
            guard case .start(let delay) = change else { continue }
            list(kind, of: node, after: delay, repeating: kind == .sweep ? delay : nil, now: now)
        }
    }

    /// How late the scheduler may run a timer, so that it can coalesce wake-ups: a tenth of a
    /// repeating timer's interval, or of a one-shot's delay but at most 50 ms (a delay's firing,
    /// or a slow-activity report, is something the user sees).
    static func leeway(delay: TimeInterval, repeating interval: TimeInterval?) -> TimeInterval {
        interval.map { $0 / 10 } ?? min(delay / 10, 0.05)
    }

    /// Calls `target` (of `node`) `delay` seconds from `now`, then every `interval` if given,
    /// replacing its listed call; a `nil` delay stops it. The call carries `generation`
    /// back to the target, which can tell a call of its own from an older one due in the same
    /// firing.
    mutating func call(
        _ target: any DeadlineTarget,
        after delay: TimeInterval?,
        repeating interval: TimeInterval? = nil,
        generation: UInt64 = 0,
        of node: IndicatorTree.NodeID,
        now: TimeInterval
    ) {
        // The target is the caller's, held: comparing with it loads no last reference.
        pending.removeAll { $0.node == node && $0.target === target }
        guard let delay else { return }
        list(.call, of: node, after: delay, repeating: interval, generation: generation, now: now)
        pending[pending.count - 1].target = target
    }

    /// Lists a deadline of `kind` for `node`, due `delay` seconds from `now` (at once if
    /// negative), then every `interval` if given, with its ``leeway(delay:repeating:)``.
    private mutating func list(
        _ kind: OutputSchedule.TimerKind,
        of node: IndicatorTree.NodeID,
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        generation: UInt64 = 0,
        now: TimeInterval
    ) {
        let leeway = Self.leeway(delay: delay, repeating: interval)
        let due = now + max(delay, 0)
        pending.append(
            Deadline(node: node, kind: kind, generation: generation, due: due, interval: interval, leeway: leeway)
        )
    }

    /// Drops every deadline of a removed node; ``rearm(now:)`` then fits the timer to the rest.
    mutating func removeAll(of node: IndicatorTree.NodeID) {
        pending.removeAll { $0.node == node }
    }

    /// How the timer must change to fire at the earliest deadline, calls whose target went
    /// dropped first; `nil` if it will already (a repeating timer keeps running while its
    /// deadline stays the earliest). Its leeway is the least any deadline allows: a deadline due
    /// soon after the earliest, with less leeway, is not run later than its own leeway allows.
    mutating func rearm(now: TimeInterval) -> Arming? {
        // A call whose target went (a watch cancelled, its owner gone) waits for nothing.
        pending.removeAll { $0.kind == .call && $0.target == nil }
        // By index: a copy of a deadline copies its weak reference (a side-table retain and
        // release per deadline per scan).
        var first: Int?
        for index in pending.indices where pending[index].due < first.map({ pending[$0].due }) ?? .infinity {
            first = index
        }
        guard let first else {
            guard armed != nil else { return nil }
            armed = nil
            return .stop
        }
        let earliest = (due: pending[first].due, interval: pending[first].interval)
        var leeway = pending[first].leeway
        // The difference first: exactly 0 for a deadline due with the earliest, so that a timer
        // re-listed as it repeats keeps its leeway to the bit, and its arming.
        for index in pending.indices {
            leeway = min(leeway, (pending[index].due - earliest.due) + pending[index].leeway)
        }
        if let armed, armed.due == earliest.due, armed.interval == earliest.interval, armed.leeway == leeway {
            return nil
        }
        generation &+= 1
        armed = (earliest.due, earliest.interval, leeway)
        return .start(after: earliest.due - now, repeating: earliest.interval, leeway: leeway, generation: generation)
    }

    /// The timer of `firing` fired: `nil` if it is stale, else whether it is spent (a one-shot,
    /// for the caller to release) and the deadlines due at `now`, taken out of the list. A
    /// repeating deadline comes back one interval after its due time (after `now` if late), as
    /// the scheduler repeats; a poll whose manager went does not.
    mutating func fired(_ firing: UInt64, now: TimeInterval) -> (isSpent: Bool, due: [Deadline])? {
        guard firing == generation, let current = armed else { return nil }
        armed = current.interval.map { (current.due + $0, $0, current.leeway) }
        var due: [Deadline] = []
        pending.removeAll { deadline in
            // A firing this close to a deadline counts as on time, as in the policy.
            guard deadline.due <= now + VisibilityPolicy.tolerance else { return false }
            due.append(deadline)
            return true
        }
        for var next in due {
            guard let interval = next.interval, next.kind != .call || next.target != nil else { continue }
            next.due = next.due + interval > now ? next.due + interval : now + interval
            pending.append(next)
        }
        return (current.interval == nil, due)
    }
}

/// What a deadline that is a call calls, on the main actor: a progress roll-up's poll, a
/// slow-activity watch.
protocol DeadlineTarget: AnyObject {
    /// The call listed with `generation` is due.
    @MainActor func deadlineFired(generation: UInt64)
}
