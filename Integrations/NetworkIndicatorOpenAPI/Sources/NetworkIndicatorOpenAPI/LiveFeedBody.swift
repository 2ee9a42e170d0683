import NetworkIndicator
import OpenAPIRuntime

// Unsafe code in this file: `LiveFeedBody.Reader` is `@unchecked Sendable`. Why it is correct:
// it carries the feed's iterator into the child task that reads one chunk while the iterating
// task waits for that read (``RequestCancellation/race(_:)`` returns only once its child has),
// so one task at a time touches it, as an iterator's contract asks. Not a speed trick: a
// waiting read cannot hear the manager's cancel any other way (the caller's task is not ours
// to cancel).

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

    /// Runs one read until it returns, or until the manager's cancel (then `CancellationError`).
    func race<Success: Sendable>(_ read: @Sendable () async throws -> Success) async throws -> Success {
        try await cancellation.race(read)
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

/// A live feed's body, handed on with the same bytes, length and iteration behaviour: a read
/// throws `CancellationError` at the manager's cancel, at once even while it waits for the next
/// event (the read of the upstream body is cancelled, and bytes that come after the cancel are
/// not handed out), and the feed's end, or an error, lets go of its screen.
struct LiveFeedBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let upstream: HTTPBody
    let hold: LiveFeedHold

    func makeAsyncIterator() -> Iterator {
        Iterator(
            reader: Reader(upstream.makeAsyncIterator()),
            hold: hold,
            isReadOnce: upstream.iterationBehavior == .single
        )
    }

    /// The upstream iterator, read by one task at a time (see the note at the top of the file).
    final class Reader: @unchecked Sendable {
        private var upstream: HTTPBody.Iterator

        init(_ upstream: HTTPBody.Iterator) {
            self.upstream = upstream
        }

        func next() async throws -> Element? {
            try await upstream.next()
        }
    }

    struct Iterator: AsyncIteratorProtocol {
        let reader: Reader
        let hold: LiveFeedHold
        /// Whether the body can be iterated only once: then a loop's end is the feed's.
        let isReadOnce: Bool

        mutating func next() async throws -> Element? {
            // The cancel already took the group out of the manager's reach; the feed has failed,
            // and lets go of its screen.
            guard !hold.isCancelled else {
                hold.feedEnded()
                throw CancellationError()
            }
            do {
                // Raced with the manager's cancel: a read waiting for the server ends with it.
                let reader = reader
                guard let chunk = try await hold.race({ try await reader.next() }) else {
                    hold.feedEnded()
                    return nil
                }
                guard !hold.isCancelled else { throw CancellationError() }
                return chunk
            } catch {
                // One loop's own task cancelled (its view went away) ends a feed read once; one
                // that can be read many times stays its screen's work for its other loops.
                if isReadOnce || !Task.isCancelled || hold.isCancelled { hold.feedEnded() }
                throw error
            }
        }
    }
}
