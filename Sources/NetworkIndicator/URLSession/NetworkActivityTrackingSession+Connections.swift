public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// The rest of URLSession's task methods: resumed downloads, streamed uploads, and the
// connection tasks (WebSocket, stream), which the default filter leaves out
// (`countsTaskByDefault(_:)`): they count only under a filter of your own that lets them in.

extension NetworkActivityTrackingSession {
    // MARK: - Resumed downloads and streamed uploads

    /// A counted `session.downloadTask(withResumeData:)`.
    public func downloadTask(withResumeData resumeData: Data) -> URLSessionDownloadTask {
        counted(session.downloadTask(withResumeData: resumeData))
    }

    /// A counted `session.downloadTask(withResumeData:completionHandler:)`.
    public func downloadTask(
        withResumeData resumeData: Data,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDownloadTask {
        counted(session.downloadTask(withResumeData: resumeData, completionHandler: completionHandler))
    }

    /// A counted `session.uploadTask(withStreamedRequest:)`; the session's delegate provides
    /// the body stream.
    public func uploadTask(withStreamedRequest request: URLRequest) -> URLSessionUploadTask {
        counted(session.uploadTask(withStreamedRequest: request))
    }

    // MARK: - Connections

    /// `session.webSocketTask(with:)`, counted only if ``countsTask`` lets it in (the default
    /// leaves WebSocket tasks out).
    public func webSocketTask(with url: URL) -> URLSessionWebSocketTask {
        counted(session.webSocketTask(with: url))
    }

    /// `session.webSocketTask(with:protocols:)`, counted only if ``countsTask`` lets it in.
    public func webSocketTask(with url: URL, protocols: [String]) -> URLSessionWebSocketTask {
        counted(session.webSocketTask(with: url, protocols: protocols))
    }

    /// `session.webSocketTask(with:)` for a request, counted only if ``countsTask`` lets it in.
    public func webSocketTask(with request: URLRequest) -> URLSessionWebSocketTask {
        counted(session.webSocketTask(with: request))
    }

    #if canImport(ObjectiveC)
    /// `session.streamTask(withHostName:port:)`, counted only if ``countsTask`` lets it in (the
    /// default leaves stream tasks out). Apple platforms only: swift-corelibs-foundation has no
    /// stream tasks.
    public func streamTask(withHostName hostname: String, port: Int) -> URLSessionStreamTask {
        counted(session.streamTask(withHostName: hostname, port: port))
    }
    #endif
}
