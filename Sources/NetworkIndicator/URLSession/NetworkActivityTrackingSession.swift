public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A `URLSession` whose every task counts in a manager, on every platform: make the session's
/// tasks through this wrapper and each counts until it completes, with no code at each call.
///
/// ```swift
/// let api = NetworkActivityTrackingSession(configuration: .default, manager: .shared)
/// let task = api.dataTask(with: request) { data, response, error in … }
/// task.resume()
/// let (data, _) = try await api.data(for: request)
/// ```
///
/// Tasks made by the task methods count from each `resume()` to their completion on Apple
/// platforms (key-value observation of `state`; a task cancelled before it ran never counts),
/// and from their creation to their completion on Linux, where nothing reports a resume: resume
/// them right away. A task made with a completion handler has ended by the time its handler
/// runs; any other ends as with ``NetworkIndicatorManager/track(_:label:)``: as it completes on Apple
/// platforms, within one 50 ms poll of its completion on Linux. Either way you need not keep
/// the task. The `async` methods count from the call until they return, throw or are
/// cancelled.
///
/// Only what goes through the wrapper counts; on iOS 16+ and macOS 13+
/// `NetworkActivitySessionDelegate` also catches the tasks that other code makes on the session.
/// A task counts only if ``countsTask`` says so: by default every task but a WebSocket or stream
/// task, which is a connection, open for as long as it is used, not a load (see
/// ``countsTaskByDefault(_:)``). The wrapper is `Sendable` and its methods are safe from any
/// thread, like `URLSession`'s.
public final class NetworkActivityTrackingSession: Sendable {
    /// The session that runs the tasks. Tasks made on it directly do not count.
    public let session: URLSession

    /// The manager that counts the tasks.
    public let manager: NetworkIndicatorManager

    /// Whether a task made through the wrapper counts: ``countsTaskByDefault(_:)`` unless told
    /// otherwise. Called once per task, as the wrapper makes it, on the calling thread; the task
    /// has not been resumed yet. The wrapper's `async` loads ask it too: `data`, `upload` and
    /// `download` before their task runs, `bytes` once its response's headers arrive.
    public let countsTask: @Sendable (URLSessionTask) -> Bool

    /// Wraps `session`, counting its tasks in `manager`.
    ///
    /// - Parameters:
    ///   - session: The session to make tasks on.
    ///   - manager: The manager that counts them; `.shared` by default.
    ///   - countsTask: Whether a task counts; see ``countsTask``. Return `false` for a task that
    ///     is not worth an indicator, such as a long poll.
    public init(
        session: URLSession,
        manager: NetworkIndicatorManager = .shared,
        countsTask: @escaping @Sendable (URLSessionTask) -> Bool = NetworkActivityTrackingSession.countsTaskByDefault
    ) {
        self.session = session
        self.manager = manager
        self.countsTask = countsTask
    }

    /// Creates a session like `URLSession(configuration:delegate:delegateQueue:)` and wraps it,
    /// counting its tasks in `manager`.
    ///
    /// - Parameters:
    ///   - configuration: The session's configuration.
    ///   - delegate: The session's delegate, which the session keeps until it is invalidated.
    ///   - delegateQueue: The queue for delegate calls and completion handlers; `nil` for a
    ///     serial queue of the session's own.
    ///   - manager: The manager that counts the tasks; `.shared` by default.
    ///   - countsTask: Whether a task counts; see ``countsTask``.
    public convenience init(
        configuration: URLSessionConfiguration,
        delegate: (any URLSessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil,
        manager: NetworkIndicatorManager = .shared,
        countsTask: @escaping @Sendable (URLSessionTask) -> Bool = NetworkActivityTrackingSession.countsTaskByDefault
    ) {
        self.init(
            session: URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue),
            manager: manager,
            countsTask: countsTask
        )
    }

    /// Whether a session-wide form counts `task` unless told otherwise: `false` for a
    /// `URLSessionWebSocketTask` or a `URLSessionStreamTask`, `true` for every other task.
    ///
    /// A WebSocket or stream task is a connection, open for as long as the app uses it, and would
    /// keep the indicator on for all that time. Data, upload and download tasks count. A long
    /// poll is a data task like any other: leave it out with a filter of your own that names
    /// it, and keep this rule for the rest:
    ///
    /// ```swift
    /// let api = NetworkActivityTrackingSession(configuration: .default) { task in
    ///     NetworkActivityTrackingSession.countsTaskByDefault(task)
    ///         && task.originalRequest?.url?.path != "/events"
    /// }
    /// ```
    ///
    /// Both task classes exist on every platform the package builds for, Linux included
    /// (swift-corelibs-foundation has them). Safe from any thread.
    @Sendable
    public static func countsTaskByDefault(_ task: URLSessionTask) -> Bool {
        !(task is URLSessionWebSocketTask || task is URLSessionStreamTask)
    }

    /// `task`, counted if ``countsTask`` says so.
    func counted<Task: URLSessionTask>(_ task: Task) -> Task {
        if countsTask(task) { manager.countWhileRunning(task) }
        return task
    }

    /// The task `make` creates with a handler that ends its tasks and then calls
    /// `completionHandler`, counted: the task has ended by the time `completionHandler` runs.
    func counted<Task: URLSessionTask, Result>(
        _ completionHandler: @escaping @Sendable (Result?, URLResponse?, (any Error)?) -> Void,
        _ make: (@escaping @Sendable (Result?, URLResponse?, (any Error)?) -> Void) -> Task
    ) -> Task {
        let ending = EndingAtCompletionHandler(manager: manager)
        let task = make { result, response, error in
            ending.end()
            completionHandler(result, response, error)
        }
        ending.attach(task)
        return counted(task)
    }

    // MARK: - Data tasks

    /// A counted `session.dataTask(with:)`; its delegate messages go to the session's delegate.
    public func dataTask(with request: URLRequest) -> URLSessionDataTask {
        counted(session.dataTask(with: request))
    }

    /// A counted `session.dataTask(with:)`; its delegate messages go to the session's delegate.
    public func dataTask(with url: URL) -> URLSessionDataTask {
        counted(session.dataTask(with: url))
    }

    /// A counted `session.dataTask(with:completionHandler:)`. The task has ended by the time
    /// `completionHandler` runs on the session's delegate queue.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDataTask {
        counted(completionHandler) { session.dataTask(with: request, completionHandler: $0) }
    }

    /// A counted `session.dataTask(with:completionHandler:)`. The task has ended by the time
    /// `completionHandler` runs on the session's delegate queue.
    public func dataTask(
        with url: URL,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDataTask {
        counted(completionHandler) { session.dataTask(with: url, completionHandler: $0) }
    }
}

/// Ends a counted task's tasks from its completion handler, which the session calls once the
/// task has completed: no poll, no sweep. Holds the task and the manager weakly (the session
/// keeps the handler, and with it this object, until the task completes).
final class EndingAtCompletionHandler: Sendable {
    private struct Target {
        weak var task: URLSessionTask?
        weak var manager: NetworkIndicatorManager?
    }

    private let target: LockedState<Target>

    init(manager: NetworkIndicatorManager) {
        target = LockedState(Target(manager: manager))
    }

    /// The task whose handler this is (set before the task is resumed).
    func attach(_ task: URLSessionTask) {
        target.withLock { $0.task = task }
    }

    /// Ends the task's tasks, if it and its manager are still there. A task already ended (by
    /// its completion seen first) ends nothing more.
    func end() {
        let (task, manager) = target.withLock { ($0.task, $0.manager) }
        if let task, let manager { manager.driver.finishAll(ObjectIdentifier(task)) }
    }
}
