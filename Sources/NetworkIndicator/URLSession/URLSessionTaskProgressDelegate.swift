import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Runs `load` as one task of `manager`, feeding the bytes of the `URLSessionTask` it makes
    /// into ``NetworkIndicatorManager/fractionCompleted`` where the task can be seen.
    ///
    /// On iOS 16+, macOS 13+, tvOS 16+ and watchOS 9+ a task delegate passed with the load hears
    /// `urlSession(_:didCreateTask:)` and hands the task to the progress the manager reads.
    /// Elsewhere (older releases, and Linux, whose Foundation does not keep a data task's byte
    /// counts anyway) `load` gets `nil` and the task stays indeterminate.
    ///
    /// The load runs as a ``CancellableLoad``, which
    /// ``NetworkIndicatorManager/cancelNetworkTasks()`` reaches (it then throws
    /// `URLError(.cancelled)` at once), as does the cancellation of the calling task.
    func withTaskProgress<Result: Sendable>(
        tracking manager: NetworkIndicatorManager,
        label: String?,
        _ load: @escaping @Sendable (_ delegate: (any URLSessionTaskDelegate)?) async throws -> Result
    ) async throws -> Result {
        #if canImport(ObjectiveC)
        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *) {
            let progress = URLSessionTaskProgress(task: nil)
            let delegate = URLSessionTaskProgressDelegate(progress: progress)
            return try await CancellableLoad.run(in: manager, label: label, progress: progress) {
                try await load(delegate)
            }
        }
        #endif
        return try await CancellableLoad.run(in: manager, label: label, progress: nil) {
            try await load(nil)
        }
    }
}

#if canImport(ObjectiveC)
/// The task delegate of one tracked async load: hands the load's task to its progress, then
/// passes `urlSession(_:didCreateTask:)` on to the session's delegate, which a task delegate
/// implementing it would otherwise silence.
///
/// A ``NetworkActivitySessionDelegate`` is skipped (its own delegate gets the message): the load
/// is already counted once, by the helper.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
final class URLSessionTaskProgressDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let progress: URLSessionTaskProgress

    init(progress: URLSessionTaskProgress) {
        self.progress = progress
    }

    func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
        progress.attach(task)
        let sessionDelegate: (any URLSessionDelegate)?
        if let counting = session.delegate as? NetworkActivitySessionDelegate {
            sessionDelegate = counting.forwardee
        } else {
            sessionDelegate = session.delegate
        }
        (sessionDelegate as? any URLSessionTaskDelegate)?.urlSession?(session, didCreateTask: task)
    }
}
#endif
