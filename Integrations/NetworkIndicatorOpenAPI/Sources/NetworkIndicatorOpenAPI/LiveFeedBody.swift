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
/// manager's cancel, at a read that ends it (its end, an error, or the reading loops' own
/// cancels, once no loop reads on a feed that can be read many times), or, for a feed read
/// once, when its iterator goes. The group then goes,
/// and with it the manager's hold. Safe from any thread; one lock, never held while code of
/// anyone else's runs.
final class LiveFeedHold: Sendable {
    private struct State {
        var task: NetworkActivityGroup?
        /// The feed's readers: its live iterators, less those whose loop's own cancel stopped.
        var readers = 0
    }

    private let state: LockedValue<State>
    private let cancellation: RequestCancellation

    init(task: NetworkActivityGroup, cancellation: RequestCancellation) {
        self.state = LockedValue(State(task: task))
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

    /// An iterator of the feed began reading, or went without its loop's own cancel.
    func readerBegan() { state.withLock { $0.readers += 1 } }
    func readerWent() { state.withLock { $0.readers -= 1 } }

    /// A reader's loop stopped at its own cancel: the feed ends if no other reader is left. Two
    /// loops cancelled at the same moment each stop once, so the second ends the feed.
    func readerStopped() {
        release(
            state.withLock { state in
                state.readers -= 1
                guard state.readers == 0 else { return nil }
                defer { state.task = nil }
                return state.task
            }
        )
    }

    /// The feed ended: it is no longer its screen's work. A second call does nothing.
    func feedEnded() {
        release(
            state.withLock { state in
                defer { state.task = nil }
                return state.task
            }
        )
    }

    /// Releases the group taken out under the lock after it: its `deinit` may run here.
    private func release(_ task: consuming NetworkActivityGroup?) {
        withExtendedLifetime(task) {}
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
        let isReadOnce = upstream.iterationBehavior == .single
        return Iterator(
            reader: Reader(upstream.makeAsyncIterator(), hold: hold, isReadOnce: isReadOnce),
            hold: hold,
            isReadOnce: isReadOnce
        )
    }

    /// The upstream iterator, read by one task at a time (see the note at the top of the file),
    /// counted among the feed's readers while it lives, unless its loop's own cancel stopped it.
    /// The only iterator of a feed read once ends the feed as it goes (its loop's `break`,
    /// `return` or error): nothing can read the feed again.
    final class Reader: @unchecked Sendable {
        private var upstream: HTTPBody.Iterator
        private let hold: LiveFeedHold
        private let isReadOnce: Bool
        /// Whether it counts among the feed's readers.
        private var isReading = true

        init(_ upstream: HTTPBody.Iterator, hold: LiveFeedHold, isReadOnce: Bool) {
            self.upstream = upstream
            self.hold = hold
            self.isReadOnce = isReadOnce
            hold.readerBegan()
        }

        deinit {
            if isReading { hold.readerWent() }
            if isReadOnce { hold.feedEnded() }
        }

        func next() async throws -> Element? {
            if !isReading {
                isReading = true
                hold.readerBegan()
            }
            return try await upstream.next()
        }

        /// Its loop's own cancel ended its read: it no longer counts, and the feed ends if no
        /// other reader is left.
        func stop() {
            guard isReading else { return }
            isReading = false
            hold.readerStopped()
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
        /// was cancelled (its view went away, its read then ending or throwing) on a feed that
        /// can be read many times: this loop stops reading, and the feed ends only if no other
        /// loop reads on (it stays their screen's work).
        private func endFeedUnlessOthersRead() {
            if !isReadOnce && Task.isCancelled && !hold.isCancelled {
                reader.stop()
            } else {
                hold.feedEnded()
            }
        }
    }
}
