extension Batch {
    /// One listed part, as the tree sees it under its lock.
    struct Sample {
        let entry: ProgressEntry
        /// The tasks open under the part's token in its node (0 once it ended).
        let openTasks: Int
        /// Its last stored reading, a recorded failure included.
        let reading: ProgressReading
        /// Whether ``reading`` was taken in this pass (not a plain `Progress`'s older one).
        let isFresh: Bool
        /// Whether ``reading`` was taken after the part was seen to have ended.
        let wasReadAfterEnd: Bool

        var hasEnded: Bool { openTasks == 0 }
        /// Ended, and not read since: it waits, with its last reading.
        var isWaiting: Bool { hasEnded && !wasReadAfterEnd }
        var isRunning: Bool { !hasEnded && !reading.isCancelled }
        var isGroupPart: Bool { entry.isGroupPart }
        /// Its progress's identity, as ``Batch`` keys what it remembers of a part.
        var identity: ObjectIdentifier { ObjectIdentifier(entry.progress) }
    }
}
