public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension NetworkActivityTrackingSession {
    // MARK: - Upload tasks

    /// A counted `session.uploadTask(with:from:)`.
    public func uploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
        counted(session.uploadTask(with: request, from: bodyData))
    }

    /// A counted `session.uploadTask(with:fromFile:)`.
    public func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        counted(session.uploadTask(with: request, fromFile: fileURL))
    }

    /// A counted `session.uploadTask(with:from:completionHandler:)`. The task has ended by the
    /// time `completionHandler` runs on the session's delegate queue.
    public func uploadTask(
        with request: URLRequest,
        from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionUploadTask {
        counted(completionHandler) { session.uploadTask(with: request, from: bodyData, completionHandler: $0) }
    }

    /// A counted `session.uploadTask(with:fromFile:completionHandler:)`. The task has ended by
    /// the time `completionHandler` runs on the session's delegate queue.
    public func uploadTask(
        with request: URLRequest,
        fromFile fileURL: URL,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionUploadTask {
        counted(completionHandler) { session.uploadTask(with: request, fromFile: fileURL, completionHandler: $0) }
    }

    // MARK: - Download tasks

    /// A counted `session.downloadTask(with:)`.
    public func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        counted(session.downloadTask(with: request))
    }

    /// A counted `session.downloadTask(with:)`.
    public func downloadTask(with url: URL) -> URLSessionDownloadTask {
        counted(session.downloadTask(with: url))
    }

    /// A counted `session.downloadTask(with:completionHandler:)`. The task has ended by the time
    /// `completionHandler` runs on the session's delegate queue.
    public func downloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDownloadTask {
        counted(completionHandler) { session.downloadTask(with: request, completionHandler: $0) }
    }

    /// A counted `session.downloadTask(with:completionHandler:)`. The task has ended by the time
    /// `completionHandler` runs on the session's delegate queue.
    public func downloadTask(
        with url: URL,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDownloadTask {
        counted(completionHandler) { session.downloadTask(with: url, completionHandler: $0) }
    }

    // MARK: - Async loads

    /// `session.data(for:)`, made as a data task of the wrapper: counted, if ``countsTask`` lets
    /// its task through, until it returns, throws or is cancelled.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await load {
            dataTask(with: request, completionHandler: $0)
        } result: {
            $0 ?? Data()
        }
    }

    /// `session.data(from:)`, made as a data task of the wrapper: counted, if ``countsTask`` lets
    /// its task through, until it returns, throws or is cancelled.
    public func data(from url: URL) async throws -> (Data, URLResponse) {
        try await data(for: URLRequest(url: url))
    }

    /// `session.upload(for:from:)`, made as an upload task of the wrapper: counted, if
    /// ``countsTask`` lets its task through, until it returns, throws or is cancelled.
    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        try await load {
            uploadTask(with: request, from: bodyData, completionHandler: $0)
        } result: {
            $0 ?? Data()
        }
    }

    /// `session.upload(for:fromFile:)`, made as an upload task of the wrapper: counted, if
    /// ``countsTask`` lets its task through, until it returns, throws or is cancelled.
    public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse) {
        try await load {
            uploadTask(with: request, fromFile: fileURL, completionHandler: $0)
        } result: {
            $0 ?? Data()
        }
    }

    /// `session.download(for:)`, made as a download task of the wrapper: counted, if
    /// ``countsTask`` lets its task through, until it returns, throws or is cancelled. The file
    /// is moved to a temporary location of its own, which is yours to move or remove.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        try await load {
            downloadTask(with: request, completionHandler: $0)
        } result: { location in
            guard let location else { throw URLError(.cannotCreateFile) }
            // The session removes its file once the handler returns.
            let kept = FileManager.default.temporaryDirectory
                .appendingPathComponent("NetworkIndicator-\(UUID().uuidString).tmp")
            try FileManager.default.moveItem(at: location, to: kept)
            return kept
        }
    }

    /// `session.download(from:)`; see ``download(for:)``.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func download(from url: URL) async throws -> (URL, URLResponse) {
        try await download(for: URLRequest(url: url))
    }

    /// Runs the task that `make` creates with the completion handler it is given (one of the
    /// wrapper's own, so counted as ``countsTask`` says), resumed at once, and returns what
    /// `result` makes of its value, inside the handler. The calling task's cancellation cancels
    /// the task, which then throws as a cancelled load does.
    private func load<Value, Result: Sendable>(
        _ make: (@escaping @Sendable (Value?, URLResponse?, (any Error)?) -> Void) -> URLSessionTask,
        result: @escaping @Sendable (Value?) throws -> Result
    ) async throws -> (Result, URLResponse) {
        let started = StartedTask()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = make { value, response, error in
                    continuation.resume(
                        with: Swift.Result {
                            if let error { throw error }
                            guard let response else { throw URLError(.badServerResponse) }
                            return (try result(value), response)
                        }
                    )
                }
                started.resume(task)
            }
        } onCancel: {
            started.cancel()
        }
    }
}

/// The task of one of the wrapper's async loads, and whether the calling task was cancelled:
/// a cancel before the task was made cancels it as soon as it is resumed.
///
/// `@unchecked Sendable`: the task (not `Sendable` on Linux) is stored and read only under the
/// lock, and only to resume or cancel it, which `URLSessionTask` allows from any thread.
private final class StartedTask: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var isCancelled = false

    func resume(_ task: URLSessionTask) {
        lock.lock()
        self.task = task
        let isCancelled = isCancelled
        lock.unlock()
        task.resume()
        if isCancelled { task.cancel() }
    }

    func cancel() {
        lock.lock()
        isCancelled = true
        let task = task
        lock.unlock()
        task?.cancel()
    }
}
