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
    /// How the task counts.
    enum Counting: Sendable, Equatable {
        /// Counted from before the watch (``NetworkIndicatorManager/track(_:label:)``) until it
        /// completes.
        case untilCompletion
        /// Counted from each `resume()` until it is suspended or completes (the session-wide
        /// forms): a task cancelled before it ever ran never counts.
        case whileRunning
    }

    /// What to do about one reported state, in this order: end the task's tasks, begin one,
    /// stop observing.
    struct Actions: Sendable, Equatable {
        var begin = false
        var finish = false
        var stopObserving = false
    }

    private var isCounted: Bool
    private let counting: Counting
    private var isOver = false

    /// Whether the task has completed: every later report asks for nothing.
    var hasStopped: Bool { isOver }

    init(_ counting: Counting) {
        self.counting = counting
        self.isCounted = counting == .untilCompletion
    }

    /// The task reported `state` (as the observation's change carries it, never read from the
    /// task).
    mutating func stateChanged(to state: URLSessionTask.State) -> Actions {
        guard !isOver else { return Actions() }
        var actions = Actions()
        switch state {
        case .running where !isCounted:  // only a `.whileRunning` task can be uncounted
            isCounted = true
            actions.begin = true
        case .suspended where counting == .whileRunning && isCounted:
            isCounted = false
            actions.finish = true
        case .completed:
            actions.finish = isCounted
            actions.stopObserving = true
            isOver = true
        default:
            break
        }
        return actions
    }
}
