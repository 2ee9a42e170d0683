import Foundation

/// The indicator's visibility as a pure state machine.
///
/// It knows nothing of locks, clocks or outputs: each event is a `mutating` function that
/// returns the ``Actions`` to perform (show or hide, start or cancel the single delay timer).
/// The manager feeds it on the main thread and performs the actions after releasing its lock.
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
        /// Start the timer (replacing any running one); call ``VisibilityPolicy/timerFired()``
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

    /// Whether the outputs should currently show the indicator.
    var isVisible: Bool {
        phase == .visible || phase == .delayingHide
    }

    /// Activity became `isActive`. Repeating the current value does nothing, so that sweeps and
    /// unrelated events never restart a pending delay.
    mutating func activityChanged(
        isActive: Bool,
        startDelay: TimeInterval,
        completionDelay: TimeInterval
    ) -> Actions {
        guard isActive != self.isActive else { return .none }
        self.isActive = isActive
        guard isEnabled else { return .none }

        switch (phase, isActive) {
        case (.hidden, true):
            if startDelay > 0 {
                phase = .delayingStart
                return Actions(timer: .start(after: startDelay))
            }
            phase = .visible
            return Actions(visibility: true)
        case (.delayingStart, false):
            phase = .hidden
            return Actions(timer: .cancel)
        case (.visible, false):
            if completionDelay > 0 {
                phase = .delayingHide
                return Actions(timer: .start(after: completionDelay))
            }
            phase = .hidden
            return Actions(visibility: false)
        case (.delayingHide, true):
            phase = .visible
            return Actions(timer: .cancel)
        case (.hidden, false), (.delayingStart, true), (.visible, true), (.delayingHide, false):
            // Unreachable while enabled: `hidden` and `delayingHide` imply idle, the others
            // imply active. Kept total so that the function has no trap.
            return .none
        }
    }

    /// The timer started by the last ``TimerAction/start(after:)`` fired.
    mutating func timerFired() -> Actions {
        switch phase {
        case .delayingStart:
            phase = .visible
            return Actions(visibility: true)
        case .delayingHide:
            phase = .hidden
            return Actions(visibility: false)
        case .hidden, .visible:
            return .none
        }
    }

    /// The manager was enabled or disabled.
    mutating func enabledChanged(_ isEnabled: Bool) -> Actions {
        guard isEnabled != self.isEnabled else { return .none }
        self.isEnabled = isEnabled
        if isEnabled {
            guard isActive else { return .none }
            phase = .visible
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
