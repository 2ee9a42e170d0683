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

// MARK: - The visibility policy

/// The indicator's visibility as a pure state machine: each event moves ``phase`` (whence
/// ``isVisible``) and returns the change to its one timer, if any. Fed under the lock:
/// ``absorbEdge(isActive:now:)`` on the caller's thread, the rest on the main actor.
///
/// ```
///            active, startDelay > 0          start delay elapsed
///   hidden ───────────────────────▶ delayingStart ─────────────────▶ visible
///     ▲  ▲  idle before the delay      │                              │  ▲
///     │  └─────────────────────────────┘                     idle     │  │ active again
///     │        completion delay elapsed                               ▼  │ (hide cancelled)
///     └──────────────────────────────────────────────────────── delayingHide
/// ```
///
/// A zero start (completion) delay skips `delayingStart` (`delayingHide`). While disabled the
/// policy only records activity and stays hidden; enabling shows the truth at once, undelayed.
struct VisibilityPolicy: Equatable, Sendable {
    enum Phase: Equatable, Sendable {
        case hidden
        case delayingStart
        case visible
        case delayingHide
    }

    /// A change to one timer: the policy's delay timer, or the schedule's sweep
    /// (``OutputSchedule/Reconciliation/timerChanges``).
    enum TimerAction: Equatable, Sendable {
        /// Start the timer (replacing any running one). The policy's delay timer calls
        /// ``VisibilityPolicy/timerFired(now:)`` on firing; the sweep repeats at `after`.
        case start(after: TimeInterval)
        /// Cancel the running timer.
        case cancel
    }

    private(set) var phase: Phase = .hidden
    /// The last activity the policy was told about (`true`: at least one task is active).
    private(set) var isActive = false
    private(set) var isEnabled = true
    /// In a delaying phase: when the activity that the delay measures last changed (the last
    /// begin for a start delay, the last time everything ended for a completion delay).
    private(set) var since: TimeInterval = 0
    /// In a delaying phase: the delay it started with (a new setting applies to the next one).
    private(set) var delay: TimeInterval = 0
    private(set) var shownAt: TimeInterval = 0
    /// In `delayingHide`: the indicator stays at least until then (minimum visible duration).
    private(set) var holdUntil: TimeInterval = 0
    /// A delay setting changed since the running delay began; then an edge recorded in a delay
    /// asks for a hop (`restartsDelay`), whose reconcile runs the delay with the new values.
    private var delaysChanged = false
    private var restartsDelay = false
    mutating func delaySettingsChanged() { delaysChanged = true }

    var isVisible: Bool { phase == .visible || phase == .delayingHide }

    static let tolerance: TimeInterval = 1e-6  // a firing this close to its deadline is on time

    /// Activity became `isActive` at `now`, under `settings`' delays; repeating the current value
    /// does nothing, so sweeps never restart a pending delay. Going idle while visible hides at the
    /// later of now + `completionDelay` and ``shownAt`` + `minimumVisibleDuration`.
    mutating func activityChanged(isActive: Bool, now: TimeInterval, settings: NetworkIndicatorSettings) -> TimerAction?
    {
        guard isActive != self.isActive else { return nil }
        self.isActive = isActive
        guard isEnabled else { return nil }

        switch (phase, isActive) {
        case (.hidden, true):
            if settings.startDelay > 0 {
                phase = .delayingStart
                (since, delay, delaysChanged) = (now, settings.startDelay, false)
                return .start(after: settings.startDelay)
            }
            phase = .visible
            shownAt = now
            return nil
        case (.delayingStart, false):
            phase = .hidden
            return .cancel
        case (.visible, false), (.delayingHide, false):
            // From `.delayingHide`: everything ended again after a begin during the wait, told
            // late (a sweep's end, in the firing the delay is due in): a new wait from now, with
            // the values in force now.
            let timer: TimerAction? = phase == .delayingHide ? .cancel : nil
            let hold = shownAt + settings.minimumVisibleDuration
            let wait = max(settings.completionDelay, hold - now)
            if wait > Self.tolerance {
                phase = .delayingHide
                (since, delay, holdUntil, delaysChanged) = (now, settings.completionDelay, hold, false)
                return .start(after: wait)
            }
            phase = .hidden
            return timer
        case (.delayingHide, true):
            phase = .visible
            return .cancel
        case (.hidden, false), (.delayingStart, true), (.visible, true):
            return nil  // unreachable while enabled (edges in a delay are recorded); total
        }
    }

    /// An activity edge at `now`, on the caller's thread. While a delay runs, its timer will look at
    /// the activity anyway: the edge is recorded and needs no hop (`true`), unless a delay setting
    /// changed since the delay began: then it is recorded and asks for the hop (`false`) whose
    /// reconcile runs the delay with the new values (``restartDelay(now:settings:)``).
    /// Outside a delay (or disabled), `false`, nothing changes, and the caller brings the edge to
    /// ``activityChanged``. Reads `now` only if needed.
    mutating func absorbEdge(isActive: Bool, now: @autoclosure () -> TimeInterval) -> Bool {
        guard isEnabled, isActive != self.isActive else { return false }
        switch phase {
        case .delayingStart:
            if isActive { since = now() }
        case .delayingHide:
            if !isActive { since = now() }
        case .hidden, .visible:
            return false
        }
        self.isActive = isActive
        guard !delaysChanged else {
            restartsDelay = true
            return false
        }
        return true
    }

    /// After edges recorded while a delay setting had changed (``absorbEdge(isActive:now:)``):
    /// the running delay measures from its last edge with the values in force now, as a delay
    /// begun there would. Its timer's change (`.cancel` once the delay is over).
    mutating func restartDelay(now: TimeInterval, settings: NetworkIndicatorSettings) -> TimerAction? {
        guard restartsDelay else { return nil }
        (restartsDelay, delaysChanged) = (false, false)
        switch phase {
        case .delayingStart: delay = settings.startDelay
        case .delayingHide: (delay, holdUntil) = (settings.completionDelay, shownAt + settings.minimumVisibleDuration)
        case .hidden, .visible: return nil
        }
        return timerFired(now: now) ?? .cancel
    }

    /// The timer of the last ``TimerAction/start(after:)`` fired at `now`. A start delay shows only
    /// if activity lasted the whole delay since the last begin from idle; a completion delay hides
    /// only if idle for the whole delay since everything ended. Otherwise the timer restarts for the
    /// rest of the delay, or the phase ends without a visibility change.
    mutating func timerFired(now: TimeInterval) -> TimerAction? {
        switch phase {
        case .delayingStart:
            guard isActive else {
                phase = .hidden
                return nil
            }
            let remaining = delay - (now - since)
            if remaining > Self.tolerance { return .start(after: remaining) }
            phase = .visible
            shownAt = now
            return nil
        case .delayingHide:
            guard !isActive else {
                phase = .visible
                return nil
            }
            let remaining = max(delay - (now - since), holdUntil - now)
            if remaining > Self.tolerance { return .start(after: remaining) }
            phase = .hidden
            return nil
        case .hidden, .visible:
            return nil
        }
    }

    /// Enabled or disabled at `now`; disabling hides at once, whatever the minimum visible duration.
    mutating func enabledChanged(_ isEnabled: Bool, now: TimeInterval) -> TimerAction? {
        guard isEnabled != self.isEnabled else { return nil }
        self.isEnabled = isEnabled
        if isEnabled {
            guard isActive else { return nil }
            phase = .visible
            shownAt = now
            return nil
        }
        let timer: TimerAction? = phase == .delayingStart || phase == .delayingHide ? .cancel : nil
        phase = .hidden
        return timer
    }
}
