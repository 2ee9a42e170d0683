import Foundation

extension TaskRegistry {
    /// What a sweep found. Its strong references (in ``keptAlive`` and
    /// ``completionCandidates``) keep the objects alive until the caller has released the lock,
    /// so that no `deinit` (the caller's code) runs while it is held.
    struct SweepResult {
        var keptAlive: [AnyObject] = []
        /// Live tokens of kind ``TaskKind/completionReportingToken``, to ask outside the lock, each
        /// with its open tasks when the sweep found it.
        var completionCandidates: [CompletionCandidate] = []
        /// The tasks that turned stale.
        var staleTasks: [StaleTask] = []
        /// For stale tasks: the scopes from the root down to the swept node (set by the tree).
        var scopePath: [String] = []
    }

    /// A token a sweep asks whether it is done: its key, the token, and its open tasks then.
    typealias CompletionCandidate = (key: ObjectIdentifier, object: AnyObject, tasks: Int)

    /// A task that turned stale, with what keeps it open (see ``ActivityLabel``).
    struct StaleTask {
        /// `nil` for the push counter and for an opaque token (a pinned slot).
        let key: ObjectIdentifier?
        let record: ActivityRecord
        let keptOpenBy: String
    }

    /// Removes the entries whose objects died, and collects the live objects (to release after
    /// the lock), the candidates for a completion check, and the tasks older than
    /// `staleThreshold` that were not reported yet. O(entries).
    mutating func sweep(now: TimeInterval, staleThreshold: TimeInterval?) -> SweepResult {
        var result = SweepResult()
        result.keptAlive.reserveCapacity(sweptEntryCount)
        if !completedTasks.isEmpty { Self.forgetDeadObjects(of: &completedTasks, keepingAlive: &result.keptAlive) }
        var deadIndices: [Int] = []
        for index in slots.indices where !slots[index].isIdle {
            var liveObject: AnyObject?
            if slots[index].kind.isSwept {
                guard let object = slots[index].token.load() else {
                    deadIndices.append(index)
                    continue
                }
                if slots[index].kind == .completionReportingToken {
                    // Begun again since a sweep ended its tasks: a finish beyond its new ones is
                    // misuse again (not forgotten at the begin, whose every instruction counts).
                    if !completedTasks.isEmpty { completedTasks[slots[index].key] = nil }
                    slots[index].isAskedForCompletion = true
                    result.completionCandidates.append((slots[index].key, object, slots[index].count))
                } else {
                    result.keptAlive.append(object)
                }
                liveObject = object
            }
            if let staleThreshold, !slots[index].isStaleReported,
                now - slots[index].startedAt >= staleThreshold
            {
                slots[index].isStaleReported = true
                let key = slots[index].isPinned ? nil : slots[index].key
                let keptOpenBy = ActivityLabel.whatKeepsOpen(slots[index].kind, object: liveObject)
                result.staleTasks.append(
                    StaleTask(key: key, record: record(at: index, object: liveObject), keptOpenBy: keptOpenBy)
                )
            }
        }
        var time = EventTime(preread: now)
        for index in deadIndices {
            finishEntry(at: index, ending: .swept, time: &time)
        }
        compactIfSparse()
        if let staleThreshold, pushCount > 0, !isPushStaleReported, now - pushStartedAt >= staleThreshold {
            isPushStaleReported = true
            result.staleTasks.append(StaleTask(key: nil, record: pushRecord, keptOpenBy: ActivityLabel.pushKeptOpen))
        }
        return result
    }

    /// After a sweep: when most slots are free, moves the entries forward into the free slots, in
    /// their order, and cuts the free tail, so that sweeps and snapshots stay proportional to the
    /// live entries. A slot pinned to an opaque token never moves (its token holds the slot):
    /// entries move around it.
    private mutating func compactIfSparse() {
        guard slots.count > 64 else { return }  // never sparse enough: no count of the pinned
        let entries = entryCount
        let freeSlotCount = slots.count - entries
        guard freeSlotCount > 64, freeSlotCount > entries else { return }
        var target = 0  // every slot below `target` holds an entry
        for index in slots.indices where slots[index].isInUse && !slots[index].isPinned {
            while target < index, slots[target].isInUse { target += 1 }
            guard target < index else { continue }  // no free slot before it: it stays
            slots.swapAt(target, index)  // the free slot's blank content goes to `index`
            // Generations belong to slots, not to entries: they stay where they were.
            (slots[target].generation, slots[index].generation) = (
                slots[index].generation, slots[target].generation
            )
            table.set(Int32(target), for: slots[target].key)
        }
        let cut = (slots.lastIndex { $0.isInUse } ?? -1) + 1
        forgetGenerations(ofSlotsFrom: cut)
        slots.removeSubrange(cut...)
        firstFreeSlot = -1
        for index in slots.indices.reversed() where !slots[index].isInUse {
            slots[index].nextFreeSlot = firstFreeSlot
            firstFreeSlot = Int32(index)
        }
    }

    /// The sweep's last step: ends the tasks of the tokens that reported completion, at most as
    /// many as each had when asked, and only while its entry is the one asked (its token's, not
    /// filled again since): a token of yours begun again meanwhile, on another thread, keeps its
    /// new run open. Remembers the ended tasks while the token lives, so that its own late finish
    /// (an `Operation`'s completion code, after the sweep) is absorbed, not reported.
    mutating func finishCompleted(_ completed: [CompletionCandidate], time: inout EventTime) {
        for (key, object, asked) in completed {
            guard let position = table.position(of: key) else { continue }
            let index = Int(table.value(at: position))
            guard slots[index].isAskedForCompletion, slots[index].token.load() === object else { continue }
            let ended = min(asked, slots[index].count)
            if ended == slots[index].count {
                finishEntry(at: index, tablePosition: position, ending: .finished, time: &time)
            } else {
                // The tasks left are the new run's, begun while the sweep asked: timed from now.
                slots[index].count -= ended
                activeTaskCount -= ended
                slots[index].startedAt = time.now()
                slots[index].isStaleReported = false
            }
            completedTasks[key, default: EndedTasks(token: WeakWrapper(object: object), count: 0)].count += ended
        }
    }

    /// A begin found its key's entry owned by a dead object: that entry ends, swept, at `now`.
    /// Out of line, off the begin's common path.
    @inline(never)
    mutating func finishDeadEntry(at index: Int, now: TimeInterval) {
        var time = EventTime(preread: now)
        finishEntry(at: index, ending: .swept, time: &time)
    }
}
