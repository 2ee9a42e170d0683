extension NetworkIndicatorManager {
    /// Cancels the work of this manager and of its descendant scopes, and ends those tasks at
    /// once: a screen in charge of its own work calls it when it goes away.
    ///
    /// ```swift
    /// override func viewDidDisappear(_ animated: Bool) {
    ///     super.viewDidDisappear(animated)
    ///     feedActivity.cancelNetworkTasks()   // a child manager: the feed's own loads
    /// }
    /// ```
    ///
    /// What is cancelled, in this manager and every descendant:
    ///
    /// - each token that conforms to ``NetworkActivityCancellable`` (an `Operation`, a
    ///   `URLSessionTask`, a type of yours) and has an open task: its tasks end, then its
    ///   `cancel()` is called;
    /// - the loads of the package's async `URLSession` helpers (`data(for:tracking:)` and the
    ///   others): they end, and the call throws `URLError(.cancelled)` at once, as a cancelled
    ///   load does. The load's `URLSessionTask` is cancelled then on Apple platforms; on Linux
    ///   only if it still runs a second later (a result that comes sooner is dropped, a
    ///   download's file deleted), since swift-corelibs-foundation can crash or deadlock when a
    ///   task is cancelled as it completes;
    /// - each iteration of a tracked async sequence
    ///   (``_Concurrency/AsyncSequence/trackingNetworkActivity(in:label:file:line:)``, a live
    ///   feed): it ends, and its loop stops at its next element (the element is not handed out);
    /// - each ``NetworkActivityGroup`` with open operations: they end, and the group's
    ///   ``NetworkActivityGroup/cancellationHandler`` is called, so that the client stops its
    ///   own work.
    ///
    /// Work that no longer counts but goes on is cancelled too, once: a group's operation that
    /// stopped counting (``NetworkActivityGroup/operationStoppedCounting()``), and the work of
    /// the above whose tasks a ``resetNetworkActivity()`` ended while it lived, until a finish
    /// of it arrives (a screen that goes away after a sign-out still stops its feed).
    ///
    /// What has no work to cancel stays counted and ends as usual: opaque tokens
    /// (``beganNetworkTask(label:progress:weight:file:line:)``, `withNetworkActivity`, scoped activity), pushes, tokens
    /// that do not conform, and tokens already deallocated (the sweep ends those). A parent's or
    /// another ancestor's own tasks are never touched; their counts lose the descendants' tasks
    /// that ended, so the ancestors' indicators follow, after their delays.
    ///
    /// A finish that arrives afterwards for a cancelled task (an `Operation`'s completion
    /// calling ``finishedNetworkTask(forToken:)-(Object)``, a group's ``NetworkActivityGroup/operationFinished()``)
    /// is absorbed silently, as long as the token lives: the work was cancelled, not misused. It
    /// is absorbed first even when the same token or group has begun new work since (a refresh
    /// that restarts at once), so the new work stays counted until its own finish.
    ///
    /// In ``progressSnapshot()``, each tracked `URLSessionTask` (``track(_:label:file:line:)``)
    /// whose task the cancel ends reads cancelled from before that end (in the same hold of the
    /// lock), so its bytes leave the batch even when read before its own `cancel()` runs (by a
    /// group's handler cancelled before it, say),
    /// unless it completes first. So does each part of a group (``NetworkActivityGroup``) that
    /// the cancel finds running, whatever its `Progress` reads; a part the group's rules ended
    /// before (its operation finished, or a complete part a later operation outlives) stays done.
    /// (A plain `Progress` of Foundation's is read on the main queue only: called elsewhere, the
    /// cancel sees a group's part as running if it was outlived, or its operation finished, since
    /// the main queue last read it, and counts it as cancelled. A ``NetworkActivityProgress`` is
    /// read on any thread, and stays done.) So does the part of each token of yours that the
    /// cancel ends (a ``NetworkActivityCancellable``), whether or not its `cancel()` cancels its
    /// `Progress`: its work was told to stop, and its units will not come. One whose `Progress`
    /// reads complete stays done: its units all came.
    /// Other work with progress (the tasks the cancel leaves open) counts as its `Progress` reads.
    ///
    /// Safe from any thread. The tasks end under the manager's lock, so a cancel that races a
    /// finish ends each task once; `cancel()` and the handlers run on the calling thread after
    /// the lock is released, never under it.
    public func cancelNetworkTasks() {
        // A group's part that the group's rules end (complete, and outlived by a later
        // operation) leaves as done before the cancel, read since or not, in this manager's bar
        // and in each scope's below it.
        progressRollUp.settle(withSubtree: true)
        let cancelled = driver.cancelTree()
        for work in cancelled { work.cancel() }
        // The parts the cancel ended leave now, read since or not: a batch left with none
        // running is over before a total that becomes known later starts the next.
        progressRollUp.settle(withSubtree: true)
    }
}
