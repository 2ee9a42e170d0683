import NetworkIndicator
import OpenAPIRuntime

/// What keeps a live feed its screen's work: the request's group, which stopped counting at the
/// headers but which the manager's cancel still reaches (it holds the group weakly), and the
/// request's cancellation, which that cancel sets.
///
/// Released with the body and its iterators, or let go as soon as a read ends the feed (its end,
/// or an error): the group then goes, and with it the manager's hold. Safe from any thread.
final class LiveFeedHold: Sendable {
    private let task: LockedValue<NetworkActivityGroup?>
    private let cancellation: RequestCancellation

    init(task: NetworkActivityGroup, cancellation: RequestCancellation) {
        self.task = LockedValue(task)
        self.cancellation = cancellation
    }

    /// Whether the manager's cancel reached the feed.
    var isCancelled: Bool {
        cancellation.isCancelled
    }

    /// The feed ended: it is no longer its screen's work. A second call does nothing.
    func feedEnded() {
        // Taken out under the lock, released after it, at the end of this statement.
        withExtendedLifetime(
            task.withLock { task in
                defer { task = nil }
                return task
            }
        ) {}
    }
}

/// A live feed's body, handed on with the same bytes, length and iteration behaviour: each read
/// that starts after the manager's cancel throws `CancellationError` (a read already waiting
/// returns its bytes first), and the feed's end, or an error, lets go of its screen.
struct LiveFeedBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let upstream: HTTPBody
    let hold: LiveFeedHold

    func makeAsyncIterator() -> Iterator {
        Iterator(upstream: upstream.makeAsyncIterator(), hold: hold)
    }

    struct Iterator: AsyncIteratorProtocol {
        var upstream: HTTPBody.Iterator
        let hold: LiveFeedHold

        mutating func next() async throws -> Element? {
            // The cancel already took the group out of the manager's reach.
            guard !hold.isCancelled else { throw CancellationError() }
            do {
                guard let chunk = try await upstream.next() else {
                    hold.feedEnded()
                    return nil
                }
                return chunk
            } catch {
                hold.feedEnded()
                throw error
            }
        }
    }
}
