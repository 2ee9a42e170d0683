/// The open streams of ``NetworkIndicatorManager/activeTaskCountUpdates()`` and
/// ``NetworkIndicatorManager/slowNetworkActivityUpdates(after:)``, kept so that they finish when
/// their manager is deallocated (its deinit may run on any thread, hence the lock).
///
/// Each stream is fed by an owner-bound count observation whose owner is the stream's
/// ``Subscription``: the stream's termination handler keeps the subscription alive until the
/// stream terminates, so the observation lasts exactly as long as the stream.
final class CountStreams: Sendable {

    /// The owner of one stream's observation; alive until the stream terminates.
    final class Subscription: Sendable {
        private let terminated = LockedState(false)

        /// Whether the stream terminated (finished, or its consumer went away).
        var isTerminated: Bool { terminated.withLock { $0 } }

        fileprivate func terminate() { terminated.withLock { $0 = true } }
    }

    /// Each open stream's `finish()`.
    private let streams = LockedState<(next: UInt64, open: [UInt64: @Sendable () -> Void])>((0, [:]))

    init() {}

    deinit {
        for finish in streams.withLock({ $0.open.values }) { finish() }
    }

    /// Keeps `continuation` until it terminates; returns the owner its observation binds to.
    func open<Element: Sendable>(_ continuation: AsyncStream<Element>.Continuation) -> Subscription {
        let subscription = Subscription()
        let id = streams.withLock { streams in
            defer { streams.next += 1 }
            streams.open[streams.next] = { continuation.finish() }
            return streams.next
        }
        // Weak: this registry holds the continuation, which holds this handler.
        continuation.onTermination = { [weak self] _ in
            subscription.terminate()
            self?.streams.withLock { $0.open[id] = nil }
        }
        return subscription
    }
}
