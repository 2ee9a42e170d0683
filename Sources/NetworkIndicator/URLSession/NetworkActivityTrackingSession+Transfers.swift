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

    /// `session.data(for:)`, counted from the call until it returns, throws or is cancelled.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await session.data(for: request, tracking: manager)
    }

    /// `session.data(from:)`, counted from the call until it returns, throws or is cancelled.
    public func data(from url: URL) async throws -> (Data, URLResponse) {
        try await session.data(from: url, tracking: manager)
    }

    /// `session.upload(for:from:)`, counted from the call until it returns, throws or is
    /// cancelled.
    public func upload(for request: URLRequest, from bodyData: Data) async throws -> (Data, URLResponse) {
        try await session.upload(for: request, from: bodyData, tracking: manager)
    }

    /// `session.upload(for:fromFile:)`, counted from the call until it returns, throws or is
    /// cancelled.
    public func upload(for request: URLRequest, fromFile fileURL: URL) async throws -> (Data, URLResponse) {
        try await session.upload(for: request, fromFile: fileURL, tracking: manager)
    }

    /// `session.download(for:)`, counted from the call until it returns, throws or is
    /// cancelled.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        try await session.download(for: request, tracking: manager)
    }

    /// `session.download(from:)`, counted from the call until it returns, throws or is
    /// cancelled.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public func download(from url: URL) async throws -> (URL, URLResponse) {
        try await session.download(from: url, tracking: manager)
    }
}
