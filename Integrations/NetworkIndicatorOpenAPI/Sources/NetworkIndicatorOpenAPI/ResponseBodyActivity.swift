import Foundation
import NetworkIndicator

/// The network task of one response body: open from the request until the body is read to the
/// end, fails, is released unread, or sits unread for the timeout, whichever comes first.
///
/// Shared by the wrapped body and every iterator made from it; the last of them to go ends the
/// task in `deinit`. All methods are safe from any thread, and each way of ending ends the task
/// exactly once: the task is taken out under the lock. The task's manager is held only while
/// the task is open, so a body kept after its end (inside an error, say) keeps no screen alive.
final class ResponseBodyActivity: Sendable {
    private let state: LockedValue<ResponseBodyActivityState>
    /// Tells the body when its unread timeout may have passed; its scheduler is the body's clock.
    private let clock: UnreadBodyClock
    private var scheduler: any NetworkIndicatorScheduler { clock.scheduler }
    /// The request's progress, which the body's reads advance.
    private let progress: RequestProgress
    /// The request's token, which says whether the manager cancelled the request.
    private let cancellation: RequestCancellation

    init(
        task: NetworkActivityGroup,
        cancellation: RequestCancellation,
        progress: RequestProgress,
        clock: UnreadBodyClock,
        unreadTimeout: TimeInterval?
    ) {
        self.clock = clock
        self.progress = progress
        self.cancellation = cancellation
        let state = ResponseBodyActivityState(
            task: task,
            now: clock.scheduler.now,
            unreadTimeout: unreadTimeout
        )
        self.state = LockedValue(state)
        if let delay = state.firstTimerDelay {
            arm(after: delay)
        }
    }

    deinit {
        end()
    }

    /// Ends the task if it is still open; later calls do nothing. `reachedEnd` says that a
    /// reader reached the end of the body: anything else cancels the request's progress first.
    func end(reachedEnd: Bool = false) {
        guard let ending = state.withLock({ $0.end() }) else { return }
        clock.forget(ObjectIdentifier(self))
        finish(ending, reachedEnd: reachedEnd)
    }

    /// Whether the manager's ``NetworkIndicator/NetworkIndicatorManager/cancelNetworkTasks()``
    /// cancelled the request: reads that start afterwards throw `CancellationError`.
    var isCancelled: Bool {
        cancellation.isCancelled
    }

    /// A reader asks for the next bytes; see ``ResponseBodyActivityState/readWillBegin()``.
    func readWillBegin() -> Bool {
        state.withLock { $0.readWillBegin() }
    }

    /// A counted read returned bytes; re-arms the timer if it stopped for this read.
    func readDidEnd() {
        let now = scheduler.now
        if let delay = state.withLock({ $0.readDidEnd(at: now) }) {
            arm(after: delay)
        }
    }

    /// An iterator has read `count` bytes of the body so far: the task's progress advances.
    func bodyBytesRead(upTo count: Int64) {
        progress.received(upTo: count)
    }

    /// Ends the task. A body that did not end with all its bytes read (a failed read, released
    /// unread, timed out) cancels its progress first, so that its part leaves the manager's batch
    /// instead of counting bytes that never came as done.
    private func finish(_ ending: ResponseBodyActivityState.Ending, reachedEnd: Bool) {
        progress.end(reachedEnd: reachedEnd)
        ending.task.operationFinished()
    }

    /// Asks the clock to tell this body after `delay` (it holds the body weakly: a body released
    /// unread dies, and ends its task, before its deadline).
    private func arm(after delay: TimeInterval) {
        clock.tell(self, after: delay)
    }

    /// The unread timeout may have passed (told by the clock): ends the task, or asks to be
    /// told again.
    func unreadTimerFired() {
        let now = scheduler.now
        switch state.withLock({ $0.timerFired(at: now) }) {
        case .nothing:
            break
        case .end(let ending):
            finish(ending, reachedEnd: false)
        case .rearm(let delay):
            arm(after: delay)
        }
    }
}
