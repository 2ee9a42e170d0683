import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One load of the package's async `URLSession` helpers, counted in a manager as a task that
/// ``NetworkIndicatorManager/cancelNetworkTasks()`` can cancel.
///
/// The load runs in a task of its own, which the caller awaits through a continuation: a cancel
/// (the manager's, or the calling task's) resumes the caller at once with
/// `URLError(.cancelled)`, as a cancelled load throws, then hands the cancel of the load's task
/// (which cancels its `URLSessionTask`) to ``cancelWork``: on a global queue at once, or after a
/// grace on Linux (``URLSession/cancelHelperWork(_:)``). A result that still comes goes to
/// ``discard``. The caller's task itself is not cancelled by the manager's cancel: only its load
/// is. The continuation is resumed exactly once, by whichever of the load's end and the cancel
/// comes first (decided under the load's own lock, which guards nothing else and is never held
/// while code of the caller's runs).
final class CancellableLoad<Success: Sendable>: FailsProgressWhenCancelled, Sendable {
    private enum Phase {
        /// Made; the caller has not started waiting yet.
        case waiting
        /// Cancelled before the caller started waiting: it throws as soon as it does.
        case cancelledEarly
        /// The caller waits for the load's task.
        case running(CheckedContinuation<Success, any Error>, task: Task<Void, Never>)
        /// The caller was resumed.
        case over
    }

    /// Runs the cancel of a cancelled load's task, on some thread other than the canceller's.
    typealias WorkCancel = @Sendable (_ cancel: @escaping @Sendable () -> Void) -> Void

    private let phase = LockedState(Phase.waiting)
    /// Recorded when the load throws or is cancelled, before its task ends.
    let failure = FailureRecord()
    /// How the cancel of the load's task is run.
    let cancelWork: WorkCancel
    /// What becomes of a result that comes after the caller was resumed (a download's file).
    let discard: (@Sendable (Success) -> Void)?

    init(cancelWork: @escaping WorkCancel = CancellableLoad.cancelAtOnce, discard: (@Sendable (Success) -> Void)? = nil)
    {
        self.cancelWork = cancelWork
        self.discard = discard
    }

    /// Runs `cancel` at once on a global queue. Not on the caller's thread: cancelling a task
    /// runs its cancellation handlers there, and Foundation's on Linux waits for the session's
    /// work queue, which may be completing this very load and waiting for the cancel to finish
    /// (swift-corelibs-foundation issue 5412): the caller (often the main thread) would hang. Nor
    /// on the cooperative pool, whose few threads such a wait would hold.
    static func cancelAtOnce(_ cancel: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: cancel)
    }

    func recordCancellation() {
        failure.recordFailure()
    }

    /// Runs `operation` as one task of `manager` (labelled `label`, with `progress` rolled up
    /// if given), ended when the call returns or throws; a cancel hands the cancel of
    /// `operation`'s task to `cancelWork`, and a result that still comes to `discard`.
    static func run(
        in manager: NetworkIndicatorManager,
        label: String?,
        site: CallSite,
        progress: Progress?,
        cancelWork: @escaping WorkCancel = CancellableLoad.cancelAtOnce,
        discard: (@Sendable (Success) -> Void)? = nil,
        _ operation: @escaping @Sendable () async throws -> Success
    ) async throws -> Success {
        let load = CancellableLoad(cancelWork: cancelWork, discard: discard)
        let key = ObjectIdentifier(load)
        let begin = TaskEvent.begin(.keyed(key, object: load, kind: .load), label: label, site: site)
        if let progress {
            manager.settleProgress()
            manager.beginTask(begin, measuredBy: progress, token: load, failure: { load.failure })
        } else {
            manager.driver.apply(begin)
        }
        defer { manager.driver.apply(.finishAll(key)) }
        do {
            let result = try await load.run(operation)
            // Before the task ends: URLSession lets go of a task as it completes, and a task gone
            // without a recorded end reads failed.
            (progress as? URLSessionTaskProgress)?.recordCompletion()
            return result
        } catch {
            load.failure.recordFailure()
            throw error
        }
    }

    /// Runs `operation`, counted by the caller: ``cancel()`` (which the caller routes here) or
    /// the calling task's cancellation makes it throw `URLError(.cancelled)` at once. Call it
    /// once per load.
    func run(_ operation: @escaping @Sendable () async throws -> Success) async throws -> Success {
        try await withTaskCancellationHandler {
            try await perform(operation)
        } onCancel: {
            cancel()
        }
    }

    /// Cancels the load: the caller throws `URLError(.cancelled)` at once, and the cancel of the
    /// load's task goes to ``cancelWork``. Safe from any thread; a second call, or one after the
    /// load ended, does nothing.
    func cancel() {
        let (continuation, task) = phase.withLock {
            phase -> (CheckedContinuation<Success, any Error>?, Task<Void, Never>?) in
            switch phase {
            case .waiting:
                phase = .cancelledEarly
                return (nil, nil)
            case .running(let continuation, let task):
                phase = .over
                return (continuation, task)
            case .cancelledEarly, .over:
                return (nil, nil)
            }
        }
        continuation?.resume(throwing: URLError(.cancelled))
        if let task { cancelWork { task.cancel() } }
    }

    private func perform(_ operation: @escaping @Sendable () async throws -> Success) async throws -> Success {
        try await withCheckedThrowingContinuation { continuation in
            // The task is made in the hold that stores it, so that no cancel finds the caller
            // waiting without it. Making a task runs none of its code: its end, which takes this
            // lock, waits for the hold to end.
            let isCancelled = phase.withLock { phase in
                guard case .waiting = phase else { return true }
                let task = Task {
                    let result: Result<Success, any Error>
                    do {
                        result = .success(try await operation())
                    } catch {
                        result = .failure(error)
                    }
                    self.end(with: result)
                }
                phase = .running(continuation, task: task)
                return false
            }
            if isCancelled { continuation.resume(throwing: URLError(.cancelled)) }
        }
    }

    /// The load's task ended: resumes the caller with `result`, unless a cancel did first; then
    /// a result that came too late goes to ``discard``.
    private func end(with result: Result<Success, any Error>) {
        let continuation = phase.withLock { phase -> CheckedContinuation<Success, any Error>? in
            guard case .running(let continuation, _) = phase else { return nil }
            phase = .over
            return continuation
        }
        if let continuation { return continuation.resume(with: result) }
        if let discard, case .success(let value) = result { discard(value) }
    }
}
