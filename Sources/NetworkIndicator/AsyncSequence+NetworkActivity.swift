import Foundation

extension AsyncSequence {
    /// The same sequence, with one network task open in `manager` while it is being iterated:
    /// RxSwift's `trackActivity`, for async sequences (server-sent events, a paged download,
    /// a stream of chunks).
    ///
    /// ```swift
    /// for try await event in client.events().trackingNetworkActivity(in: feedActivity) {
    ///     handle(event)
    /// }
    /// ```
    ///
    /// The task begins at the first call to `next()` (creating the sequence or the iterator
    /// begins nothing) and ends when the sequence finishes, when it throws, or when iteration
    /// stops: the loop breaks or returns (the iterator is released), or the consuming task is
    /// cancelled: at once while `next()` waits for the base sequence, or, cancelled while your
    /// loop's body handles an element, at its next call to `next()` (an iterator cannot hear a
    /// cancel between its calls: check `Task.isCancelled` in a long body).
    /// Each iteration of the sequence is its own task. Elements and errors pass through
    /// unchanged. The task counts for as long as the loop runs: a feed that stays open for a
    /// screen's life keeps the indicator on with it. To count such a feed only until its
    /// headers, and still stop it at the screen's cancel, make it an operation of a
    /// ``NetworkActivityGroup`` that stops counting (``NetworkActivityGroup/operationStoppedCounting()``).
    ///
    /// ``NetworkIndicatorManager/cancelNetworkTasks()`` of `manager` or of an ancestor (a screen
    /// that goes away) ends the task at once, and the iteration with it: the next call to
    /// `next()`, or the one waiting for the base sequence once that returns, gives `nil`, so
    /// the loop ends without the element (the base sequence is not cancelled: only its loop
    /// stops); an error the base throws into that waiting read is thrown as ever. A counted
    /// iteration's part leaves the progress bar, as a cancelled load's does.
    ///
    /// - Parameters:
    ///   - manager: The manager whose indicator shows the iteration; `.shared` by default.
    ///   - label: A name for ``NetworkIndicatorManager/activitySnapshot()`` and diagnostics; by
    ///     default the task is named by where this was called.
    ///   - file: Where the sequence was made, for snapshots and diagnostics: leave the default,
    ///     the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    public func trackingNetworkActivity(
        in manager: NetworkIndicatorManager = .shared,
        label: String? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> NetworkActivityTrackingSequence<Self> {
        NetworkActivityTrackingSequence(
            base: self,
            manager: manager,
            label: label,
            site: CallSite(fileID: file, line: line)
        )
    }
}

/// An async sequence that keeps one network task open while it is being iterated; see
/// ``_Concurrency/AsyncSequence/trackingNetworkActivity(in:label:file:line:)``.
public struct NetworkActivityTrackingSequence<Base: AsyncSequence>: AsyncSequence {
    /// The base sequence's element.
    public typealias Element = Base.Element

    @usableFromInline let base: Base
    @usableFromInline let manager: NetworkIndicatorManager
    @usableFromInline let label: String?
    @usableFromInline let site: CallSite
    @usableFromInline let expectedElementCount: Int?
    @usableFromInline let weight: Int64?

    @usableFromInline
    init(
        base: Base,
        manager: NetworkIndicatorManager,
        label: String?,
        site: CallSite,
        expectedElementCount: Int? = nil,
        weight: Int64? = nil
    ) {
        self.base = base
        self.manager = manager
        self.label = label
        self.site = site
        self.expectedElementCount = expectedElementCount
        self.weight = weight
    }

    /// Makes an iterator; its task begins at its first `next()`.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            base: base.makeAsyncIterator(),
            manager: manager,
            label: label,
            site: site,
            expectedElementCount: expectedElementCount,
            weight: weight
        )
    }

    /// Iterates the base sequence with a network task open, from the first `next()` until the
    /// end, an error, cancellation, or the iterator's release. Use it from one task at a time,
    /// like any iterator.
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline var base: Base.AsyncIterator
        @usableFromInline let manager: NetworkIndicatorManager
        @usableFromInline let label: String?
        @usableFromInline let site: CallSite
        /// The open task; its release ends the task, so a dropped iterator ends it too.
        @usableFromInline var activity: TrackedIteration?
        @usableFromInline var isDone = false
        @usableFromInline let expectedElementCount: Int?
        @usableFromInline let weight: Int64?
        /// This iteration's progress, one unit per element; `nil` without an expected count.
        @usableFromInline var progress: NetworkActivityProgress?

        @usableFromInline
        init(
            base: Base.AsyncIterator,
            manager: NetworkIndicatorManager,
            label: String?,
            site: CallSite,
            expectedElementCount: Int?,
            weight: Int64?
        ) {
            self.base = base
            self.manager = manager
            self.label = label
            self.site = site
            self.expectedElementCount = expectedElementCount
            self.weight = weight
        }

        /// The base sequence's next element; `nil` (and the task ended) once it has finished.
        /// An error from the base sequence ends the task and is rethrown. Where the caller's
        /// isolation is known (``next(isolation:)``), the base is read there instead.
        @inlinable
        public mutating func next() async rethrows -> Base.Element? {
            guard let activity = openActivity() else { return nil }
            let progress = self.progress
            do {
                let element = try await withTaskCancellationHandler {
                    try await base.next()
                } onCancel: {
                    activity.readingCancelled(progress)
                }
                return took(element, in: activity)
            } catch {
                failed()
                throw error
            }
        }

        // SE-0421's `next(isolation:)` and `Failure` come with the Swift 6 standard library; an
        // SDK of Xcode 15 has neither, nor the Synchronization module of the same library.
        #if canImport(Synchronization)
        /// ``next()``, reading the base sequence in the caller's isolation, as a `for await`
        /// loop asks (SE-0421): a loop on the main actor or on an actor of yours reads the base
        /// there, as it would without tracking, so a base iterator that touches that actor's
        /// state is not raced. Its error is the base sequence's own type. The compiler calls it
        /// for loops built for macOS 15, iOS 18 and later (and on Linux); a loop built for an
        /// earlier deployment target calls ``next()``, whatever system it runs on.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Base.Failure) -> Base.Element? {
            guard let activity = openActivity() else { return nil }
            let progress = self.progress
            let result = await withTaskCancellationHandler {
                do throws(Base.Failure) {
                    return Result<Base.Element?, Base.Failure>.success(try await base.next(isolation: actor))
                } catch {
                    return .failure(error)
                }
            } onCancel: {
                activity.readingCancelled(progress)
            }
            switch result {
            case .success(let element):
                return took(element, in: activity)
            case .failure(let error):
                failed()
                throw error
            }
        }
        #endif

        /// The open task, begun at the first call; `nil` (the loop ends) once the iteration is
        /// done or the manager cancelled it.
        @usableFromInline
        mutating func openActivity() -> TrackedIteration? {
            guard !isDone else { return nil }
            let activity = self.activity ?? begin()
            self.activity = activity
            guard !activity.isCancelled else {
                finish()
                return nil
            }
            return activity
        }

        /// `element` read: counted, or the task ended at the end or after the manager's cancel
        /// came while the base sequence was read (the loop stops).
        @usableFromInline
        mutating func took(_ element: Base.Element?, in activity: TrackedIteration) -> Base.Element? {
            guard element != nil, !activity.isCancelled else {
                finish()
                return nil
            }
            progress?.completedUnitCount += 1
            return element
        }

        /// The base sequence threw: the part leaves the batch and the task ends. The failure goes
        /// in the task's record, not in its progress: a reset that ended the task a moment
        /// before noted it had not failed, and that stands.
        @usableFromInline
        mutating func failed() {
            activity?.failure.recordFailure()
            finish()
        }

        /// Begins the iteration's task, with its progress if a count is expected.
        @usableFromInline
        mutating func begin() -> TrackedIteration {
            guard let expectedElementCount, expectedElementCount > 0 else {
                return TrackedIteration(in: manager, label: label, site: site, progress: nil, weight: nil)
            }
            // Counted under a lock: the iterating task updates it while the main queue reads it.
            let progress = NetworkActivityProgress(totalUnitCount: Int64(expectedElementCount))
            self.progress = progress
            return TrackedIteration(in: manager, label: label, site: site, progress: progress, weight: weight)
        }

        @usableFromInline
        mutating func finish() {
            isDone = true
            activity?.end()
            activity = nil
        }
    }
}

extension NetworkActivityTrackingSequence: Sendable where Base: Sendable {}

@available(*, unavailable)
extension NetworkActivityTrackingSequence.Iterator: Sendable {}

/// One iteration of a tracked sequence, counted in its manager as a task that
/// ``NetworkIndicatorManager/cancelNetworkTasks()`` can cancel: the cancel ends the task and
/// marks the iteration, whose next `next()` ends the loop. Its end, or its release (a dropped
/// iterator), ends the task; a second end finds none.
@usableFromInline
final class TrackedIteration: FailsProgressWhenCancelled, Sendable {
    private let manager: NetworkIndicatorManager
    /// Recorded when the manager cancels the iteration, before its task ends: its part leaves
    /// the bar, and the loop stops (``isCancelled``). Also recorded when the base sequence
    /// throws, as the loop ends.
    let failure = FailureRecord()

    /// The task reading the base sequence was cancelled: `progress` first, so that its part
    /// leaves the batch rather than count as done, then the task ends.
    @usableFromInline
    func readingCancelled(_ progress: NetworkActivityProgress?) {
        progress?.cancel()
        end()
    }

    init(in manager: NetworkIndicatorManager, label: String?, site: CallSite, progress: Progress?, weight: Int64?) {
        self.manager = manager
        manager.beginKeyedTask(
            of: self,
            kind: .iteration,
            label: label,
            site: site,
            progress: progress,
            weight: weight,
            failure: failure
        )
    }

    /// Whether the manager cancelled the iteration. Safe from any thread.
    @usableFromInline
    var isCancelled: Bool { failure.hasFailed }

    func recordCancellation() {
        failure.recordFailure()
    }

    /// The manager's cancel, after its task ended: nothing more to do, since
    /// ``recordCancellation()`` marked the iteration under the lock, and the loop stops at its
    /// next `next()`.
    @usableFromInline
    func cancel() {}

    /// Ends the iteration's task, if it is still open (task watchers hear `released`, the ending
    /// of scoped work). Safe from any thread.
    @usableFromInline
    func end() {
        manager.driver.apply(.finishAll(ObjectIdentifier(self), ending: .released))
    }

    deinit {
        end()
    }
}
