public import Foundation

extension NetworkIndicatorManager {
    /// Runs `body` as one network task whose `progress` rolls up into ``fractionCompleted``:
    /// active while `body` runs, ended when it returns or throws, or as soon as the surrounding
    /// task is cancelled.
    ///
    /// ```swift
    /// let progress = Progress(totalUnitCount: Int64(files.count))
    /// try await manager.withNetworkActivity(label: "Sync", progress: progress) {
    ///     for file in files {
    ///         try await upload(file)
    ///         progress.completedUnitCount += 1
    ///     }
    /// }
    /// ```
    ///
    /// The same as ``withNetworkActivity(isolation:label:_:)``, begun with
    /// ``beganNetworkTask(label:progress:weight:)``; update `progress` from anywhere, `body` included.
    /// If `body` throws, or the surrounding task is cancelled, the work failed: its progress
    /// leaves its batch (see ``fractionCompleted``) rather than count as done. Passing `nil` is
    /// exactly ``withNetworkActivity(isolation:label:_:)``.
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; leave the default, the caller's actor.
    ///   - label: A name for ``activitySnapshot()`` and diagnostics.
    ///   - progress: The work's progress, or `nil`.
    ///   - body: The network work.
    /// - Returns: What `body` returns.
    public func withNetworkActivity<Result>(
        isolation: isolated (any Actor)? = #isolation,
        label: String? = nil,
        progress: Progress?,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let failure = progress == nil ? nil : FailureRecord()
        let token = beganNetworkTask(label: label ?? "withNetworkActivity", progress: progress, failure: failure)
        defer { token.finishAll() }
        do {
            return try await withTaskCancellationHandler {
                try await body()
            } onCancel: {
                failure?.recordFailure()
                token.finishAll()
            }
        } catch {
            failure?.recordFailure()
            throw error
        }
    }
}
