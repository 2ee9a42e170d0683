public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A token that can say its network activity is over even while something still holds it.
///
/// The manager holds tokens weakly, so a token normally ends its tasks by dying. Apps often
/// keep finished work around (an `Operation` in a property, a `URLSessionTask` in a
/// dictionary), which would keep the indicator on forever. At each sweep the manager asks
/// tokens that conform to this protocol whether they are finished and ends the tasks of those
/// that are. `Operation` and `URLSessionTask` conform out of the box.
///
/// A token of yours may run again, begun again on any thread at any time. A sweep ends only the
/// tasks the token had when asked, so a run begun while the sweep asks stays counted until
/// a later sweep finds it finished. Tasks are counted per token, not per run: if your code
/// also finishes the run the sweep ended, after the new run began, that finish ends one of the
/// new run's tasks. Let either the sweeps or your finishes end such a token's runs.
///
/// ```swift
/// final class Upload: NetworkActivityCompletionReporting {
///     var isDone = false        // guard it with your own lock if set off the main thread
///     var isNetworkActivityFinished: Bool { isDone }
/// }
/// ```
///
/// The manager decides whether a token conforms when the token's first task begins.
public protocol NetworkActivityCompletionReporting: AnyObject {
    /// Whether the activity this object stands for is over. Read on the main actor during a
    /// sweep, without any of the manager's locks held; it may call into the manager. It should
    /// be cheap. A main-actor class of yours conforms as it is; a class of any other isolation
    /// conforms with a `nonisolated` property that is safe to read from the main thread (as
    /// `Operation`'s and `URLSessionTask`'s are).
    @MainActor var isNetworkActivityFinished: Bool { get }
}

extension Operation: NetworkActivityCompletionReporting {
    /// `true` once the operation has finished, or when it was cancelled and is not executing
    /// (a cancelled operation that never started will do no network work).
    public var isNetworkActivityFinished: Bool {
        isFinished || (isCancelled && !isExecuting)
    }
}

extension URLSessionTask: NetworkActivityCompletionReporting {
    /// `true` once the task's `state` is `.completed` (finished, failed or cancelled).
    public var isNetworkActivityFinished: Bool {
        state == .completed
    }
}
