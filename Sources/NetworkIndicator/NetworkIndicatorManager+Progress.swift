public import Foundation

extension NetworkIndicatorManager {
    /// Begins a task that lasts as long as the returned token lives, and whose `progress` rolls
    /// up into ``fractionCompleted`` (this manager's and every ancestor's).
    ///
    /// ```swift
    /// let task = session.downloadTask(with: url)
    /// let activity = manager.beganNetworkTask(label: "Download", progress: task.progress)
    /// task.resume()   // keep `activity` until the download completes
    /// ```
    ///
    /// The task is the same as ``beganNetworkTask(label:)``'s, which this calls first; the
    /// progress is only remembered beside it and read when a fraction is read. Update `progress`
    /// from any thread, as often as you like: the manager never hears of it, so an update costs
    /// nothing here. A progress whose `totalUnitCount` is not positive (unknown yet) counts
    /// nowhere until it gets one. When the task ends, it counts as complete until its scope is
    /// idle. The manager holds `progress` strongly until then. Passing the same `progress` to
    /// two tasks counts its units twice. Passing `nil` is exactly ``beganNetworkTask(label:)``.
    /// Safe from any thread.
    ///
    /// - Parameters:
    ///   - label: A name for ``activitySnapshot()`` and diagnostics.
    ///   - progress: The task's progress, or `nil`.
    /// - Returns: The token. Discarding it ends the task immediately.
    public func beganNetworkTask(label: String? = nil, progress: Progress?) -> NetworkActivityToken {
        guard let progress else { return beganNetworkTask(label: label) }
        let token = beganNetworkTask(label: label)
        trackProgress(progress, token: token)
        return token
    }

    /// Begins a task that lasts until `token` is deallocated, reports itself finished, or is
    /// passed to ``finishedNetworkTask(forToken:)``, and whose `progress` rolls up into
    /// ``fractionCompleted``.
    ///
    /// ```swift
    /// manager.beganNetworkTask(withToken: task, progress: task.progress)   // a URLSessionTask
    /// ```
    ///
    /// For a `URLSessionTask`, ``track(_:)`` does all of this (its bytes included) and ends the
    /// task as soon as it completes.
    ///
    /// The task is the same as ``beganNetworkTask(withToken:label:)``'s, which this calls first.
    /// The progress counts while `token` has an open task in this manager: beginning the same
    /// token twice with two progresses counts both until the token's last task ends. See
    /// ``beganNetworkTask(label:progress:)`` for how a progress counts. Passing `nil` is exactly
    /// ``beganNetworkTask(withToken:label:)``. Safe from any thread.
    ///
    /// - Parameters:
    ///   - token: Any object whose lifetime (or completion) is the task's; held weakly.
    ///   - label: A name for ``activitySnapshot()`` and diagnostics.
    ///   - progress: The task's progress, or `nil`.
    public func beganNetworkTask(withToken token: AnyObject, label: String? = nil, progress: Progress?) {
        guard let progress else { return beganNetworkTask(withToken: token, label: label) }
        beganNetworkTask(withToken: token, label: label)
        trackProgress(progress, token: token)
    }

    /// How far the determinate work of this scope has come, from 0 to 1, or `nil` when there
    /// is nothing to measure.
    ///
    /// It rolls up the tasks begun with a `Progress` (``beganNetworkTask(label:progress:)`` and
    /// the other `progress:` forms) in this manager and in every descendant scope, computed when
    /// read: nothing is kept up to date while tasks report progress.
    ///
    /// - Units weigh as bytes: the sum of completed units over the sum of total units, so that
    ///   a 1 KB request finishing next to a 1 GB download does not jump the bar to 50 %, as
    ///   averaging tasks would. Give the tasks of one scope comparable units (bytes, for
    ///   transfers); to weigh tasks yourself, combine them into one parent `Progress`.
    /// - A task whose `totalUnitCount` is not positive (unknown, such as a response without a
    ///   length) neither adds nor dilutes.
    /// - A task that ended (finished, released, swept, reset) counts as complete until the scope
    ///   is idle again (``activeTaskCount`` 0), so the value does not fall when one part ends. It
    ///   may fall when new determinate work joins a busy scope: 2 of 4 MB done reads 0.5, and a
    ///   new 4 MB download makes it 2 of 8 MB, 0.25.
    /// - It is `nil` while the scope is idle, and while it has no determinate task, running or
    ///   ended in its current busy period.
    ///
    /// Readable from any thread; it reads each tracked `Progress` (never under a lock of the
    /// manager's) and takes the lock of the manager that began each one: about a microsecond
    /// for ten tracked tasks. Read it when you draw, not in a tight loop.
    public var fractionCompleted: Double? {
        progressRollUp.fractionCompleted()
    }

    /// A stream of ``fractionCompleted``: the current value first, then each change, read at
    /// most ten times a second (on the manager's scheduler) while determinate work runs.
    ///
    /// ```swift
    /// for await fraction in downloads.progressUpdates() {
    ///     bar.progress = fraction ?? 0
    /// }
    /// ```
    ///
    /// The stream keeps only the newest value (`bufferingNewest(1)`): a slow consumer skips to
    /// the latest fraction. It finishes when the manager is deallocated; cancelling the
    /// consuming task unsubscribes it. Callable from any thread; values are produced on the main
    /// queue.
    public func progressUpdates() -> AsyncStream<Double?> {
        let (stream, continuation) = AsyncStream.makeStream(of: Double?.self, bufferingPolicy: .bufferingNewest(1))
        progressRollUp.addStream(continuation)
        return stream
    }

    // MARK: - Tracking

    /// Remembers `progress` for the task just begun under `token`, in this manager and every
    /// ancestor, as counts are carried.
    func trackProgress(_ progress: Progress, token: AnyObject) {
        let entry = ProgressEntry(progress: progress, token: token, driver: driver)
        var scope: NetworkIndicatorManager? = self
        while let manager = scope {
            manager.progressRollUp.add(entry)
            scope = manager.parent
        }
    }
}
