import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Runs `load` as one task of `manager`, feeding the bytes of the `URLSessionTask` it makes
    /// into ``NetworkIndicatorManager/progressSnapshot()`` where the task can be seen.
    ///
    /// On iOS 16+, macOS 13+, tvOS 16+ and watchOS 9+ a task delegate passed with the load hears
    /// `urlSession(_:didCreateTask:)` and hands the task to the progress the manager reads; it
    /// forwards every message to the caller's `delegate`, if any. Elsewhere (older releases, and
    /// Linux, whose Foundation does not keep a data task's byte counts anyway) `load` gets the
    /// caller's `delegate` itself and the task stays indeterminate.
    ///
    /// The load runs as a ``CancellableLoad``, which
    /// ``NetworkIndicatorManager/cancelNetworkTasks()`` reaches (it then throws
    /// `URLError(.cancelled)` at once), as does the cancellation of the calling task; the load's
    /// `URLSessionTask` is cancelled too, as ``cancelHelperWork(_:)`` says, and a result that
    /// still comes goes to `discard`.
    func withTaskProgress<Result: Sendable>(
        tracking manager: NetworkIndicatorManager,
        label: String?,
        site: CallSite,
        delegate: (any URLSessionTaskDelegate)?,
        discard: (@Sendable (Result) -> Void)? = nil,
        _ load: @escaping @Sendable (_ delegate: (any URLSessionTaskDelegate)?) async throws -> Result
    ) async throws -> Result {
        #if canImport(ObjectiveC)
        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *) {
            let progress = URLSessionTaskProgress(task: nil)
            let progressDelegate = URLSessionTaskProgressDelegate(progress: progress, forwardingTo: delegate)
            return try await CancellableLoad.run(
                in: manager,
                label: label,
                site: site,
                progress: progress,
                cancelWork: Self.cancelHelperWork,
                discard: discard
            ) {
                try await load(progressDelegate)
            }
        }
        #endif
        return try await CancellableLoad.run(
            in: manager,
            label: label,
            site: site,
            progress: nil,
            cancelWork: Self.cancelHelperWork,
            discard: discard
        ) {
            try await load(delegate)
        }
    }

    /// Runs the cancel of a cancelled helper's load. On Apple platforms, at once, on a global
    /// queue. On Linux, only ``helperCancelGrace`` seconds later, and so only if the transfer
    /// still runs then: swift-corelibs-foundation (as of Swift 6.3) crashes when a task is
    /// cancelled as it completes ("Trying to access a behaviour for a task that in not in the
    /// registry") and deadlocks when an async load's Swift task is (its issue 5412). A transfer
    /// that ends within the grace is never cancelled; a longer one still frees its connection
    /// (its host's are few: six, here) a second after the cancel, and meets that fault only if
    /// it completes in that very instant. Measured with 1 ms loopback loads, each cancelled from
    /// a global queue after a random 0–1.5 ms (Benchmarks/README.md, "Probes"): Foundation's
    /// async load, its Swift task cancelled, deadlocked in 5 runs of 5, within 53 rounds; a
    /// completion-handler task cancelled itself crashed in each of 7 runs of 20 000 rounds or
    /// more; left alone, 4 runs of 20 000 rounds, neither.
    static func cancelHelperWork(_ cancel: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + helperCancelGrace, execute: cancel)
    }

    /// How long a cancelled helper's transfer may run on before its task is cancelled: 1 s on
    /// Linux, none on Apple platforms.
    #if canImport(FoundationNetworking)
    static let helperCancelGrace: TimeInterval = 1
    #else
    static let helperCancelGrace: TimeInterval = 0
    #endif
}

#if canImport(ObjectiveC)
/// The task delegate of one tracked async load: hands the load's task to its progress, and
/// forwards every other message to the caller's task delegate (`forwardee`), as if the caller's
/// had been passed alone.
///
/// `urlSession(_:didCreateTask:)` goes to the caller's delegate if it implements it, and
/// otherwise on to the session's delegate, which a task delegate implementing it would
/// otherwise silence.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
final class URLSessionTaskProgressDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let progress: URLSessionTaskProgress
    let forwardee: (any URLSessionTaskDelegate)?

    init(progress: URLSessionTaskProgress, forwardingTo forwardee: (any URLSessionTaskDelegate)?) {
        self.progress = progress
        self.forwardee = forwardee
    }

    func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
        progress.attach(task)
        // Non-nil when the caller's delegate implements the method (and has now been told).
        if forwardee?.urlSession?(session, didCreateTask: task) != nil { return }
        (session.delegate as? any URLSessionTaskDelegate)?.urlSession?(session, didCreateTask: task)
    }

    /// Records the task's end while URLSession still holds it (it lets go right after), then
    /// tells the caller's delegate.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        progress.recordEnd(of: task)
        forwardee?.urlSession?(session, task: task, didCompleteWithError: error)
    }

    override func responds(to aSelector: Selector!) -> Bool {
        super.responds(to: aSelector) || (forwardee?.responds(to: aSelector) ?? false)
    }

    override func conforms(to aProtocol: Protocol) -> Bool {
        super.conforms(to: aProtocol) || (forwardee?.conforms(to: aProtocol) ?? false)
    }

    override func forwardingTarget(for aSelector: Selector!) -> Any? {
        if let forwardee, !super.responds(to: aSelector), forwardee.responds(to: aSelector) {
            return forwardee
        }
        return super.forwardingTarget(for: aSelector)
    }
}
#endif
