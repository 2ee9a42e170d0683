import Foundation
import NetworkIndicator

/// One request's `Progress`, as ``RequestProgressState`` computes it: the request body's bytes
/// as the transport reads them, then the response body's as the caller reads them.
///
/// Safe from any thread: the state sits behind a lock, and the progress is set under it, so that
/// two readers (a retrying middleware reads a request body again; a body that can be iterated
/// many times) cannot publish out of order. No code of anyone else's runs under it: the
/// progress is the middleware's own, with no parent and no observer (the manager reads it from
/// its own lock when it rolls up).
final class RequestProgress: Sendable {
    /// What the request's task carries; discrete, never a child of the caller's current one.
    let progress: NetworkActivityProgress
    private let state: LockedValue<RequestProgressState>

    /// A request whose body is `uploadLength` bytes long, or `nil` when unknown or absent.
    init(uploadLength: Int64?) {
        let state = RequestProgressState(uploadLength: uploadLength)
        self.progress = NetworkActivityProgress(totalUnitCount: state.units.total)
        self.state = LockedValue(state)
    }

    /// The transport has read `count` bytes of the request body through one reader.
    func sent(upTo count: Int64) {
        update { $0.sent(upTo: count) }
    }

    /// The response arrived, with a body of `expectedLength` bytes if known (0: no body).
    func responseArrived(expectedLength: Int64?) {
        update { $0.responseArrived(expectedLength: expectedLength) }
    }

    /// A reader has read `count` bytes of the response body so far.
    func received(upTo count: Int64) {
        update { $0.received(upTo: count) }
    }

    /// The request ends: a request that failed (see ``RequestProgressState/end(reachedEnd:)``)
    /// has its progress cancelled, so that it leaves the manager's batch. Call it before the
    /// request's task ends; later calls do nothing.
    func end(reachedEnd: Bool) {
        if reachedEnd { update { $0.readToTheEnd() } }
        state.withLock { state in
            if state.end(reachedEnd: reachedEnd) == true { progress.cancel() }
        }
    }

    private func update(_ change: (inout RequestProgressState) -> RequestProgressState.Units?) {
        state.withLock { state in
            let totalBefore = state.units.total
            guard let units = change(&state) else { return }
            // The total changes at most once (when the response's length is known): each chunk
            // sets one count.
            if units.total != totalBefore { progress.totalUnitCount = units.total }
            progress.completedUnitCount = units.completed
        }
    }
}
