public import Foundation

/// Where a ``NetworkIndicatorManager`` gets its time and runs its main-thread work.
///
/// The manager never touches a clock, a timer or the main queue directly: it asks its scheduler.
/// Production code uses ``MainQueueScheduler`` (the default); tests pass a
/// `ManualNetworkIndicatorScheduler` and advance time by hand.
///
/// ## Contract
///
/// - Every `work` closure must run on the main actor, later, never synchronously inside the
///   call that scheduled it (the manager may hold internal invariants across the call).
/// - ``now`` is monotonic and measured in seconds from an arbitrary origin.
/// - All requirements may be called from any thread.
/// - A ``NetworkIndicatorTimer`` handle should not keep its scheduler alive. The manager's work
///   queued on the scheduler holds the manager's timer handles until it runs, so a handle that
///   retains a scheduler whose queue never runs again (a test's, dropped) keeps both in memory.
public protocol NetworkIndicatorScheduler: Sendable {
    /// The current time, in seconds from an arbitrary origin; never decreases.
    ///
    /// The manager reads it on any thread (on the main actor for its timers, on the calling
    /// thread when a task begins or ends), never while holding its lock; it should be quick.
    var now: TimeInterval { get }

    /// Runs `work` on the main actor as soon as possible, after the current call returns.
    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void)

    /// Runs `work` on the main actor once `delay` seconds have passed and then, if `interval`
    /// is not `nil`, every `interval` seconds until cancelled.
    ///
    /// - Parameters:
    ///   - delay: Seconds until the first run; zero or negative means "as soon as possible".
    ///   - interval: Seconds between later runs, or `nil` for a one-shot timer.
    ///   - leeway: How late the system may run the work, so that it can coalesce wake-ups.
    ///   - work: The work to run.
    /// - Returns: A handle whose ``NetworkIndicatorTimer/cancel()`` stops the timer.
    func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer
}

/// A timer that a ``NetworkIndicatorScheduler`` started, one-shot or repeating: what
/// ``NetworkIndicatorScheduler/schedule(after:repeating:leeway:_:)`` returns. (Not to be confused
/// with ``NetworkActivityCancellable``, work of yours that a manager's cancel stops.) Cancelling
/// is idempotent and safe from any thread; work that has not started yet never starts after
/// ``cancel()`` returns.
public protocol NetworkIndicatorTimer: Sendable {
    /// Stops the work from running again. Calling it more than once has no further effect.
    func cancel()
}
