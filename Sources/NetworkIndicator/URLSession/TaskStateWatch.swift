import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What each `state` reported for a tracked `URLSessionTask` asks for: pure, no lock, no task.
///
/// The key-value observation of a task's `state` (Apple platforms,
/// `URLSessionTaskStateObservation`) feeds it every state Foundation reports, the current one
/// first, and performs the answer; it reads nothing of the task itself, since Foundation may
/// hold the task's lock while it notifies. Once the task has completed, the answer says to stop
/// observing, and every later report (one already on its way) asks for nothing.
struct TaskStateWatch: Sendable, Equatable {
    /// What to do about one reported state: end the task's tasks, stop observing.
    struct Actions: Sendable, Equatable {
        var finish = false
        var stopObserving = false
    }

    private var isOver = false

    /// Whether the task has completed: every later report asks for nothing.
    var hasStopped: Bool { isOver }

    /// The task reported `state` (as the observation's change carries it, never read from the
    /// task). A tracked task counts from before the watch (``NetworkIndicatorManager/track(_:label:file:line:)``)
    /// until it completes: only `.completed` asks for anything, and only once.
    mutating func stateChanged(to state: URLSessionTask.State) -> Actions {
        guard !isOver, state == .completed else { return Actions() }
        isOver = true
        return Actions(finish: true, stopObserving: true)
    }
}
