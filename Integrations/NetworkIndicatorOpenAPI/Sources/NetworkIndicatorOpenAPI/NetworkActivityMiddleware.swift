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
/// - at once when `next` throws; the error, `CancellationError` included, is rethrown unchanged
///   (unless a manager's cancel came while `next` ran: see the next item);
/// - at once when ``NetworkIndicator/NetworkIndicatorManager/cancelNetworkTasks()`` of the
///   manager the request counts in (or of an ancestor) cancels it: while `next` runs, the call
///   throws `CancellationError` as soon as `next`, whose task is cancelled, has returned (at
///   once for a transport that honours cancellation, as `URLSessionTransport` does), whatever
///   `next` returned or threw, and though the caller's own task was cancelled first; afterwards
///   each read of the response body that starts after the cancel throws `CancellationError` (a
///   read already waiting returns its bytes first). A generated client wraps the error in its
///   `ClientError`, whose `underlyingError` is the `CancellationError`;
/// - at once when the response has no body, a body whose length is known to be zero (its
///   ``OpenAPIRuntime/HTTPBody/length``, or else its `Content-Length`), or cannot
///   have a body whatever its header fields say: an informational (1xx), 204 No Content or
///   304 Not Modified response, any answer to a HEAD request (RFC 9112 §6.3), or 205 Reset
///   Content (RFC 9110 §15.3.6). No timer runs for it, and its body is handed on untouched;
/// - at once when the response is a live feed: its `Content-Type`, whatever its parameters and
///   case, is `text/event-stream` (server-sent events), `application/jsonl`,
///   `application/json-seq` or `application/x-ndjson` (swift-openapi-runtime decodes the first
///   three as async sequences). Such a feed may stay open for the life of a screen, so it counts
///   only until its headers arrive, and no timer cuts it. It is still the screen's work: until
///   its body ends, fails or is released, ``NetworkIndicator/NetworkIndicatorManager/cancelNetworkTasks()``
///   of its manager (or of an ancestor) cancels it: a read waiting for the next event throws
///   `CancellationError` at once (its read of the transport's body is cancelled), and so does
///   each read that starts after the cancel. Its body is handed on with the same bytes, length
///   and iteration behaviour. Pass a `countsOperation` that returns `false` for it to count
///   nothing at all. Its headers reach the middleware when the transport's `next` returns: on
///   Linux, `URLSessionTransport` returns only once the whole body has come (it buffers), so
///   there a live feed counts until it ends; a streaming transport returns at the headers;
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
/// ``NetworkIndicator/NetworkIndicatorManager/progressSnapshot()``. One request's fraction only
/// grows, and it reaches 1 only when its response body has ended (its task then ends and counts
/// as done):
///
/// - A request body of known length counts first, as the transport reads it, for a share of the
///   request that leaves the rest to the response, whose size nobody knows yet: the larger the
///   body, the larger its share, up to half (a body of 64 KiB or more). A transport that reads the
///   whole body before it sends a byte (`URLSessionTransport`'s buffered mode, the default on
///   Linux) moves the bar to that share at once.
/// - When the response arrives, the request body counts as sent, and the response body's bytes
///   fill the rest as they are read, against its expected length: ``OpenAPIRuntime/HTTPBody/length``
///   when it is known, or else the `Content-Length` header. The request then weighs the bytes of
///   both bodies in the manager's batch. Under a `Content-Encoding` other than `identity` the
///   response's length is unknown, whatever either says: `URLSessionTransport` takes the body's
///   length from `Content-Length`, which counts the encoded bytes, while the client reads the
///   decoded ones.
/// - A response that has no body (see above) is a known length of 0: the request weighs its
///   upload's bytes alone, and counts as done.
/// - A response body of unknown length holds the request where its upload left it until the end;
///   a request with neither length known is indeterminate: it neither adds to nor dilutes the
///   fraction. Lengths beyond 2⁵³ bytes count as 2⁵³, so that no header can overflow the sums.
///
/// A request whose body is read to the end counts as complete. One that fails, is cancelled by
/// the manager, or ends short of its length (released, timed out) leaves the manager's batch at
/// once: its progress is cancelled before its task ends, so that the bar reads the requests
/// still running and never the missing bytes as done.
///
/// ## Which manager
///
/// A middleware made without a manager counts each request in
/// ``NetworkIndicator/NetworkIndicatorManager/current``, read when the request starts: the
/// shared manager, unless the caller bound a screen's with `$current.withValue(_:operation:)`.
/// One client, shared by every screen, then counts each call in the screen that made it:
///
/// ```swift
/// let posts = try await NetworkIndicatorManager.$current.withValue(feedScreen) {
///     try await client.listPosts()
/// }
/// ```
///
/// ## Threads
///
/// The middleware is a `Sendable` value, used from whatever task the client runs on. The
/// unread-body timer runs on ``scheduler``'s main actor: one timer for every open body counted on
/// that scheduler, not one per request (a scheduler of your own that is a value type, not an
/// object, cannot be told equal to another: one timer per manager on it).
public struct NetworkActivityMiddleware: ClientMiddleware {
    /// The ``unreadBodyTimeout`` a middleware gets unless told otherwise: 2 seconds of nobody
    /// asking for the body's bytes.
    ///
    /// Short, because the common unread body is an error's: when a generated client cannot
    /// decode a response (an unexpected content type, an undocumented status), it throws a
    /// `ClientError` that keeps the body, and an app that keeps the error for an alert would
    /// keep the indicator on for the whole timeout. Short is safe, because the clock does not
    /// run while a read waits for the server: a slow stream that is being read is never cut
    /// short, only one that nobody reads.
    public static let defaultUnreadBodyTimeout: TimeInterval = 2

    /// The manager the requests count in: the one given at creation, or else
    /// ``NetworkIndicator/NetworkIndicatorManager/current`` as the calling task reads it.
    public var manager: NetworkIndicatorManager {
        fixedManager ?? .current
    }

    /// How many seconds a response body may sit with nobody asking for its bytes before its task
    /// ends anyway, or `nil` to wait for the body's end or release however long that takes.
    ///
    /// The clock starts when the response is returned and restarts whenever a read returns. While
    /// a read is waiting for the server it does not run, so a slow stream that is being read is
    /// never cut short. It stops a body that something keeps but never reads (say an undocumented
    /// payload kept inside an error) from keeping the indicator on. A zero or negative timeout
    /// ends the task at the timer's first run (the next turn of the scheduler's main queue) at
    /// which no read is waiting; a waiting read holds the task open, with no timer, until it
    /// returns. A read that starts after the timeout returns the bytes as usual; it just no
    /// longer counts.
    ///
    /// The clock runs between a reader's reads too: it cannot tell a reader that pauses from one
    /// that stopped for good. A reader that takes longer than the timeout over one chunk before
    /// it asks for the next (it writes each chunk somewhere slow, or waits for a consumer of its
    /// own) has its task end mid-download, and its request leaves the manager's batch. Give the
    /// client of such downloads a longer timeout, or `nil`.
    public let unreadBodyTimeout: TimeInterval?

    /// Where the unread-body timer runs: the one given at creation, or else the
    /// ``NetworkIndicator/NetworkIndicatorManager/scheduler`` of the manager a request counts
    /// in, so that a manager on a manual scheduler drives the timeout too when a test advances
    /// it.
    public var scheduler: any NetworkIndicatorScheduler {
        fixedScheduler ?? manager.scheduler
    }

    private let fixedManager: NetworkIndicatorManager?
    private let fixedScheduler: (any NetworkIndicatorScheduler)?
    /// One unread-body timer per scheduler, shared by every request (``UnreadBodyClock``).
    let clocks: UnreadBodyClocks
    private let label: @Sendable (_ operationID: String) -> String?
    /// Where the middleware was made: each request's task says it began there.
    private let file: StaticString
    private let line: UInt
    private let countsOperation: @Sendable (_ operationID: String) -> Bool
    private let countsRequest: @Sendable (_ request: HTTPRequest, _ operationID: String) -> Bool

    /// Creates a middleware that counts requests in `manager`, or in the calling task's
    /// ``NetworkIndicator/NetworkIndicatorManager/current`` manager.
    ///
    /// - Parameters:
    ///   - manager: The manager to count in; `nil` (the default) means
    ///     ``NetworkIndicator/NetworkIndicatorManager/current``, read at each request.
    ///   - unreadBodyTimeout: See ``unreadBodyTimeout``; ``defaultUnreadBodyTimeout`` unless told
    ///     otherwise.
    ///   - scheduler: See ``scheduler``; `nil` (the default) means the manager's own.
    ///   - label: The task's label in snapshots and diagnostics, from the operation's ID; the ID
    ///     itself unless told otherwise (it names the operation, never a URL, a query or a
    ///     credential). `nil` names the task by where the middleware was made, `File.swift:42`.
    ///     Called once per counted request, on the caller's task.
    ///   - countsOperation: Whether requests of an operation count, from its ID; all of them
    ///     unless told otherwise. Return `false` for work that is not worth an indicator, such as
    ///     a long poll (an event stream counts only until its headers anyway). Called once per
    ///     request, on the caller's task.
    ///   - countsRequest: Whether a request counts, from the request itself (its method, path
    ///     and header fields, as the middlewares before this one left them) and its operation's
    ///     ID; all of them unless told otherwise. A request counts only if both filters say so.
    ///     Called once per request that `countsOperation` lets through, on the caller's task.
    ///   - file: Where the middleware is made: each request's task says it began there (in
    ///     ``NetworkIndicator/NetworkActivitySnapshot/Activity/callSite``, task events and
    ///     stuck-task reports), since the generated client, not your code, calls ``intercept(_:body:baseURL:operationID:next:)``.
    ///     Leave the default, the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    public init(
        manager: NetworkIndicatorManager? = nil,
        unreadBodyTimeout: TimeInterval? = Self.defaultUnreadBodyTimeout,
        scheduler: (any NetworkIndicatorScheduler)? = nil,
        label: @escaping @Sendable (_ operationID: String) -> String? = { $0 },
        countsOperation: @escaping @Sendable (_ operationID: String) -> Bool = { _ in true },
        countsRequest: @escaping @Sendable (_ request: HTTPRequest, _ operationID: String) -> Bool = { _, _ in true },
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        self.file = file
        self.line = line
        self.fixedManager = manager
        self.unreadBodyTimeout = unreadBodyTimeout
        self.fixedScheduler = scheduler
        self.clocks = UnreadBodyClocks(scheduler: scheduler)
        self.label = label
        self.countsOperation = countsOperation
        self.countsRequest = countsRequest
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
        guard countsOperation(operationID), countsRequest(request, operationID) else {
            return try await next(request, body, baseURL)
        }
        // Read once: the task-local manager of the calling task, for the whole request.
        let manager = manager
        // Counted under a lock (the transport's and the reader's threads write it while the
        // manager reads it on the main queue; corelibs' Progress has no lock), and discrete:
        // never a child of the caller's current one.
        let uploadLength = Self.knownLength(of: body)
        let progress = RequestProgress(uploadLength: uploadLength)
        // One group per request, with one operation: a group is what the manager's
        // cancelNetworkTasks() can cancel without a sweep timer (a weak token would need one),
        // and its handler stops the request.
        let cancellation = RequestCancellation()
        let task = NetworkActivityGroup(manager: manager, label: label(operationID) ?? siteName)
        // The manager's cancel: the group's part already failed as the cancel ended its task (so
        // no reading in between counts it as done); the request's progress stops too, then the
        // request itself.
        task.cancellationHandler = {
            progress.end(reachedEnd: false)
            cancellation.cancel()
        }
        task.operationStarted(progress: progress.progress, file: file, line: line)
        let requestBody = uploadLength == nil ? body : body.map { Self.tracking($0, into: progress) }
        let response: HTTPResponse
        let responseBody: HTTPBody?
        do {
            (response, responseBody) = try await cancellation.race {
                try await next(request, requestBody, baseURL)
            }
        } catch {
            // A failed request leaves its batch: its bytes never all came.
            progress.end(reachedEnd: false)
            task.operationFinished()
            throw error
        }
        // Read once: whether a body can come, and how long it will be.
        let expectedLength = responseBody.flatMap { Self.expectedLength(of: $0, in: response) }
        // No body can come: the request is done once its headers are here, and weighs its upload.
        guard let responseBody, !Self.isKnownEmpty(responseBody, in: response),
            !Self.cannotHaveBody(response, answering: request)
        else {
            progress.responseArrived(expectedLength: 0)
            progress.end(reachedEnd: true)
            task.operationFinished()
            return (response, responseBody)
        }
        // A live feed may stay open for the life of a screen: it counts until its headers, and
        // stays its screen's work, which a cancel stops, until its body ends or is released.
        if Self.isLiveFeed(response) {
            // Its upload was the request's work: it weighs its own bytes, as without a body.
            progress.responseArrived(expectedLength: 0)
            progress.end(reachedEnd: true)
            task.operationStoppedCounting()
            let hold = LiveFeedHold(task: task, cancellation: cancellation)
            // The manager's cancel ends the feed's work: its screen is let go at once, read or not.
            cancellation.whenCancelled { [weak hold] in hold?.feedEnded() }
            let feed = LiveFeedBody(upstream: responseBody, hold: hold)
            return (
                response, HTTPBody(feed, length: responseBody.length, iterationBehavior: responseBody.iterationBehavior)
            )
        }
        // The upload, if any, counts as sent once the response is here; the response's bytes
        // follow it.
        progress.responseArrived(expectedLength: expectedLength)
        let activity = ResponseBodyActivity(
            task: task,
            cancellation: cancellation,
            progress: progress,
            clock: clocks.clock(for: manager),
            unreadTimeout: unreadBodyTimeout
        )
        // The manager's cancel ended the body's task: a body kept unread (inside an error, say)
        // lets go of its screen at once, not at its first read, its timeout or its release.
        cancellation.whenCancelled { [weak activity] in activity?.end() }
        let trackedBody = HTTPBody(
            ActivityTrackingBody(upstream: responseBody, activity: activity),
            length: responseBody.length,
            iterationBehavior: responseBody.iterationBehavior
        )
        return (response, trackedBody)
    }

    /// Where the middleware was made, as the package names an unlabelled task: the file's name
    /// (the last part of its `#fileID`) and the line.
    private var siteName: String {
        let fileID = "\(file)"
        return "\(fileID.split(separator: "/").last.map(String.init) ?? fileID):\(line)"
    }

    /// The length of a request body, if known and positive: only then is its upload counted.
    static func knownLength(of body: HTTPBody?) -> Int64? {
        guard let body, case .known(let length) = body.length, length > 0 else { return nil }
        return length
    }

    /// `body` wrapped to report the transport's reads into `progress`, with the same length and
    /// iteration behaviour.
    static func tracking(_ body: HTTPBody, into progress: RequestProgress) -> HTTPBody {
        HTTPBody(
            UploadTrackingBody(upstream: body, progress: progress),
            length: body.length,
            iterationBehavior: body.iterationBehavior
        )
    }

    /// The media types of live feeds: bodies a client reads as a sequence of events or lines
    /// that may stay open for the life of a screen (swift-openapi-runtime decodes the first three
    /// as async sequences). The one list the middleware reads; the type's documentation names it.
    static let liveFeedMediaTypes: Set<String> = [
        "text/event-stream", "application/jsonl", "application/json-seq", "application/x-ndjson",
    ]

    /// Whether the response is a live feed (its `Content-Type`, parameters and case aside, is one
    /// of ``liveFeedMediaTypes``), which counts only until its headers.
    static func isLiveFeed(_ response: HTTPResponse) -> Bool {
        guard let contentType = response.headerFields[.contentType] else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return liveFeedMediaTypes.contains(mediaType.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// Whether `response` cannot have a body, whatever its header fields say: an informational
    /// (1xx), 204 or 304 response, any answer to HEAD (RFC 9112 §6.3), or a 205 (RFC 9110 §15.3.6).
    static func cannotHaveBody(_ response: HTTPResponse, answering request: HTTPRequest) -> Bool {
        if request.method == .head || response.status.kind == .informational { return true }
        return response.status == .noContent || response.status == .resetContent || response.status == .notModified
    }

    /// Whether `body` is known to carry no byte: its own length, or else the response's
    /// `Content-Length`, is 0, under any `Content-Encoding` (zero encoded bytes decode to none).
    static func isKnownEmpty(_ body: HTTPBody, in response: HTTPResponse) -> Bool {
        if case .known(let length) = body.length { return length == 0 }
        return response.headerFields[.contentLength].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } == 0
    }

    /// The body's expected length in bytes, if known (0: no body): unknown under a
    /// `Content-Encoding` other than `identity` (both the body's length and the header count the
    /// encoded bytes, the reader sees the decoded ones); else the body's own length, or else the
    /// response's `Content-Length`. A negative or unreadable length is unknown.
    static func expectedLength(of body: HTTPBody, in response: HTTPResponse) -> Int64? {
        if let encoding = response.headerFields[.contentEncoding],
            encoding.trimmingCharacters(in: .whitespaces).lowercased() != "identity"
        {
            return nil
        }
        if case .known(let length) = body.length {
            return length >= 0 ? length : nil
        }
        guard let header = response.headerFields[.contentLength],
            let length = Int64(header.trimmingCharacters(in: .whitespaces)), length >= 0
        else { return nil }
        return length
    }
}
