import Foundation
import NetworkIndicator

/// The facts about one response body's network task, and the decisions taken on them: pure, no
/// lock, no clock, no manager. ``ResponseBodyActivity`` keeps it behind its lock and performs
/// what it returns after unlocking.
///
/// The task is open while ``token`` is set; every way of ending takes the token out, so only
/// the first of them ends the task.
struct ResponseBodyActivityState: Sendable {
    /// What ending hands back, to be performed after unlocking: the token to finish and the
    /// unread-body timer to cancel.
    struct Ending: Sendable {
        let token: NetworkActivityToken
        let timer: (any NetworkIndicatorCancellable)?
    }

    /// What to do when the unread-body timer fires.
    enum TimerDecision: Sendable {
        /// The task has already ended (or has no timeout): nothing.
        case nothing
        /// Nobody has asked for bytes for the whole timeout: end the task.
        case end(Ending)
        /// Someone is reading, or read recently: look again after this many seconds.
        case rearm(after: TimeInterval)
    }

    /// Timer readings that fall this close to the deadline count as reaching it, so that a clock
    /// whose sums round (`start + timeout - start` a hair below `timeout`) never needs a second,
    /// nearly empty wait.
    static let deadlineTolerance: TimeInterval = 0.001

    private var token: NetworkActivityToken?
    private var timer: (any NetworkIndicatorCancellable)?
    private var pendingReads = 0
    private var bytesRead: Int64 = 0
    private var lastActivity: TimeInterval
    private let unreadTimeout: TimeInterval?

    init(token: NetworkActivityToken, now: TimeInterval, unreadTimeout: TimeInterval?) {
        self.token = token
        self.lastActivity = now
        self.unreadTimeout = unreadTimeout
    }

    /// Whether the task has ended.
    var hasEnded: Bool { token == nil }

    /// Ends the task, if it is still open.
    mutating func end() -> Ending? {
        guard let token else { return nil }
        defer {
            self.token = nil
            self.timer = nil
        }
        return Ending(token: token, timer: timer)
    }

    /// A reader asks for the next bytes. Returns whether the read counts (the task is open), so
    /// that only counted reads report ``readDidEnd(at:)``.
    mutating func readWillBegin(at now: TimeInterval) -> Bool {
        guard token != nil else { return false }
        pendingReads += 1
        lastActivity = max(lastActivity, now)
        return true
    }

    /// A counted read returned bytes.
    mutating func readDidEnd(at now: TimeInterval) {
        pendingReads = max(pendingReads - 1, 0)
        lastActivity = max(lastActivity, now)
    }

    /// An iterator has read `count` bytes of the body so far. Returns the new number of bytes to
    /// report as done (the most any iterator has read), or `nil` when nothing changes: the task
    /// has ended (what ended counts as complete), or another iterator of a body that can be read
    /// many times is further along.
    mutating func bodyBytesRead(upTo count: Int64) -> Int64? {
        guard token != nil, count > bytesRead else { return nil }
        bytesRead = count
        return count
    }

    /// A timer was scheduled. Returns it back if the task ended meanwhile, to be cancelled.
    mutating func timerArmed(
        _ handle: any NetworkIndicatorCancellable
    ) -> (any NetworkIndicatorCancellable)? {
        guard token != nil else { return handle }
        timer = handle
        return nil
    }

    /// The unread-body timer fired at `now`.
    ///
    /// While a read is pending the transport is waiting for the server: that is network work,
    /// however long it takes, so the timer only looks again later. Otherwise the task ends once
    /// nobody has asked for bytes for the whole timeout.
    mutating func timerFired(at now: TimeInterval) -> TimerDecision {
        timer = nil
        guard token != nil, let unreadTimeout else { return .nothing }
        if pendingReads > 0 {
            return .rearm(after: max(unreadTimeout, Self.deadlineTolerance))
        }
        let idle = now - lastActivity
        if idle >= unreadTimeout - Self.deadlineTolerance, let ending = end() {
            return .end(ending)
        }
        return .rearm(after: unreadTimeout - idle)
    }
}
