import Foundation

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
    mutating func enabledChanged(_ isEnabled: Bool, now: TimeInterval = 0) -> TimerAction? {
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
