public import Foundation
public import HTTPTypes
public import NetworkIndicator
public import OpenAPIRuntime

/// A swift-openapi client middleware that counts every request as one network task in a
/// ``NetworkIndicator/NetworkIndicatorManager``, from the call until its response body is done.
///
/// Add it to the client's `middlewares:`. Middlewares run in array order, the first outermost,
/// so put it first to count the time every other middleware adds (retries, authentication):
///
/// ```swift
/// let client = Client(
///     serverURL: try Servers.Server1.url(),
///     transport: URLSessionTransport(),
///     middlewares: [NetworkActivityMiddleware(), AuthenticationMiddleware()]
/// )
/// ```
///
/// ## When a request's task ends
///
/// The task begins when ``intercept(_:body:baseURL:operationID:next:)`` is called and ends:
///
/// - at once when `next` throws; the error, `CancellationError` included, is rethrown unchanged;
/// - at once when the response has no body, or a body whose length is known to be zero;
/// - otherwise when the response body has been read to the end, when reading it throws, when it
///   is released unread (the last reference to the body and its iterators goes away), or when it
///   has sat for ``unreadBodyTimeout`` seconds with nobody asking for its bytes.
///
/// Whichever comes first ends the task, exactly once. The body is handed on with the same bytes,
/// ``OpenAPIRuntime/HTTPBody/length`` and ``OpenAPIRuntime/HTTPBody/iterationBehavior``. A body
/// that can be iterated many times ends with its first complete read; later reads pass through.
///
/// ## Progress
///
/// Each request's task carries a `Progress` that rolls up into the manager's
/// ``NetworkIndicator/NetworkIndicatorManager/fractionCompleted``: the response body's bytes, as
/// they are read, against its expected length, from ``OpenAPIRuntime/HTTPBody/length`` when it
/// is known or else the `Content-Length` header (ignored under a `Content-Encoding` other than
/// `identity`, where it counts the encoded bytes, not the ones read). Until the response
/// arrives, and for a body of unknown length, the task is indeterminate: it neither adds to nor
/// dilutes the fraction. When the task ends it counts as complete, as every task does.
///
/// ## Threads
///
/// The middleware is a `Sendable` value, used from whatever task the client runs on. The
/// unread-body timer runs on ``scheduler``'s main actor.
public struct NetworkActivityMiddleware: ClientMiddleware {
    /// The ``unreadBodyTimeout`` a middleware gets unless told otherwise: 30 seconds, long
    /// enough for any consumer that is really reading the body, short enough that a forgotten
    /// one does not leave the indicator on for minutes.
    public static let defaultUnreadBodyTimeout: TimeInterval = 30

    /// The manager the requests count in.
    public let manager: NetworkIndicatorManager

    /// How many seconds a response body may sit with nobody asking for its bytes before its task
    /// ends anyway, or `nil` to wait for the body's end or release however long that takes.
    ///
    /// The clock starts when the response is returned and restarts whenever a read returns. While
    /// a read is waiting for the server it does not run, so a slow stream that is being read is
    /// never cut short. It stops a body that something keeps but never reads (say an undocumented
    /// payload kept inside an error) from keeping the indicator on forever. A read that starts
    /// after the timeout returns the bytes as usual; it just no longer counts.
    public let unreadBodyTimeout: TimeInterval?

    /// Where the unread-body timer runs: the manager's own
    /// ``NetworkIndicator/NetworkIndicatorManager/scheduler`` unless told otherwise, so that a
    /// manager on a manual scheduler drives the timeout too when a test advances it.
    public let scheduler: any NetworkIndicatorScheduler

    private let label: @Sendable (_ operationID: String) -> String?
    private let countsOperation: @Sendable (_ operationID: String) -> Bool

    /// Creates a middleware that counts requests in `manager`.
    ///
    /// - Parameters:
    ///   - manager: The manager to count in; ``NetworkIndicator/NetworkIndicatorManager/shared``
    ///     unless told otherwise.
    ///   - unreadBodyTimeout: See ``unreadBodyTimeout``; ``defaultUnreadBodyTimeout`` unless told
    ///     otherwise. A zero or negative value ends an unread body's task at the timer's first run.
    ///   - scheduler: See ``scheduler``; `nil` (the default) means the manager's own.
    ///   - label: The task's label in snapshots and diagnostics, from the operation's ID; the ID
    ///     itself unless told otherwise. Called once per counted request, on the caller's task.
    ///   - countsOperation: Whether requests of an operation count, from its ID; all of them
    ///     unless told otherwise. Return `false` for work that is not worth an indicator, such as
    ///     a long poll or an event stream. Called once per request, on the caller's task.
    public init(
        manager: NetworkIndicatorManager = .shared,
        unreadBodyTimeout: TimeInterval? = Self.defaultUnreadBodyTimeout,
        scheduler: (any NetworkIndicatorScheduler)? = nil,
        label: @escaping @Sendable (_ operationID: String) -> String? = { $0 },
        countsOperation: @escaping @Sendable (_ operationID: String) -> Bool = { _ in true }
    ) {
        self.manager = manager
        self.unreadBodyTimeout = unreadBodyTimeout
        self.scheduler = scheduler ?? manager.scheduler
        self.label = label
        self.countsOperation = countsOperation
    }

    /// Counts one request as one task while it runs and while its response body is read; see
    /// the type's documentation for when the task ends.
    ///
    /// Called by the generated client for every request; safe to call directly, from any task.
    /// Errors from `next` are rethrown unchanged.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard countsOperation(operationID) else {
            return try await next(request, body, baseURL)
        }
        // Unknown until the response tells the body's length: until then it neither adds to nor
        // dilutes the manager's fraction. Discrete: never a child of the caller's current one.
        let progress = Progress.discreteProgress(totalUnitCount: -1)
        let token = manager.beganNetworkTask(label: label(operationID), progress: progress)
        let response: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (response, responseBody) = try await next(request, body, baseURL)
        } catch {
            manager.finishedNetworkTask(forToken: token)
            throw error
        }
        guard let responseBody, responseBody.length != .known(0) else {
            manager.finishedNetworkTask(forToken: token)
            return (response, responseBody)
        }
        if let length = Self.expectedLength(of: responseBody, in: response) {
            progress.totalUnitCount = length
        }
        let activity = ResponseBodyActivity(
            token: token,
            progress: progress,
            manager: manager,
            scheduler: scheduler,
            unreadTimeout: unreadBodyTimeout
        )
        let trackedBody = HTTPBody(
            ActivityTrackingBody(upstream: responseBody, activity: activity),
            length: responseBody.length,
            iterationBehavior: responseBody.iterationBehavior
        )
        return (response, trackedBody)
    }

    /// The body's expected length in bytes, if known and positive: the body's own length, or
    /// else the response's `Content-Length` when the body is not encoded.
    static func expectedLength(of body: HTTPBody, in response: HTTPResponse) -> Int64? {
        if case .known(let length) = body.length {
            return length > 0 ? length : nil
        }
        if let encoding = response.headerFields[.contentEncoding],
            encoding.trimmingCharacters(in: .whitespaces).lowercased() != "identity"
        {
            return nil
        }
        guard let header = response.headerFields[.contentLength],
            let length = Int64(header.trimmingCharacters(in: .whitespaces)), length > 0
        else { return nil }
        return length
    }
}
