/// How one counted request stops when the manager's
/// ``NetworkIndicator/NetworkIndicatorManager/cancelNetworkTasks()`` ends it: the request's
/// group calls ``cancel()`` from its cancellation handler.
///
/// - While `next` runs (the transport and the middlewares after this one), ``race(_:)`` runs it
///   in a child task beside a waiter for the cancel: the cancel makes the call throw
///   `CancellationError` and cancels the child, whose transport then stops its load (as
///   `URLSessionTransport` does). The call returns once the child has returned: structured
///   concurrency waits for it, so a transport that ignores cancellation delays the throw.
/// - Once the response is back, the body's reads ask ``isCancelled``: each read that starts after
///   the cancel throws `CancellationError`. A read already waiting for the server returns its
///   bytes first, except a live feed's, which runs in ``race(_:)`` (``LiveFeedBody``): an idle
///   feed may wait for its next event for as long as the screen lives.
///
/// The request's group holds it (through its handler), and so does the response body's
/// activity. What keeps the group once the response is back (the body's activity, a live
/// feed's hold) lets go of it at the cancel (``whenCancelled(_:)``), so that a body kept unread
/// keeps no screen's manager alive. Safe from any thread; the lock guards only the cancel's
/// state and is never held while code of anyone else's runs.
final class RequestCancellation: Sendable {
    private enum State {
        /// Each running ``race(_:)``'s waiter, suspended until the cancel, by its number (two
        /// loops may read a body that can be iterated many times at once), and what lets go of
        /// the request's task at the cancel (``whenCancelled(_:)``).
        case running(waiters: [UInt64: CheckedContinuation<Void, any Error>], next: UInt64, release: Release?)
        case cancelled
    }

    typealias Release = @Sendable () -> Void

    private let state = LockedValue(State.running(waiters: [:], next: 0, release: nil))

    /// Whether ``cancel()`` has been called.
    var isCancelled: Bool {
        state.withLock { state in
            if case .cancelled = state { return true }
            return false
        }
    }

    /// Cancels the request: every running ``race(_:)`` throws `CancellationError`, and so does
    /// every later one and every body read that starts afterwards; then the release given to
    /// ``whenCancelled(_:)`` runs. A second call does nothing.
    func cancel() {
        let (waiters, release) = state.withLock { state -> ([CheckedContinuation<Void, any Error>], Release?) in
            defer { state = .cancelled }
            guard case .running(let waiters, _, let release) = state else { return ([], nil) }
            return (Array(waiters.values), release)
        }
        for waiter in waiters { waiter.resume(throwing: CancellationError()) }
        release?()
    }

    /// Runs `release` at ``cancel()``, or at once if the cancel came already: what keeps the
    /// request's task once the response is back lets go of it then (the cancel ended the task).
    /// Called once per request; `release` should hold its object weakly (this object is held
    /// by the body it keeps).
    func whenCancelled(_ release: @escaping Release) {
        let isCancelled = state.withLock { state in
            guard case .running(let waiters, let next, _) = state else { return true }
            state = .running(waiters: waiters, next: next, release: release)
            return false
        }
        if isCancelled { release() }
    }

    /// Runs `operation` until it returns or throws, or until ``cancel()``, whichever comes first:
    /// the cancel throws `CancellationError` once the operation, cancelled, has returned, and so
    /// does an operation that returns or throws after a cancel that came while it ran. The
    /// calling task's own cancellation alone reaches `operation` as usual, which decides what to
    /// throw.
    func race<Success: Sendable>(_ operation: @Sendable () async throws -> Success) async throws -> Success {
        try await withoutActuallyEscaping(operation) { operation in
            try await withThrowingTaskGroup(of: Success?.self) { group in
                group.addTask { try await operation() }
                group.addTask {
                    try? await self.waitForCancel()
                    return nil
                }
                // The group waits for both children before returning, so `operation` never
                // outlives this call; whichever ends first cancels the other.
                defer { group.cancelAll() }
                do {
                    while let first = try await group.next() {
                        // The operation ended: after the manager's cancel (which may have landed
                        // before the waiter was in place, or after the caller's own cancel
                        // ended the waiter), the call throws, whatever the operation returned.
                        if let result = first, !isCancelled { return result }
                        // The waiter ended: at the manager's cancel, the call throws now; at the
                        // calling task's, the operation ends as it does when cancelled, unchanged.
                        if isCancelled { throw CancellationError() }
                    }
                } catch {
                    throw isCancelled ? CancellationError() : error
                }
                throw CancellationError()  // unreachable: the operation's child returns or throws
            }
        }
    }

    /// Throws `CancellationError` at ``cancel()`` or when the calling task is cancelled (the
    /// operation ended, or the caller's task was cancelled), whichever comes first.
    private func waitForCancel() async throws {
        let number = state.withLock { state -> UInt64? in
            guard case .running(let waiters, let next, let release) = state else { return nil }
            state = .running(waiters: waiters, next: next &+ 1, release: release)
            return next
        }
        guard let number else { throw CancellationError() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // One decision under the lock: a cancellation handler that ran before this point
                // found nothing to resume, but the task's flag is set by then.
                let isOver = state.withLock { state in
                    guard case .running(var waiters, let next, let release) = state, !Task.isCancelled else {
                        return true
                    }
                    waiters[number] = continuation
                    state = .running(waiters: waiters, next: next, release: release)
                    return false
                }
                if isOver { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard case .running(var waiters, let next, let release) = state else { return nil }
                let waiter = waiters.removeValue(forKey: number)
                state = .running(waiters: waiters, next: next, release: release)
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
