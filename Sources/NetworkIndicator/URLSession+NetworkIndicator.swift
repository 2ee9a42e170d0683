public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension NetworkIndicatorManager {
    /// Tracks `task` until it completes (or is deallocated), with no bookkeeping of yours.
    ///
    /// The task is held weakly and, being a ``NetworkActivityCompletionReporting`` token, ends
    /// at the first sweep after its `state` becomes `.completed`, even if you keep it.
    /// Call it before or right after `resume()`. Safe from any thread.
    ///
    /// ```swift
    /// let task = session.dataTask(with: url) { data, response, error in … }
    /// NetworkIndicatorManager.shared.track(task)
    /// task.resume()
    /// ```
    public func track(_ task: URLSessionTask) {
        beganNetworkTask(withToken: task, label: task.originalRequest?.url?.absoluteString)
    }
}

extension URLSession {
    /// Loads `request` like `data(for:)`, with the manager's indicator on for the whole load.
    ///
    /// The activity ends when the load returns, throws, or its task is cancelled.
    ///
    /// - Parameters:
    ///   - request: The request to load.
    ///   - manager: The manager whose indicator shows the load.
    /// - Returns: The response body and metadata, as `data(for:)` returns them.
    public func data(
        for request: URLRequest,
        tracking manager: NetworkIndicatorManager
    ) async throws -> (Data, URLResponse) {
        try await manager.withNetworkActivity(label: request.url?.absoluteString) {
            try await self.data(for: request)
        }
    }

    /// Loads `url` like `data(from:)`, with the manager's indicator on for the whole load.
    ///
    /// The activity ends when the load returns, throws, or its task is cancelled.
    public func data(
        from url: URL,
        tracking manager: NetworkIndicatorManager
    ) async throws -> (Data, URLResponse) {
        try await manager.withNetworkActivity(label: url.absoluteString) {
            try await self.data(from: url)
        }
    }
}
