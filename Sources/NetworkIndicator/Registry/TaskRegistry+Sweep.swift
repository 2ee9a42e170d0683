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
                let label = ActivityLabel.of(entries[index], object: liveObject, labels: labels)
                result.staleTasks.append((entries[index].key, label, now - entries[index].startedAt))
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

    /// After a sweep: when most slots are free, packs the entries to the front, so that sweeps
    /// and snapshots stay proportional to the live entries.
    private mutating func compactIfSparse() {
        let freeSlotCount = entries.count - entryCount
        guard freeSlotCount > 64, freeSlotCount > entryCount else { return }
        var packed: [Entry] = []
        packed.reserveCapacity(entryCount)
        for index in entries.indices where !entries[index].isFree {
            table.set(Int32(packed.count), for: entries[index].key)
            packed.append(entries[index])
        }
        entries = packed
        firstFreeSlot = -1
    }
}
