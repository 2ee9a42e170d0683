import Foundation

extension IndicatorDriver {
    /// Everything shared across threads, behind the one lock.
    ///
    /// `@unchecked Sendable` (the package's one such conformance on mutable state; the other is
    /// the timer handle of ``MainQueueScheduler``): the registry holds callers' objects weakly,
    /// and `AnyObject` is not `Sendable`. It is safe because the state is only reached through
    /// the driver's lock (`LockedState.withLock`), and a caller's object loaded from it leaves
    /// the lock only to be released afterwards or, for a ``NetworkActivityCompletionReporting``
    /// token, to be asked `isNetworkActivityFinished` on the main actor, as that protocol
    /// documents. Everything else in it is `Sendable`.
    struct State: @unchecked Sendable {
        var registry = TaskRegistry()
        var classifier = TokenClassifier()
        /// The settings, the policy, the timers' generations and the count observers.
        var machine = IndicatorStateMachine()
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
        /// How many times the count went from zero to more: the progress roll-up's busy period
        /// (`IndicatorDriver+Progress.swift`).
        var busyPeriod: UInt64 = 0

        /// The manager's own tasks and those of all its descendants.
        var activeTaskCount: Int { registry.activeTaskCount + descendantTaskCount }

        /// What the machine decides on, read here and nowhere else.
        var activity: IndicatorStateMachine.Activity {
            IndicatorStateMachine.Activity(count: activeTaskCount, tracksWeakTokens: registry.sweptEntryCount > 0)
        }
    }
}
