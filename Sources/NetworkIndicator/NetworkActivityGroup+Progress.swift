public import Foundation

extension NetworkActivityGroup {
    /// Begins one operation in this group, whose `progress` rolls up into the manager's
    /// ``NetworkIndicatorManager/progressSnapshot()``.
    ///
    /// ```swift
    /// let upload = Progress(totalUnitCount: Int64(data.count))
    /// uploads.operationStarted(progress: upload)
    /// ```
    ///
    /// The operation is the same as ``operationStarted()``'s, which this calls first. A group's
    /// operations share one identity, so the manager cannot tell which one an
    /// ``operationFinished()`` ends: each progress counts as it reports until the group has no
    /// open operation (or is released, or ``cancelOperations()`` is called), or until it is
    /// complete (or cancelled) and a later operation has started: complete each progress (let
    /// it reach its total), or cancel it, as its operation finishes, so that a group that always
    /// has an operation open keeps only its running ones. Then it counts as the manager's
    /// ``NetworkIndicatorManager/progressSnapshot()`` says. Passing `nil` is exactly
    /// ``operationStarted()``. Safe from any thread.
    ///
    /// - Parameters:
    ///   - progress: The operation's progress, or `nil`.
    ///   - weight: The units the operation weighs instead of `progress.totalUnitCount`, or `nil`;
    ///     0 or less counts the operation as one of unknown size.
    public func operationStarted(progress: Progress?, weight: Int64? = nil) {
        guard let progress else { return operationStarted() }
        manager.settleProgress()
        operationStarted()
        manager.trackProgress(progress, weight: weight, token: key, failure: key.failureOfNewPart())
    }
}
