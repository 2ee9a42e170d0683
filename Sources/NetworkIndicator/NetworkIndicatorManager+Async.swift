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
        let token = beganNetworkTask(label: label, progress: progress, failure: failure, site: site)
        defer { token.stopTracking() }
        do {
            return try await withTaskCancellationHandler {
                try await body()
            } onCancel: {
                failure?.recordFailure()
                token.stopTracking()
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
        // The stream's first value is the count at the next hop, so a drop to zero between the
        // check above and the subscription is seen too. It ends when the waiting task is
        // cancelled.
        for await count in countUpdates() where count == 0 && activeTaskCount == 0 {
            return
        }
        try Task.checkCancellation()
    }

    /// The count at the next main-queue hop, then each new count, as count-receiving outputs
    /// are told; only the newest waits (`bufferingNewest(1)`). The observation is bound to a
    /// waiter that the stream keeps until it terminates, so it ends at the first count after
    /// that.
    private func countUpdates() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let waiter = CountWaiter()
        continuation.onTermination = { _ in waiter.terminate() }
        driver.scheduler.enqueue { [weak self] in
            guard let self, !waiter.isTerminated else { return }
            observeActiveTaskCount(owner: waiter) { _, count in continuation.yield(count) }
        }
        return stream
    }
}

/// The owner of ``NetworkIndicatorManager/waitUntilIdle()``'s count observation: alive until its
/// stream terminates.
private final class CountWaiter: Sendable {
    private let terminated = LockedState(false)

    /// Whether the stream terminated (the wait returned or was cancelled).
    var isTerminated: Bool { terminated.withLock { $0 } }

    func terminate() { terminated.withLock { $0 = true } }
}
