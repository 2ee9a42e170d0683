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
    /// unchanged.
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
        @usableFromInline var activity: NetworkActivityToken?
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
        /// An error from the base sequence ends the task and is rethrown.
        @inlinable
        public mutating func next() async rethrows -> Base.Element? {
            guard !isDone else { return nil }
            let activity = self.activity ?? begin()
            self.activity = activity
            let progress = self.progress
            do {
                let element = try await withTaskCancellationHandler {
                    try await base.next()
                } onCancel: {
                    // Cancelled first: its part leaves the batch rather than count as done.
                    progress?.cancel()
                    activity.stopTracking()
                }
                if element == nil { finish() } else { progress?.completedUnitCount += 1 }
                return element
            } catch {
                progress?.cancel()
                finish()
                throw error
            }
        }

        /// Begins the iteration's task, with its progress if a count is expected.
        @usableFromInline
        mutating func begin() -> NetworkActivityToken {
            guard let expectedElementCount, expectedElementCount > 0 else {
                return manager.beginTask(label: label, site: site)
            }
            // Counted under a lock: the iterating task updates it while the main queue reads it.
            let progress = NetworkActivityProgress(totalUnitCount: Int64(expectedElementCount))
            self.progress = progress
            return manager.beginTask(label: label, progress: progress, weight: weight, site: site)
        }

        @usableFromInline
        mutating func finish() {
            isDone = true
            activity?.stopTracking()
            activity = nil
        }
    }
}

extension NetworkActivityTrackingSequence: Sendable where Base: Sendable {}

@available(*, unavailable)
extension NetworkActivityTrackingSequence.Iterator: Sendable {}
