extension AsyncSequence {
    /// The same sequence, with one network task open in `manager` while it is being iterated,
    /// whose progress counts the elements against `expectedElementCount`.
    ///
    /// ```swift
    /// for try await page in pages.trackingNetworkActivity(in: feedActivity, expectedElementCount: 5) {
    ///     show(page)   // the feed's fractionCompleted: 0.2, 0.4, …
    /// }
    /// ```
    ///
    /// The task is the one of ``trackingNetworkActivity(in:label:file:line:)``; it carries a `Progress` of
    /// `expectedElementCount` units, one completed per element, which rolls up into
    /// ``NetworkIndicatorManager/progressSnapshot()``. `nil`, or a count that is not positive,
    /// adds no progress. Each element updates a `Progress`: count chunks or pages, not single
    /// bytes, where elements are many. Elements are not bytes: beside downloads counted in bytes,
    /// give the sequence a `weight` (an estimate of its bytes will do), or five pages weigh five
    /// bytes and never move the bar.
    ///
    /// - Parameters:
    ///   - manager: The manager whose indicator shows the iteration; `.shared` by default.
    ///   - label: A name for ``NetworkIndicatorManager/activitySnapshot()`` and diagnostics; by
    ///     default the task is named by where this was called.
    ///   - expectedElementCount: How many elements the sequence will produce, or `nil`.
    ///   - weight: The units the whole sequence weighs in the roll-up (bytes, beside transfers),
    ///     or `nil` for one unit per element; 0 or less counts the sequence as of unknown size.
    ///   - file: Where the sequence was made, for snapshots and diagnostics: leave the default,
    ///     the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    public func trackingNetworkActivity(
        in manager: NetworkIndicatorManager = .shared,
        label: String? = nil,
        expectedElementCount: Int?,
        weight: Int64? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> NetworkActivityTrackingSequence<Self> {
        NetworkActivityTrackingSequence(
            base: self,
            manager: manager,
            label: label,
            site: CallSite(fileID: file, line: line),
            expectedElementCount: expectedElementCount,
            weight: weight
        )
    }
}
