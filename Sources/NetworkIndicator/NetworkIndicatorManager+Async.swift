extension NetworkIndicatorManager {
    /// Runs `body` as one network task: active while `body` runs, ended when it returns or
    /// throws, or as soon as the surrounding task is cancelled (even if `body` keeps running).
    ///
    /// ```swift
    /// let feed = try await NetworkIndicatorManager.shared.withNetworkActivity {
    ///     try await api.loadFeed()
    /// }
    /// ```
    ///
    /// `body` runs on the caller's actor (`isolation`), so it need not be `Sendable`.
    /// A ``resetNetworkActivity()`` during `body` ends the task early; nothing is reported when
    /// `body` then finishes.
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; leave the default, the caller's actor.
    ///   - label: A name for ``activitySnapshot()`` and diagnostics.
    ///   - body: The network work.
    /// - Returns: What `body` returns.
    public func withNetworkActivity<Result>(
        isolation: isolated (any Actor)? = #isolation,
        label: String? = nil,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let token = beganNetworkTask(label: label ?? "withNetworkActivity")
        defer { token.end() }
        return try await withTaskCancellationHandler {
            try await body()
        } onCancel: {
            token.end()
        }
    }
}
