import Foundation

/// The indicator's visibility as a pure state machine.
///
/// It knows nothing of locks, clocks or outputs: each event is a `mutating` function that
/// returns the ``Actions`` to perform (show or hide, start or cancel the single delay timer).
/// The ``IndicatorStateMachine`` feeds it under the manager's lock: ``absorbEdge(isActive:now:)``
/// on the thread of the call that changed the count, every other event on the main actor. The
/// driver performs the actions after releasing the lock.
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
/// With a zero start delay `hidden` goes straight to `visible`; with a zero completion delay
/// `visible` goes straight to `hidden`. While disabled the policy only records activity and
/// stays hidden; enabling it again shows the truth at once, without a start delay.
struct VisibilityPolicy: Equatable, Sendable {
    enum Phase: Equatable, Sendable {
        case hidden
        case delayingStart
        case visible
        case delayingHide
    }

    /// What to do with the policy's single timer.
    enum TimerAction: Equatable, Sendable {
        /// Start the timer (replacing any running one); call ``VisibilityPolicy/timerFired(now:)``
        /// when it fires.
        case start(after: TimeInterval)
        /// Cancel the running timer; a late firing must be ignored.
        case cancel
    }

    /// At most one visibility change and one timer change per event.
    struct Actions: Equatable, Sendable {
        /// The visibility to tell the outputs, or `nil` to leave them alone.
        var visibility: Bool?
        /// The timer change to perform, or `nil` to leave the timer alone.
        var timer: TimerAction?

        static let none = Actions()
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
    /// When the indicator last appeared.
    private(set) var shownAt: TimeInterval = 0
    /// In `delayingHide`: the indicator stays at least until then (its minimum visible
    /// duration, measured from ``shownAt``).
    private(set) var holdUntil: TimeInterval = 0

    /// Whether the outputs should currently show the indicator.
    var isVisible: Bool {
        phase == .visible || phase == .delayingHide
    }

    /// Timer arithmetic is exact with a manual clock but not in floating point; a firing this
    /// close to its deadline counts as on time.
    private static let tolerance: TimeInterval = 1e-6

    /// Activity became `isActive` at `now`. Repeating the current value does nothing, so that
    /// sweeps and unrelated events never restart a pending delay.
    ///
    /// Going idle while visible hides the indicator at the later of (now + `completionDelay`)
    /// and (``shownAt`` + `minimumVisibleDuration`).
    mutating func activityChanged(
        isActive: Bool,
        now: TimeInterval,
        startDelay: TimeInterval,
        completionDelay: TimeInterval,
        minimumVisibleDuration: TimeInterval = 0
    ) -> Actions {
        guard isActive != self.isActive else { return .none }
        self.isActive = isActive
        guard isEnabled else { return .none }

        switch (phase, isActive) {
        case (.hidden, true):
            if startDelay > 0 {
                phase = .delayingStart
                (since, delay) = (now, startDelay)
                return Actions(timer: .start(after: startDelay))
            }
            phase = .visible
            shownAt = now
            return Actions(visibility: true)
        case (.delayingStart, false):
            phase = .hidden
            return Actions(timer: .cancel)
        case (.visible, false):
            let hold = shownAt + minimumVisibleDuration
            let wait = max(completionDelay, hold - now)
            if wait > Self.tolerance {
                phase = .delayingHide
                (since, delay, holdUntil) = (now, completionDelay, hold)
                return Actions(timer: .start(after: wait))
            }
            phase = .hidden
            return Actions(visibility: false)
        case (.delayingHide, true):
            phase = .visible
            return Actions(timer: .cancel)
        case (.hidden, false), (.delayingStart, true), (.visible, true), (.delayingHide, false):
            // Unreachable while enabled: `hidden` and `delayingHide` imply idle, the others
            // imply active (edges absorbed during a delay are settled by `timerFired`). Kept
            // total so that the function has no trap.
            return .none
        }
    }

    /// An edge of activity (any task active or none) at `now`, seen where it happened, on any
    /// thread. While a delay runs its timer will look at the activity anyway, so the edge is
    /// recorded here and needs no main-queue hop: returns `true`. Otherwise returns `false`,
    /// changes nothing, and the caller must bring the edge to ``activityChanged``.
    ///
    /// This is what keeps a task that starts and ends over and over during a delay (a burst of
    /// short requests) from waking the main thread each time.
    ///
    /// `now` is read only for the edges that move the delay's reference: begins during a start
    /// delay, ends during a completion delay.
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
        return true
    }

    /// The timer started by the last ``TimerAction/start(after:)`` fired at `now`.
    ///
    /// A start delay shows the indicator only if activity has lasted the whole delay since the
    /// last begin that found nothing active; a completion delay hides it only if nothing has been
    /// active for the whole delay since everything last ended. Otherwise the timer is started
    /// again for the rest of the delay, or the phase ends without a visibility change.
    mutating func timerFired(now: TimeInterval) -> Actions {
        switch phase {
        case .delayingStart:
            guard isActive else {
                phase = .hidden
                return .none
            }
            let remaining = delay - (now - since)
            if remaining > Self.tolerance { return Actions(timer: .start(after: remaining)) }
            phase = .visible
            shownAt = now
            return Actions(visibility: true)
        case .delayingHide:
            guard !isActive else {
                phase = .visible
                return .none
            }
            let remaining = max(delay - (now - since), holdUntil - now)
            if remaining > Self.tolerance { return Actions(timer: .start(after: remaining)) }
            phase = .hidden
            return Actions(visibility: false)
        case .hidden, .visible:
            return .none
        }
    }

    /// The manager was enabled or disabled at `now`. Disabling hides at once, whatever the
    /// minimum visible duration.
    mutating func enabledChanged(_ isEnabled: Bool, now: TimeInterval = 0) -> Actions {
        guard isEnabled != self.isEnabled else { return .none }
        self.isEnabled = isEnabled
        if isEnabled {
            guard isActive else { return .none }
            phase = .visible
            shownAt = now
            return Actions(visibility: true)
        }
        let actions = Actions(
            visibility: isVisible ? false : nil,
            timer: phase == .delayingStart || phase == .delayingHide ? .cancel : nil
        )
        phase = .hidden
        return actions
    }
}
