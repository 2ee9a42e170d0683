extension NetworkIndicatorManager {
    /// Begins one counted task (the classic app-delegate counter, iOS Recipes'
    /// `PRPNetworkActivity`). Balance it with ``popNetworkActivity()``.
    ///
    /// Pushes are counted apart from token tasks and groups: a pop never ends a token's task.
    /// Safe from any thread; O(1).
    ///
    /// - Parameters:
    ///   - file: Where the push was made, for snapshots and diagnostics (the counter shows where
    ///     its first open push was made): leave the default, the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    public func pushNetworkActivity(file: StaticString = #fileID, line: UInt = #line) {
        driver.apply(.begin(.counter, label: nil, site: CallSite(fileID: file, line: line)))
    }

    /// Ends one task begun with ``pushNetworkActivity(file:line:)``.
    ///
    /// With no push outstanding (more pops than pushes, or a pop after
    /// ``resetNetworkActivity()``) the call does nothing and reports
    /// ``NetworkIndicatorDiagnostic/Kind/popWithoutPush``. Safe from any thread; O(1).
    public func popNetworkActivity() {
        if driver.apply(.pop) != .applied {
            driver.report(.popWithoutPush, label: "popNetworkActivity()")
        }
    }

    /// Ends **every** task the manager tracks (pushes, tokens, opaque tokens, groups, scoped
    /// activity), and every task of its child managers and their descendants, and hides the
    /// indicator at the next main-queue hop (after the completion delay). Ancestors lose those
    /// tasks too; siblings and the parent's own tasks are left alone.
    ///
    /// It ends the tasks, not the work: what ``cancelNetworkTasks()`` would have cancelled (a
    /// ``NetworkActivityCancellable`` token, a tracked sequence's iteration, a group) stays
    /// within the reach of the next cancel of its manager or an ancestor, which cancels it
    /// once, as it does a group's operation that stopped counting; the manager holds it weakly,
    /// and lets it go when a finish of it finds no task (its work is done). A token or group
    /// begun again after the reset stays held until such a finish (a finish carries nothing
    /// that tells the old work's from the new's), so a cancel may still reach it. Their progress
    /// parts end as any task's do (done, unless their `Progress` reads cancelled): a reset is
    /// not a cancel. They end at the reset, read since or not: a failure recorded for them
    /// afterwards (a group's ``NetworkActivityGroup/cancelOperations()``, a scoped body that
    /// throws) changes nothing. Off the main queue a caller's plain `Progress` cannot be read,
    /// so its part ends at the next main-queue reading (done, unless that reading finds it
    /// paused or cancelled).
    ///
    /// Calls that refer to activity from before the reset are harmless: a later finish or pop
    /// is ignored and reported, a token's death or a group's release ends nothing new. The count
    /// never goes negative. Tokens begun again after the reset are new tasks, and so are pushes
    /// and group operations: once one is open, a late finish or pop of the same token, group or
    /// counter ends it (the calls carry nothing that tells them apart), so let the old work's
    /// completions finish before beginning again, or use a new token. Safe from any thread.
    public func resetNetworkActivity() {
        driver.resetTree()
        // The parts the reset ended leave now, as done (off the main queue, a plain
        // `Progress`'s part waits for a main-queue reading): the reset noted that they had not
        // failed, so a failure recorded later (a group's cancel, a scoped body's throw) is not theirs.
        progressRollUp.settle(withSubtree: true)
    }
}
