extension TaskRegistry {
    /// The tasks of one object that a cancel (or its reported completion) ended: a later finish
    /// of the same object, while it lives, is one of them arriving late (absorbed, not reported).
    struct EndedTasks {
        var token: WeakWrapper
        var count: Int
    }

    /// What a cancel took out of the registry. Its strong references keep every object it read
    /// alive until the caller has released the lock, so that no `deinit` runs under it.
    struct Cancellation {
        /// The work to cancel, after the lock.
        var work: [any NetworkActivityCancellable] = []
        /// The other objects read (tokens that cannot be cancelled, dead records' last loads).
        var keptAlive: [AnyObject] = []
    }

    /// Ends the tasks of every live entry whose object can be cancelled (a caller's
    /// ``NetworkActivityCancellable`` token, a group's key, a helper's load), remembers them for
    /// ``absorbLateFinish(_:in:)``, and returns the objects to cancel. O(entries); no caller code runs.
    mutating func finishCancellableTasks(time: inout EventTime) -> Cancellation {
        var result = Cancellation()
        Self.forgetDeadObjects(of: &cancelledTasks, keepingAlive: &result.keptAlive)
        for index in slots.indices where !slots[index].isIdle && slots[index].kind.holdsObject {
            guard let object = slots[index].token.load() else { continue }
            guard let work = object as? any NetworkActivityCancellable else {
                result.keptAlive.append(object)
                continue
            }
            result.work.append(work)
            // Before the task ends: a reading in between would count its progress as done.
            (work as? any FailsProgressWhenCancelled)?.recordCancellation()
            let key = slots[index].key
            let ended = finishEntry(at: index, ending: .cancelled, time: &time)
            cancelledTasks[key, default: EndedTasks(token: WeakWrapper(object: object), count: 0)].count += ended
        }
        takeUncountedWork(into: &result)
        return result
    }

    /// Ends one task of `key` while its work goes on, uncounted: `object` stays within a cancel's
    /// reach until a cancel takes it or it dies. Nothing is held unless a task ended (a cancelled
    /// task's late call ends none: its work was told with that cancel). Dead held work is let
    /// go once the held work has doubled since the last look (``uncountedWorkLookAt``): O(1)
    /// amortized. The live objects read go to `keptAlive`, released after the lock.
    mutating func stopCounting(
        _ key: ObjectIdentifier,
        object: any NetworkActivityCancellable,
        keepingAlive keptAlive: inout [AnyObject],
        time: inout EventTime
    ) -> TaskEvent.Outcome {
        // A cancelled operation's late call: absorbed, and its work (cancelled) is not held.
        if !cancelledTasks.isEmpty, Self.absorbLateFinish(key, in: &cancelledTasks) { return .applied }
        let held = uncountedWork[key]
        let outcome = finishKeyed(key, time: &time)
        guard outcome == .applied else {
            uncountedWork[key] = held  // a finish that found no task lets it go; a stop does not
            return outcome
        }
        if uncountedWork.count >= uncountedWorkLookAt { forgetDeadUncountedWork(keepingAlive: &keptAlive) }
        uncountedWork[key] = WeakWrapper(object: object)
        return outcome
    }

    /// A reset ends every task, not the work: each live object of an open task that can be
    /// cancelled is held as work that stopped counting (once, however many tasks it had), so
    /// that the next cancel of this node or an ancestor still stops it. Dead held work is let
    /// go. The live objects read go to `keptAlive`, released after the lock. O(entries).
    mutating func keepCancellableWorkUncounted(keepingAlive keptAlive: inout [AnyObject]) {
        forgetDeadUncountedWork(keepingAlive: &keptAlive)
        for index in slots.indices where !slots[index].isIdle && slots[index].kind.holdsObject {
            guard let object = slots[index].token.load() else { continue }
            keptAlive.append(object)
            if object is any NetworkActivityCancellable {
                uncountedWork[slots[index].key] = WeakWrapper(object: object)
            }
        }
    }

    /// Lets go of the held work whose object died, and looks again once the live work has
    /// doubled; the live objects read go to `keptAlive`.
    private mutating func forgetDeadUncountedWork(keepingAlive keptAlive: inout [AnyObject]) {
        for (key, held) in uncountedWork {
            if let live = held.object { keptAlive.append(live) } else { uncountedWork[key] = nil }
        }
        uncountedWorkLookAt = max(16, 2 * uncountedWork.count)
    }

    /// Hands the live uncounted work to `cancellation` (once per object, whatever else of it the
    /// cancel found) and lets go of all of it.
    private mutating func takeUncountedWork(into cancellation: inout Cancellation) {
        guard !uncountedWork.isEmpty else { return }
        for held in uncountedWork.values {
            guard let work = held.object as? any NetworkActivityCancellable else { continue }
            // One also open here, or in another node, is cancelled once (`IndicatorTree.cancelSubtree`).
            // A tracked iteration left counted by a reset stops at its next element.
            (work as? any FailsProgressWhenCancelled)?.recordCancellation()
            cancellation.work.append(work)
        }
        uncountedWork.removeAll()
    }

    /// ``finishKeyed(_:time:)`` found no task of `key`: `true` if it is a late finish of a task
    /// a sweep ended (absorbed), else the key's held work is let go. Out of line, and asked only
    /// when either is kept: the explicit pair's finish, which never comes here, took 3 to 6
    /// instructions more with the two steps written in `finishKeyed` (callgrind).
    @inline(never)
    mutating func finishFoundNoTask(_ key: ObjectIdentifier) -> Bool {
        if !completedTasks.isEmpty, Self.absorbLateFinish(key, in: &completedTasks) { return true }
        uncountedWork[key] = nil
        return false
    }

    /// A finish of `key`: `true` (and one fewer to absorb) if it is a late finish of a task that
    /// a cancel (`cancelledTasks`) or a sweep's completion check (`completedTasks`) ended, whose
    /// object still lives (so `key` is still its address). Off the common path.
    @inline(never)
    static func absorbLateFinish(
        _ key: ObjectIdentifier,
        in records: inout [ObjectIdentifier: EndedTasks]
    ) -> Bool {
        guard records[key] != nil else { return false }
        // The caller holds the object it finishes; if it is this record's, loading it here
        // releases nothing. If the record's object died, `key` may name a new object: no absorb.
        guard records[key]!.token.load() != nil else {
            records[key] = nil
            return false
        }
        records[key]!.count -= 1
        if records[key]!.count == 0 { records[key] = nil }
        return true
    }

    /// Lets go of the records of `records` whose object died; live objects read go to
    /// `keptAlive`, released after the lock.
    static func forgetDeadObjects(
        of records: inout [ObjectIdentifier: EndedTasks],
        keepingAlive keptAlive: inout [AnyObject]
    ) {
        for (key, var record) in records {
            if let object = record.token.load() { keptAlive.append(object) } else { records[key] = nil }
        }
    }
}
