import Foundation

extension TaskRegistry {
    /// Removes the entries whose objects died, and collects the live objects (to release after
    /// the lock), the candidates for a completion check, and the tasks older than
    /// `staleThreshold` that were not reported yet. O(entries).
    mutating func sweep(now: TimeInterval, staleThreshold: TimeInterval?) -> SweepResult {
        var result = SweepResult()
        result.keptAlive.reserveCapacity(sweptEntryCount)
        var deadIndices: [Int] = []
        for index in entries.indices where !entries[index].isFree {
            var liveObject: AnyObject?
            if entries[index].kind.isSwept {
                guard let object = entries[index].token.load() else {
                    deadIndices.append(index)
                    continue
                }
                if entries[index].kind == .completionReportingToken {
                    result.completionCandidates.append((entries[index].key, object))
                } else {
                    result.keptAlive.append(object)
                }
                liveObject = object
            }
            if let staleThreshold, !entries[index].isStaleReported,
                now - entries[index].startedAt >= staleThreshold
            {
                entries[index].isStaleReported = true
                let label = ActivityLabel.of(entries[index], label: label(at: index), object: liveObject)
                let key = entries[index].isPinned ? nil : entries[index].key
                result.staleTasks.append((key, label, now - entries[index].startedAt))
            }
        }
        for index in deadIndices {
            remove(at: index)
        }
        compactIfSparse()
        if let staleThreshold, pushCount > 0, !isPushStaleReported, now - pushStartedAt >= staleThreshold {
            isPushStaleReported = true
            result.staleTasks.append((nil, ActivityLabel.push, now - pushStartedAt))
        }
        return result
    }

    /// After a sweep: when most slots are free, moves the entries forward into the free slots, in
    /// their order, and cuts the free tail, so that sweeps and snapshots stay proportional to the
    /// live entries. A slot pinned to an opaque token never moves (its token holds the slot):
    /// entries move around it.
    private mutating func compactIfSparse() {
        let freeSlotCount = entries.count - entryCount
        guard freeSlotCount > 64, freeSlotCount > entryCount else { return }
        var target = 0  // every slot below `target` holds an entry
        for index in entries.indices where entries[index].isInUse && !entries[index].isPinned {
            while target < index, entries[target].isInUse { target += 1 }
            guard target < index else { continue }  // no free slot before it: it stays
            entries.swapAt(target, index)  // the free slot's blank content goes to `index`
            // Generations belong to slots, not to entries: they stay where they were.
            (entries[target].generation, entries[index].generation) = (
                entries[index].generation, entries[target].generation
            )
            table.set(Int32(target), for: entries[target].key)
        }
        let cut = (entries.lastIndex { $0.isInUse } ?? -1) + 1
        forgetGenerations(ofSlotsFrom: cut)
        entries.removeSubrange(cut...)
        firstFreeSlot = -1
        for index in entries.indices.reversed() where !entries[index].isInUse {
            entries[index].nextFreeSlot = firstFreeSlot
            firstFreeSlot = Int32(index)
        }
    }
}
