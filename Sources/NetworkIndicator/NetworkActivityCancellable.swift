public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A token whose work can be cancelled: ``NetworkIndicatorManager/cancelNetworkTasks()`` calls
/// ``cancel()`` on it and ends its tasks at once.
///
/// `Operation` and `URLSessionTask` conform out of the box. Conform your own token type to make
/// its work cancellable with the screen that shows it:
///
/// ```swift
/// final class ImageLoad: NetworkActivityCancellable {
///     private let task: Task<Void, Never>
///     init(_ task: Task<Void, Never>) { self.task = task }
///     func cancel() { task.cancel() }
/// }
/// manager.beganNetworkTask(withToken: load)   // manager.cancelNetworkTasks() cancels it
/// ```
///
/// The manager decides at the cancel whether a token conforms, so a type may conform after its
/// tokens were begun. A token begun with progress that a cancel ends leaves its batch at once,
/// unless its `Progress` reads complete: the bar neither jumps forward nor counts units that
/// will not come.
public protocol NetworkActivityCancellable: AnyObject {
    /// Stops the work. Called by ``NetworkIndicatorManager/cancelNetworkTasks()`` on the thread
    /// that called it, after the manager has released its lock (so it may call back into the
    /// manager), at most once per cancel that finds the token with an open task. It must be
    /// safe to call from any thread and should return quickly.
    func cancel()
}

extension Operation: NetworkActivityCancellable {}

extension URLSessionTask: NetworkActivityCancellable {}
