import Foundation
import NetworkIndicator

/// The facts about one response body's network task, and the decisions taken on them: pure, no
/// lock, no clock. ``ResponseBodyActivity`` keeps it behind its lock and performs what it
/// returns after unlocking.
///
/// The task is open while ``open`` is set; every way of ending takes it out, so only the first
/// of them ends the task, and nothing here keeps the task's manager (often a screen's scope)
/// alive once it has ended.
///
/// The unread-body timer runs only while no read is waiting: a timer that finds a read waiting
/// for the server stops, and the read re-arms it when it returns. So a timeout of zero or less
/// ends the task at the first timer run at which no read is waiting, with no timer in between.
struct ResponseBodyActivityState: Sendable {
    /// The open task: a group of the manager it counts in, with the request's one operation
    /// open. The group holds the manager, so dropping it lets go of a screen's scope.
    typealias OpenTask = NetworkActivityGroup

    /// What ending hands back, to be performed after unlocking: the task to finish.
    struct Ending: Sendable {
        let task: OpenTask
    }

    /// What to do when the unread-body timer fires.
    enum TimerDecision: Sendable {
        /// The task has already ended, has no timeout, or waits for a read to re-arm the timer.
        case nothing
        /// Nobody has asked for bytes for the whole timeout: end the task.
        case end(Ending)
        /// Someone read recently: look again after this many seconds.
        case rearm(after: TimeInterval)
    }

    /// Timer readings that fall this close to the deadline count as reaching it, so that a clock
    /// whose sums round (`start + timeout - start` a hair below `timeout`) never needs a second,
    /// nearly empty wait.
    static let deadlineTolerance: TimeInterval = 0.001

    private var open: OpenTask?
    private var pendingReads = 0
    /// Whether the timer found a read waiting and stopped: the read re-arms it when it returns.
    private var isTimerWaitingForRead = false
    private var lastActivity: TimeInterval
    private let unreadTimeout: TimeInterval?

    init(task: OpenTask, now: TimeInterval, unreadTimeout: TimeInterval?) {
        self.open = task
        self.lastActivity = now
        self.unreadTimeout = unreadTimeout
    }

    /// The delay to arm the first timer with, or `nil` for no timer.
    var firstTimerDelay: TimeInterval? {
        unreadTimeout.map { max($0, 0) }
    }

    /// Ends the task, if it is still open.
    mutating func end() -> Ending? {
        guard let open else { return nil }
        self.open = nil
        return Ending(task: open)
    }

    /// A reader asks for the next bytes. Returns whether the read counts (the task is open), so
    /// that only counted reads report ``readDidEnd(at:)``.
    mutating func readWillBegin() -> Bool {
        guard open != nil else { return false }
        pendingReads += 1
        return true
    }

    /// A counted read returned bytes. Returns the delay to arm the timer with when the timer
    /// stopped for this read (it was the last one waiting) and the task is still open.
    mutating func readDidEnd(at now: TimeInterval) -> TimeInterval? {
        pendingReads = max(pendingReads - 1, 0)
        lastActivity = max(lastActivity, now)
        guard isTimerWaitingForRead, pendingReads == 0, open != nil, let unreadTimeout else { return nil }
        isTimerWaitingForRead = false
        return max(unreadTimeout, 0)
    }

    /// The unread-body timer fired at `now`.
    ///
    /// While a read is pending the transport is waiting for the server: that is network work,
    /// however long it takes, so the timer stops until the read returns (see
    /// ``readDidEnd(at:)``). Otherwise the task ends once nobody has asked for bytes for the
    /// whole timeout.
    mutating func timerFired(at now: TimeInterval) -> TimerDecision {
        guard open != nil, let unreadTimeout else { return .nothing }
        if pendingReads > 0 {
            isTimerWaitingForRead = true
            return .nothing
        }
        let idle = now - lastActivity
        if idle >= unreadTimeout - Self.deadlineTolerance, let ending = end() {
            return .end(ending)
        }
        return .rearm(after: unreadTimeout - idle)
    }
}
