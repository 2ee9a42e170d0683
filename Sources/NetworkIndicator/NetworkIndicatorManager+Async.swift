public import Foundation

extension NetworkIndicatorManager {
    /// Runs `body` as one network task: active while `body` runs, ended when it returns or
    /// throws, or as soon as the surrounding task is cancelled (even if `body` keeps running).
    ///
    /// ```swift
    /// let feed = try await NetworkIndicatorManager.shared.withNetworkActivity {
    ///     try await api.loadFeed()
    /// }
    ///
    /// let progress = Progress(totalUnitCount: Int64(files.count))
    /// try await manager.withNetworkActivity(label: "Sync", progress: progress) {
    ///     for file in files {
    ///         try await upload(file)
    ///         progress.completedUnitCount += 1
    ///     }
    /// }
    /// ```
    ///
    /// `body` runs on the caller's actor (`isolation`), so it need not be `Sendable`.
    /// A ``resetNetworkActivity()`` during `body` ends the task early; nothing is reported when
    /// `body` then finishes.
    ///
    /// With a `progress`, the task is begun as ``beganNetworkTask(label:progress:weight:file:line:)``
    /// begins one, and its progress rolls up into ``progressSnapshot()``. A plain `Progress`
    /// (which takes no lock on Linux) is read on the main queue only: update it there, or pass a
    /// ``NetworkActivityProgress``, which may be updated from any thread. If `body` throws, or the surrounding task is cancelled, the work failed:
    /// its progress leaves its batch (see ``progressSnapshot()``) rather than count as done.
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; leave the default, the caller's actor.
    ///   - label: A name for ``activitySnapshot()`` and diagnostics.
    ///   - progress: The work's progress, or `nil` (the default) for none.
    ///   - file: Where the work began, for snapshots and diagnostics (an unlabelled task is
    ///     named by it): leave the default, the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    ///   - body: The network work.
    /// - Returns: What `body` returns.
    public func withNetworkActivity<Result>(
        isolation: isolated (any Actor)? = #isolation,
        label: String? = nil,
        progress: Progress? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let failure = progress == nil ? nil : FailureRecord()
        let site = CallSite(fileID: file, line: line)
        let activity = ScopedActivity(in: self, label: label, site: site, progress: progress, failure: failure)
        defer { activity.end() }
        do {
            return try await withTaskCancellationHandler {
                try await body()
            } onCancel: {
                failure?.recordFailure()
                activity.end()
            }
        } catch {
            failure?.recordFailure()
            throw error
        }
    }
}

extension NetworkIndicatorManager {
    /// Waits until the manager has no open task: returns at once if ``activeTaskCount`` is zero,
    /// and otherwise as soon as the count is seen at zero.
    ///
    /// The count is this manager's own: its tasks and those of its scopes (child managers),
    /// never its parent's. For a command-line tool, a test, or a server's shutdown that must
    /// let its network work finish:
    ///
    /// ```swift
    /// try await NetworkIndicatorManager.shared.waitUntilIdle()
    /// ```
    ///
    /// After the first check, the wait is woken on the main queue, by the hops that tell the
    /// outputs of the count, and returns at the first hop
    /// that finds the count at zero: the main queue must run, as it does under an `async`
    /// `main`, `dispatchMain()` or `RunLoop.main.run()` (with `ManualNetworkIndicatorScheduler`,
    /// when you run its pending work). A task begun on another thread may open the moment this
    /// returns. Safe from any thread.
    ///
    /// It waits for as long as tasks are open, so a task that never ends (a token that is never
    /// released, a finish that is never called) keeps it waiting: set
    /// ``NetworkIndicatorSettings/staleTaskThreshold`` to hear about such a task, and cancel the waiting task to give up.
    ///
    /// - Throws: `CancellationError` if the surrounding task is cancelled before the manager
    ///   is idle (at once if it already is cancelled and tasks are open). It never throws
    ///   otherwise; once the manager is idle it returns even from a cancelled task.
    public func waitUntilIdle() async throws {
        guard activeTaskCount != 0 else { return }
        try Task.checkCancellation()
        // The stream ends when the waiting task is cancelled.
        for await _ in idleness() { return }
        try Task.checkCancellation()
    }

    /// Yields once the main queue finds the manager idle: at a hop that tells the count at
    /// zero (the first, at the subscription, tells the count then, so a drop to zero before it
    /// is seen too) with no task open then. A task that opened after that hop's drain and ends
    /// before the next one leaves the count told unchanged, so the next hop tells nothing: the
    /// manager is looked at again after it (the task's begin asked for it). The observation is
    /// bound to a waiter that the stream keeps until it terminates.
    private func idleness() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let waiter = CountWaiter()
        continuation.onTermination = { _ in waiter.terminate() }
        driver.scheduler.enqueue { [weak self] in
            guard let self, !waiter.isTerminated else { return }
            observeActiveTaskCount(owner: waiter) { [weak self] waiter, count in
                waiter.lastToldCount = count
                if count == 0 { self?.lookForIdleness(waiter, continuation) }
            }
        }
        return stream
    }

    /// Yields if no task is open; else, while the count told is still zero, looks again after
    /// the next hop (once it tells a count above zero, its next zero is told).
    @MainActor
    private func lookForIdleness(_ waiter: CountWaiter, _ continuation: AsyncStream<Void>.Continuation) {
        guard !waiter.isTerminated else { return }
        guard activeTaskCount != 0 else {
            continuation.yield()
            return
        }
        guard waiter.lastToldCount == 0 else { return }
        driver.scheduler.enqueue { [weak self] in self?.lookForIdleness(waiter, continuation) }
    }
}

/// The owner of ``NetworkIndicatorManager/waitUntilIdle()``'s count observation: alive until its
/// stream terminates.
private final class CountWaiter: Sendable {
    private let state = LockedState((isTerminated: false, lastToldCount: -1))

    /// Whether the stream terminated (the wait returned or was cancelled).
    var isTerminated: Bool { state.withLock { $0.isTerminated } }

    /// The count the observation was told last (-1 before the first).
    var lastToldCount: Int {
        get { state.withLock { $0.lastToldCount } }
        set { state.withLock { $0.lastToldCount = newValue } }
    }

    func terminate() { state.withLock { $0.isTerminated = true } }
}

extension NetworkIndicatorManager {
    /// Opens a task keyed by `object` (held weakly) of `kind`, with `progress` rolled up if given:
    /// the tasks whose object is the package's own (a scoped body, a sequence's iteration).
    func beginKeyedTask(
        of object: AnyObject,
        kind: TaskKind,
        label: String?,
        site: CallSite,
        progress: Progress?,
        weight: Int64? = nil,
        failure: FailureRecord?
    ) {
        let key = ObjectIdentifier(object)
        let event = TaskEvent.begin(.keyed(key, object: object, kind: kind), label: label, site: site)
        guard let progress else {
            driver.apply(event)
            return
        }
        settleProgress()
        let record = failure.map { record in { record } }
        beginTask(event, measuredBy: progress, weight: weight, token: object, failure: record)
    }
}

/// The task of a scoped body (``NetworkIndicatorManager/withNetworkActivity(isolation:label:progress:file:line:_:)``,
/// a SwiftUI refresh or task): open until ``end()`` or its release. Not cancellable: the body is
/// the caller's code, so a manager's cancel leaves it counted. Its stale report says what it is.
/// Safe from any thread; a second end finds no task.
package final class ScopedActivity: Sendable {
    private let manager: NetworkIndicatorManager

    init(
        in manager: NetworkIndicatorManager,
        label: String?,
        site: CallSite,
        progress: Progress?,
        failure: FailureRecord?
    ) {
        self.manager = manager
        manager.beginKeyedTask(of: self, kind: .body, label: label, site: site, progress: progress, failure: failure)
    }

    /// Begins a task labelled `label` (or named by where `file` and `line` say it began).
    package convenience init(in manager: NetworkIndicatorManager, label: String?, file: StaticString, line: UInt) {
        self.init(in: manager, label: label, site: CallSite(fileID: file, line: line), progress: nil, failure: nil)
    }

    /// Ends the task, if it is still open: task watchers hear `released`, the ending of scoped work.
    package func end() {
        manager.driver.apply(.finishAll(ObjectIdentifier(self), ending: .released))
    }

    deinit {
        end()
    }
}
