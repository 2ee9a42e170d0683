import Foundation

/// One manager's determinate progress: the batch of the tasks begun with a `Progress` in the
/// manager or any of its descendants (``Batch``, kept in the manager's node of the tree), read
/// and folded when asked (``snapshot()``), and the listeners polled while such tasks exist
/// (`ProgressRollUp+Polling.swift`).
///
/// It holds no state and no lock of its own: the parts sit in the tree, under the tree's lock,
/// beside the tasks they measure. The engine never calls it, so a task without progress pays
/// nothing, and a progress update costs nothing until someone reads. Each reading takes the
/// tree's lock twice: once to list the parts, once to store their readings and fold; the
/// `Progress` objects are read between the two, outside every lock. Nobody's code runs under
/// it: the tokens loaded and the parts folded there are released after it, and listeners are
/// told outside.
final class ProgressRollUp: Sendable {
    /// The manager's driver: its tree, its node and its scheduler's clock.
    let driver: IndicatorDriver

    init(driver: IndicatorDriver) {
        self.driver = driver
    }

    /// How many tasks with progress the batch still lists (running, or ended and not yet
    /// seen to be).
    var partCount: Int { driver.withTree { $0.progressParts(of: driver.node).count } }

    /// Folds the parts of this manager and of every ancestor that ended before a task with
    /// progress begins, so that whether a batch is over, and whether a token begun again had
    /// ended, never depends on whether anyone read. Cheaper than a reading: only the parts whose
    /// reading the fold may need are read (a `Progress` read costs several times a lock).
    /// `withSubtree`, before a cancel of this manager's subtree, folds every descendant's batch
    /// too, so that a scope's own bar finds the parts the group's rules ended gone as well.
    func settle(withSubtree: Bool = false) {
        _ = readAndFold(settling: true, withSubtree: withSubtree)
    }

    /// Lists `entry`, just begun in this manager, in its batch and in each ancestor's; returns
    /// the first reading (`nil` for a caller's plain `Progress` off the main queue).
    func add(_ entry: ProgressEntry) -> ProgressReading? {
        let reading = entry.read()
        let now = driver.scheduler.now
        driver.withTree { $0.addPart(entry, reading: reading, now: now) }
        return reading
    }

    /// Before a cancel of this manager's subtree (``NetworkIndicatorManager/cancelNetworkTasks()``):
    /// tells each tracked URLSession task still open that its cancel is coming, so that no reading
    /// between its end and its `cancel()` counts it as done. A task that a finish ends between
    /// this and the cancel reads failed until it completes.
    func cancelIsComing() {
        var keptAlive: [AnyObject] = []
        let parts = driver.withTree { tree in
            tree.progressParts(of: driver.node).filter { tree.openTaskCount(of: $0, keepingAlive: &keptAlive) > 0 }
        }
        withExtendedLifetime(keptAlive) {}
        for part in parts {
            (part.progress as? URLSessionTaskProgress)?.cancelIsComing()
        }
    }

    /// What ``NetworkIndicatorManager/progressSnapshot()`` returns; leaving out the subtrees of
    /// `excludedScopes` (``NetworkIndicatorManager/progressSnapshot(excluding:)``).
    func snapshot(excluding excludedScopes: [IndicatorTree.NodeID] = []) -> NetworkProgressSnapshot {
        let (summary, hasUnmeasuredTasks, _) = readAndFold(
            settling: false,
            excludingScopes: excludedScopes
        )
        guard hasUnmeasuredTasks || summary.isRunning else { return NetworkProgressSnapshot() }
        let now = driver.scheduler.now
        return NetworkProgressSnapshot(summary: summary, hasIndeterminateWork: hasUnmeasuredTasks, now: now)
    }

    /// Whether the batch has ended (none runs now) and the last one that ended had every unit
    /// of each part (``Batch/lastEndedWasComplete``), after a reading of every part; leaving out
    /// `excludedScopes`, whether the parts begun outside them ended so
    /// (``Batch/ownPartsWereComplete(excluding:)``), while the batch may run on.
    func lastBatchEndedComplete(excluding excludedScopes: [IndicatorTree.NodeID] = []) -> Bool {
        let read = readAndFold(settling: false, excludingScopes: excludedScopes)
        return !read.summary.isRunning && read.lastBatchWasComplete
    }

    /// Reads the parts a settle needs (a `Progress` read costs several times a lock): every one
    /// that ended or shares its token, and running ones in order until one of known size runs in
    /// a node; that one keeps the node's batch running, so the running parts after it are left
    /// unread, counted at their last reading.
    private func readForSettling(_ parts: [IndicatorTree.PartToRead]) -> [IndicatorTree.PartReading]? {
        // The lowest position in the chain where a running part of known size was read: a part
        // first listed at a position is listed in every node above, so each of them runs.
        var runsFrom = Int.max
        let readings = parts.map { part -> IndicatorTree.PartReading in
            guard !part.mayGoUnread || part.position < runsFrom else { return .init(part: part, reading: nil) }
            let reading = part.entry.read()
            if part.mayGoUnread, let reading, reading.isDeterminate, !reading.isCancelled {
                runsFrom = min(runsFrom, part.position)
            }
            return .init(part: part, reading: reading)
        }
        // Nothing to fold while every batch runs and no part leaves: the common case.
        let leaves = readings.contains {
            !$0.part.mayGoUnread || $0.reading?.isCancelled == true || $0.part.entry.hasFailed
        }
        return leaves || runsFrom > 0 ? readings : nil
    }

    /// Lists the parts to read, reads them outside the lock, then stores the readings and folds.
    func readAndFold(
        settling: Bool,
        withSubtree: Bool = false,
        excludingScopes excludedScopes: [IndicatorTree.NodeID] = []
    ) -> (summary: Batch.Summary, hasUnmeasuredTasks: Bool, lastBatchWasComplete: Bool) {
        let node = driver.node
        // The tokens loaded and the parts folded under the lock are released just after it, not
        // later: a token kept through the reading would keep its task open meanwhile.
        var loaded: [AnyObject] = []
        let parts = driver.withTree {
            $0.partsToRead(from: node, settling: settling, withSubtree: withSubtree, keepingAlive: &loaded)
        }
        loaded = []
        if settling && parts.isEmpty { return (Batch.Summary(), false, false) }
        guard
            let readings = settling ? readForSettling(parts) : parts.map({ .init(part: $0, reading: $0.entry.read()) })
        else { return (Batch.Summary(), false, false) }
        let now = driver.scheduler.now
        let result = driver.withTree {
            $0.foldProgress(
                from: node,
                settling: settling,
                withSubtree: withSubtree,
                readings: readings,
                now: now,
                excludingScopes: excludedScopes,
                keepingAlive: &loaded
            )
        }
        loaded = []
        return result
    }
}
