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
    /// The operation is the same as ``operationStarted(file:line:)``'s, which this calls first. A group's
    /// operations share one identity, so the manager cannot tell which one an
    /// ``operationFinished()`` ends: each progress counts as it reports until the group has no
    /// open operation (or is released), or until it is complete (or cancelled) and a later
    /// operation has started or an ``operationFinished()`` follows. A finish is taken to be a
    /// complete part's first, then an operation's of unknown size or without progress, and only
    /// then the oldest running part's, which leaves counted as done (a finish off the main queue
    /// beside a plain `Progress` waits for a main-queue reading, and then takes the oldest
    /// running part before an operation of unknown size, which may have begun after it).
    /// ``cancelOperations()`` takes the running ones out of the batch (a cancel never
    /// counts a part as done that was not): complete each progress (let it reach its
    /// total), or cancel it, as its operation finishes, so that a group that always has an
    /// operation open keeps only its running ones. Then it counts as the manager's
    /// ``NetworkIndicatorManager/progressSnapshot()`` says. Passing `nil` is exactly
    /// ``operationStarted(file:line:)``. Safe from any thread.
    ///
    /// - Parameters:
    ///   - progress: The operation's progress, or `nil`.
    ///   - weight: The units the operation weighs instead of `progress.totalUnitCount`, or `nil`;
    ///     0 or less counts the operation as one of unknown size.
    ///   - file: Where the operation began, for snapshots and diagnostics: leave the default,
    ///     the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    public func operationStarted(
        progress: Progress?,
        weight: Int64? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        guard let progress else { return operationStarted(file: file, line: line) }
        manager.settleProgress()
        // Listed, with its failure record taken, in the begin's hold: a cancel landing after the
        // begin fails that record (the operation it ended leaves the batch, not counted done).
        let outcome = manager.beginTask(
            beginEvent(site: CallSite(fileID: file, line: line)),
            measuredBy: progress,
            weight: weight,
            token: key,
            failure: key.failureOfNewPart
        )
        let outlived = outcome == .outlivedParts
        // A complete part this one outlives leaves now, as done: a later cancel fails only the
        // parts it finds running, whether anyone read in between or not.
        if outlived { manager.settleProgress() }
    }
}
