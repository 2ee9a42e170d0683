extension NetworkIndicatorManager {
    /// Creates a child manager: a scope, such as one screen, with a loading state of its own
    /// that also counts in `parent` (and the parent's parent, up to the root).
    ///
    /// ```swift
    /// let feedActivity = NetworkIndicatorManager(parent: .shared, label: "Feed")
    /// feedActivity.addOutput(feedOverlay)          // shows while the feed loads
    /// let token = feedActivity.beganNetworkTask()  // the app-wide indicator shows too
    /// ```
    ///
    /// Every way to begin and end a task works on a child as on any manager, and each task open
    /// in the child is open in every ancestor as soon as the call returns: a manager's
    /// ``activeTaskCount`` is its own tasks plus all of its descendants'. Each manager applies
    /// its own ``NetworkIndicatorSettings/startDelay``, ``NetworkIndicatorSettings/completionDelay``, ``NetworkIndicatorSettings/minimumVisibleDuration`` and ``NetworkIndicatorSettings/isEnabled``
    /// to its own count and tells only its own outputs and streams.
    ///
    /// The child uses its parent's scheduler and, until you set one of its own, its parent's
    /// ``diagnosticsHandler``, whenever the parent's is set (an app that sets `shared`'s at
    /// launch, after a scope was made, gets that scope's reports too). It keeps its parent alive; the parent never keeps a child alive.
    /// Releasing the child ends its remaining tasks in every ancestor at once (opaque tokens
    /// and groups keep their manager alive, so those are weak tokens and pushes).
    ///
    /// ## Threads
    ///
    /// Any manager of a tree may be used from any thread. The managers of a tree share one
    /// lock: a change in a child takes it once and carries the count to every ancestor before
    /// releasing it, so that no two calls can deadlock and every ancestor sees a child's
    /// changes in order; nothing of yours runs while the lock is held.
    ///
    /// - Parameters:
    ///   - parent: The manager whose count includes this one's.
    ///   - label: The child's name in its parent's ``activitySnapshot()``.
    public convenience init(parent: NetworkIndicatorManager, label: String? = nil) {
        self.init(childOf: parent, label: label)
    }
}
