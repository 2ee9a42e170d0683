public import Foundation

extension NetworkActivityGroup {
    /// Begins one operation in this group, whose `progress` rolls up into the manager's
    /// ``NetworkIndicatorManager/fractionCompleted``.
    ///
    /// ```swift
    /// let upload = Progress(totalUnitCount: Int64(data.count))
    /// uploads.operationStarted(progress: upload)
    /// ```
    ///
    /// The operation is the same as ``operationStarted()``'s, which this calls first. A group's
    /// operations share one identity, so the manager cannot tell which one an
    /// ``operationFinished()`` ends: each progress counts as it reports until the group has no
    /// open operation (or is released, or ``cancelOperations()`` is called), and then as
    /// complete until the scope is idle. Complete each progress (or let it reach its total) as
    /// its operation finishes. Passing `nil` is exactly ``operationStarted()``. Safe from any
    /// thread.
    ///
    /// - Parameter progress: The operation's progress, or `nil`.
    public func operationStarted(progress: Progress?) {
        guard let progress else { return operationStarted() }
        operationStarted()
        manager.trackProgress(progress, token: key)
    }
}
