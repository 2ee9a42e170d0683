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
/// Released with the body and its iterators, or let go as soon as the feed ends: at the
/// manager's cancel, or at a read that ends it (its end, an error, or the reading loop's own
/// cancel while no other loop reads a feed that can be read many times). The group then goes,
/// and with it the manager's hold. Safe from any thread.
final class LiveFeedHold: Sendable {
    private let task: LockedValue<NetworkActivityGroup?>
    private let cancellation: RequestCancellation
    /// The feed's live iterators: one loop's own cancel ends the feed only if it reads alone.
    private let readers = LockedValue(0)

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

    /// An iterator of the feed was made, or went.
    func readerBegan() { readers.withLock { $0 += 1 } }
    func readerEnded() { readers.withLock { $0 -= 1 } }

    /// Whether another iterator than the caller's is alive, and may read on.
    var hasOtherReaders: Bool { readers.withLock { $0 > 1 } }

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
/// not handed out), and the feed's end lets go of its screen (``LiveFeedHold``).
struct LiveFeedBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let upstream: HTTPBody
    let hold: LiveFeedHold

    func makeAsyncIterator() -> Iterator {
        Iterator(
            reader: Reader(upstream.makeAsyncIterator(), hold: hold),
            hold: hold,
            isReadOnce: upstream.iterationBehavior == .single
        )
    }

    /// The upstream iterator, read by one task at a time (see the note at the top of the file),
    /// counted among the feed's readers while it lives.
    final class Reader: @unchecked Sendable {
        private var upstream: HTTPBody.Iterator
        private let hold: LiveFeedHold

        init(_ upstream: HTTPBody.Iterator, hold: LiveFeedHold) {
            self.upstream = upstream
            self.hold = hold
            hold.readerBegan()
        }

        deinit {
            hold.readerEnded()
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
                    endFeedUnlessOthersRead()
                    return nil
                }
                guard !hold.isCancelled else { throw CancellationError() }
                return chunk
            } catch {
                endFeedUnlessOthersRead()
                throw error
            }
        }

        /// This loop's read ended the feed, or threw: the feed ends, unless this loop's own task
        /// was cancelled (its view went away, its read then ending or throwing) while other
        /// loops may read on a feed that can be read many times: it stays their screen's work.
        private func endFeedUnlessOthersRead() {
            let isOwnCancel = Task.isCancelled && !hold.isCancelled
            if isReadOnce || !isOwnCancel || !hold.hasOtherReaders { hold.feedEnded() }
        }
    }
}
