public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension NetworkIndicatorManager {
    /// Tracks `task` until it completes (or is deallocated), with no bookkeeping of yours.
    ///
    /// The task ends at its completion (finished, failed or cancelled), whatever
    /// ``NetworkIndicatorSettings/completionCheckInterval`` is, and whether or not you keep it: on Apple platforms a
    /// key-value observation of its `state`, attached to the task, ends it as the state becomes
    /// `.completed` (and is then invalidated); where Foundation has no key-value observing (Linux), the manager reads the
    /// `state` of its tracked tasks, and only theirs, every 50 ms on its scheduler while any are
    /// tracked, so the task ends within 50 ms of its completion (plus the main queue's latency).
    ///
    /// On Linux the manager holds each tracked task until a poll sees it complete (URLSession
    /// lets a task go once it has completed), and never longer: a task that nothing else holds
    /// any more, uncompleted (so nobody can resume it), ends at the next poll and is let go, and
    /// the manager's tasks go with the manager. A task its session still holds unresumed stays
    /// counted, since it can still be resumed: cancel it, or invalidate the session with
    /// `invalidateAndCancel()`. So does an uncompleted task tracked by two managers (a scope and
    /// its parent, say) that nothing else holds: each manager's hold keeps it from looking
    /// abandoned to the other; cancel it. On Apple platforms the task is not held: one deallocated without
    /// completing ends at the next sweep. Tracking the same task twice opens two tasks, and its
    /// completion ends both.
    ///
    /// The task's bytes roll up into ``progressSnapshot()``, read from the task whenever a
    /// fraction is read (nothing is observed): on Apple platforms its `progress`, bytes received
    /// (or sent, for an upload) against the expected length. On Linux, swift-corelibs-foundation
    /// counts bytes only for the download and upload tasks of a session with a delegate; any
    /// other task is indeterminate there (it neither adds to nor dilutes the fraction) until it
    /// completes. A task never reads done before it completes (an upload that sent its whole
    /// body still awaits its response). A response without a length, and an answer without a
    /// body (to a HEAD; a 204 or 304) are indeterminate everywhere.
    ///
    /// Call it before or right after `resume()`. Safe from any thread.
    ///
    /// The task's label in snapshots and diagnostics names its request by method, host and path
    /// (`"GET api.example.com/v1/photos"`), never by its query, fragment or credentials, unless
    /// you give one.
    ///
    /// ```swift
    /// let task = session.dataTask(with: url) { data, response, error in … }
    /// NetworkIndicatorManager.shared.track(task)
    /// task.resume()
    /// ```
    ///
    /// - Parameters:
    ///   - task: The task to track until it completes.
    ///   - label: The task's label, in place of the default `"METHOD host/path"`; `nil` (the
    ///     default) keeps that one. Keep secrets out of it: snapshots and diagnostics end up in
    ///     logs.
    ///   - file: Where the task was tracked, for snapshots and diagnostics: leave the default,
    ///     the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    public func track(_ task: URLSessionTask, label: String? = nil, file: StaticString = #fileID, line: UInt = #line) {
        let progress = URLSessionTaskProgress(task: task)
        beganNetworkTask(
            withToken: task,
            label: label ?? ActivityLabel.request(of: task),
            progress: progress,
            file: file,
            line: line
        )
        endOnCompletion(of: task, recordingIn: progress)
    }

    /// Ends every task of `task` as soon as it completes, `progress`'s final reading recorded
    /// first: by key-value observation where Foundation has it, by polling otherwise.
    /// Begins `token`'s task as ``track(_:label:file:line:)`` does, if it is a `URLSessionTask` and
    /// `progress` its own; `false` (and nothing done) otherwise. A task's own `progress` may keep
    /// its task alive (the weak token would never die), reads a failed load as done, and never
    /// moves on Linux: the task is read instead.
    func beganTaskReadingItself(
        _ token: AnyObject,
        label: String?,
        progress: Progress,
        weight: Int64?,
        site: CallSite
    ) -> Bool {
        guard let task = token as? URLSessionTask, progress === task.progress else { return false }
        let taskProgress = URLSessionTaskProgress(task: task)
        let event = TaskEvent.begin(.token(task), label: label ?? ActivityLabel.request(of: task), site: site)
        beginTask(event, measuredBy: taskProgress, weight: weight, token: task)
        endOnCompletion(of: task, recordingIn: taskProgress)
        return true
    }

    func endOnCompletion(of task: URLSessionTask, recordingIn progress: URLSessionTaskProgress) {
        #if canImport(ObjectiveC)
        URLSessionTaskStateObservation.endOnCompletion(of: task, in: self, recordingIn: progress)
        #else
        URLSessionTaskPoller.watch(task, for: self, recordingIn: progress)
        #endif
    }
}

extension URLSession {
    /// Loads `request` like `data(for:)`, with the manager's indicator on for the whole load.
    ///
    /// The activity ends when the load returns, throws, or its task is cancelled.
    ///
    /// The task's bytes roll up into ``NetworkIndicatorManager/progressSnapshot()`` on iOS 16+,
    /// macOS 13+, tvOS 16+ and watchOS 9+, where a task delegate passed with the load sees its
    /// task (and passes `urlSession(_:didCreateTask:)` on to the session's delegate). On older
    /// releases and on Linux the helper cannot see its task: the load is indeterminate.
    ///
    /// - Parameters:
    ///   - request: The request to load.
    ///   - manager: The manager whose indicator shows the load; pass
    ///     ``NetworkIndicatorManager/current`` to count in the calling task's manager.
    ///   - label: The task's label in snapshots and diagnostics; `nil` (the default) names the
    ///     request by method, host and path, without its query, fragment or credentials.
    ///   - delegate: A task delegate of yours for the load, as Foundation's async methods take one
    ///     (authentication challenges, redirects, metrics): it hears the load's task messages,
    ///     beside the package's own progress delegate (iOS 16+, macOS 13+, tvOS 16+, watchOS 9+),
    ///     which forwards them. On Linux it is handed as is to swift-corelibs-foundation's own
    ///     `delegate:`, which (as of Swift 6.3) tells it of the bytes and the response, not of
    ///     the load's completion. Ignored before iOS 15, macOS 12, tvOS 15 and watchOS 8, whose
    ///     async methods take none.
    ///   - file: Where the load began, for snapshots and diagnostics: leave the default, the
    ///     caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    /// - Returns: The response body and metadata, as `data(for:)` returns them.
    public func data(
        for request: URLRequest,
        tracking manager: NetworkIndicatorManager,
        label: String? = nil,
        delegate: (any URLSessionTaskDelegate)? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> (Data, URLResponse) {
        try await withTaskProgress(
            tracking: manager,
            label: label ?? ActivityLabel.request(request),
            site: CallSite(fileID: file, line: line),
            delegate: delegate
        ) { delegate in
            if #available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *), let delegate {
                return try await self.data(for: request, delegate: delegate)
            }
            return try await self.data(for: request)
        }
    }

    /// Loads `url` like `data(from:)`, with the manager's indicator on for the whole load.
    ///
    /// The activity ends when the load returns, throws, or its task is cancelled.
    ///
    /// The task's bytes roll up into ``NetworkIndicatorManager/progressSnapshot()`` on iOS 16+,
    /// macOS 13+, tvOS 16+ and watchOS 9+, where a task delegate passed with the load sees its
    /// task (and passes `urlSession(_:didCreateTask:)` on to the session's delegate). On older
    /// releases and on Linux the helper cannot see its task: the load is indeterminate.
    ///
    /// - Parameters:
    ///   - url: The URL to load.
    ///   - manager: The manager whose indicator shows the load; pass
    ///     ``NetworkIndicatorManager/current`` to count in the calling task's manager.
    ///   - label: The task's label in snapshots and diagnostics; `nil` (the default) names the
    ///     load `"GET host/path"`, without the URL's query, fragment or credentials.
    ///   - delegate: A task delegate of yours for the load, as Foundation's async methods take one
    ///     (authentication challenges, redirects, metrics): it hears the load's task messages,
    ///     beside the package's own progress delegate (iOS 16+, macOS 13+, tvOS 16+, watchOS 9+),
    ///     which forwards them. On Linux it is handed as is to swift-corelibs-foundation's own
    ///     `delegate:`, which (as of Swift 6.3) tells it of the bytes and the response, not of
    ///     the load's completion. Ignored before iOS 15, macOS 12, tvOS 15 and watchOS 8, whose
    ///     async methods take none.
    ///   - file: Where the load began, for snapshots and diagnostics: leave the default, the
    ///     caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    /// - Returns: The response body and metadata, as `data(from:)` returns them.
    public func data(
        from url: URL,
        tracking manager: NetworkIndicatorManager,
        label: String? = nil,
        delegate: (any URLSessionTaskDelegate)? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) async throws -> (Data, URLResponse) {
        let label = label ?? ActivityLabel.request(method: "GET", url: url)
        return try await withTaskProgress(
            tracking: manager,
            label: label,
            site: CallSite(fileID: file, line: line),
            delegate: delegate
        ) { delegate in
            if #available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *), let delegate {
                return try await self.data(from: url, delegate: delegate)
            }
            return try await self.data(from: url)
        }
    }
}
