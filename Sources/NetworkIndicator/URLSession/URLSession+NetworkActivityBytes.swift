#if canImport(Darwin)
public import Foundation

extension URLSession {
    /// Starts loading `request` like `bytes(for:)`, with the manager's indicator on from the
    /// request until its body has been read.
    ///
    /// One task covers the request and the body: it begins at the call and ends when the
    /// returned sequence finishes or fails, when its iteration stops (the loop breaks or its
    /// task is cancelled, which also cancels the load), when the call throws, or when the
    /// sequence is dropped unread. Safe from any thread, task or actor; iterate the bytes from
    /// one task at a time.
    ///
    /// ``NetworkIndicatorManager/cancelNetworkTasks()`` (of `manager` or an ancestor) ends the
    /// task at once and cancels the load: while the call waits for the response it throws
    /// `URLError(.cancelled)` at once, as the other helpers do; afterwards the bytes' data task
    /// is cancelled, so the iteration throws as a cancelled load does.
    ///
    /// ```swift
    /// let (bytes, _) = try await session.bytes(for: request, tracking: .shared)
    /// for try await line in bytes.lines { handle(line) }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request to load.
    ///   - manager: The manager whose indicator shows the load; pass
    ///     ``NetworkIndicatorManager/current`` to count in the calling task's manager.
    ///   - label: The task's label in snapshots and diagnostics; `nil` (the default) names the
    ///     request by method, host and path, without its query, fragment or credentials.
    ///   - delegate: A task delegate of yours for the load, as `bytes(for:delegate:)` takes one.
    /// - Returns: The body's bytes, and the response.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func bytes(
        for request: URLRequest,
        tracking manager: NetworkIndicatorManager,
        label: String? = nil,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (NetworkActivityBytes, URLResponse) {
        let label = label ?? ActivityLabel.request(request) ?? "bytes"
        let delegate = delegateCountingOnce(delegate)
        let (bytes, response, handoff) = try await HandedOffLoad.open(in: manager, label: label) {
            try await self.bytes(for: request, delegate: delegate)
        } cancelBody: { bytes in
            let task = bytes.task
            return { task.cancel() }
        }
        return (NetworkActivityBytes(bytes: bytes, handoff: handoff, manager: manager, label: label), response)
    }

    /// `delegate`, or on a session whose delegate is a ``NetworkActivitySessionDelegate`` (iOS
    /// 16+, macOS 13+, tvOS 16+, watchOS 9+) a task delegate that takes the load's
    /// `urlSession(_:didCreateTask:)` and forwards the rest to `delegate`: the load is counted
    /// here, and the session's delegate would count its task a second time.
    private func delegateCountingOnce(
        _ delegate: (any URLSessionTaskDelegate)?
    ) -> (any URLSessionTaskDelegate)? {
        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *),
            self.delegate is NetworkActivitySessionDelegate
        {
            return URLSessionTaskProgressDelegate(progress: URLSessionTaskProgress(task: nil), forwardingTo: delegate)
        }
        return delegate
    }

    /// Starts loading `url` like `bytes(from:)`, with the manager's indicator on from the
    /// request until its body has been read; see ``Foundation/URLSession/bytes(for:tracking:label:delegate:)``.
    ///
    /// - Parameters:
    ///   - url: The URL to load.
    ///   - manager: The manager whose indicator shows the load; pass
    ///     ``NetworkIndicatorManager/current`` to count in the calling task's manager.
    ///   - label: The task's label in snapshots and diagnostics; `nil` (the default) names the
    ///     load `"GET host/path"`, without the URL's query, fragment or credentials.
    ///   - delegate: A task delegate of yours for the load, as `bytes(from:delegate:)` takes one.
    /// - Returns: The body's bytes, and the response.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func bytes(
        from url: URL,
        tracking manager: NetworkIndicatorManager,
        label: String? = nil,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (NetworkActivityBytes, URLResponse) {
        try await bytes(for: URLRequest(url: url), tracking: manager, label: label, delegate: delegate)
    }
}

extension NetworkActivityTrackingSession {
    /// `session.bytes(for:)`, counted from the call until its response's headers arrive, and on
    /// until the bytes have been read, have failed or are dropped if ``countsTask`` lets its task
    /// through (asked then: the task exists only once the call returns); see
    /// ``Foundation/URLSession/bytes(for:tracking:label:delegate:)``. A stream left out by the
    /// filter (server-sent events, a long poll) counts only until its headers.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func bytes(for request: URLRequest) async throws -> (NetworkActivityBytes, URLResponse) {
        let (bytes, response) = try await session.bytes(for: request, tracking: manager)
        if !countsTask(bytes.task) { bytes.handoff.endTask() }
        return (bytes, response)
    }

    /// `session.bytes(from:)`; see ``bytes(for:)``.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func bytes(from url: URL) async throws -> (NetworkActivityBytes, URLResponse) {
        try await bytes(for: URLRequest(url: url))
    }
}

/// The body of a load started by ``Foundation/URLSession/bytes(for:tracking:label:delegate:)``: the same
/// bytes as `URLSession.AsyncBytes`, with the load's network task open until they have been
/// read, have failed, or are dropped.
///
/// Foundation's byte-sequence adapters work on it (`lines`, `characters`, `unicodeScalars`).
/// The load's task goes to the first iterator; a second iteration (which `AsyncBytes` does not
/// support anyway) opens a task of its own.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
public struct NetworkActivityBytes: AsyncSequence {
    /// A byte of the body.
    public typealias Element = UInt8

    let bytes: URLSession.AsyncBytes
    let handoff: ActivityHandoff
    let manager: NetworkIndicatorManager
    let label: String

    /// The underlying task, as `URLSession.AsyncBytes` gives it.
    public var task: URLSessionDataTask { bytes.task }

    /// Makes the iterator; the first one takes the load's task.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            core: HandedOffActivityIterator(
                base: bytes.makeAsyncIterator(),
                handoff: handoff,
                manager: manager,
                label: label
            )
        )
    }

    /// Reads the body byte by byte; releasing it ends its task.
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline var core: HandedOffActivityIterator<URLSession.AsyncBytes.AsyncIterator>

        init(core: HandedOffActivityIterator<URLSession.AsyncBytes.AsyncIterator>) {
            self.core = core
        }

        /// The next byte, or `nil` (and the task ended) at the end of the body. An error ends the
        /// task and is rethrown.
        @inlinable
        public mutating func next() async throws -> UInt8? {
            try await core.next()
        }
    }
}
#endif
