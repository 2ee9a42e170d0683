import Foundation

/// Progress parts in the tree: each node keeps the batch of the tasks with progress begun in it
/// or below it (``Node/batch``), beside its tasks and under the same lock, so that every fold
/// sees the parts listed now and the tasks open now, in one hold.
///
/// A reader works in three steps (``ProgressRollUp``):
/// ``partsToRead(from:settling:keepingAlive:)`` lists what to read under the lock; the `Progress`
/// objects are read outside it (they may run code of their own);
/// ``foldProgress(from:settling:readings:now:excludingScopes:keepingAlive:)`` stores the readings and folds every
/// listed part under the lock, those read and those not. A part that ended after the list was
/// taken is not folded as ended on a reading that may predate its end: it waits for the next.
extension IndicatorTree {
    /// A part listed to be read, then read outside the lock: whether it had ended when listed,
    /// the position in the chain of the first node listing it (it is listed in every node
    /// above), and whether a reading of it may be left out of a settle (it runs, and its token
    /// has no other part).
    struct PartToRead {
        let entry: ProgressEntry
        let hadEnded: Bool
        var position = 0
        var mayGoUnread = false
        /// Whether the part's last reading had a known size: a settle that first reads its size
        /// folds, so that the batch starts then.
        var wasDeterminate = false
        /// Its failure, copied under the lock and asked outside it (``ProgressEntry/Failure/hasFailed``):
        /// a failure recorded during the reading counts, so that a failed part keeps no batch
        /// running.
        var failure = ProgressEntry.Failure()
        /// Its reading, made outside the lock: `nil` while unread, and for a caller's plain
        /// `Progress` read off the main queue.
        var reading: ProgressReading?

        /// This part, read now (``ProgressEntry/read()``).
        func read() -> PartToRead {
            var read = self
            read.reading = entry.read()
            return read
        }
    }

    // MARK: - Events

    /// Lists `entry`, just begun in its node, as a part of that node's batch and of each
    /// ancestor's, with its first `reading`. A part of the same progress whose tasks all ended,
    /// that does not leave cancelled, and still listed in such a batch (it waits there for a reading after its
    /// end: a plain `Progress` off the main queue) is begun again by this task: the new part
    /// takes its units on, once, as it would an ended part's (``Batch/add(_:reading:openTasks:resuming:now:)``),
    /// so the old one leaves that batch uncounted. The tokens loaded go to `keptAlive`.
    mutating func addPart(
        _ entry: ProgressEntry,
        reading: ProgressReading?,
        now: TimeInterval,
        keepingAlive keptAlive: inout [AnyObject]
    ) {
        if let reading { entry.reading = reading }
        // A group's operations: what its later finishes are counted from.
        let openTasks = entry.isGroupPart ? openTaskCount(entry.task.reference, in: entry.task.node) : nil
        for index in chain(from: entry.task.node) {
            let resumed = borrowNode(Int(index)) { $0.batch.parts }.filter {
                $0.progress === entry.progress && !$0.leavesCancelled
                    && openTaskCount(of: $0, keepingAlive: &keptAlive) == 0
            }
            withNode(Int(index)) {
                $0.batch.add(entry, reading: entry.reading, openTasks: openTasks, resuming: resumed, now: now)
            }
        }
    }

    /// The parts to read before a fold of `id`: all of them or, `settling` before a task with
    /// progress begins in `id`, those of `id` and of its ancestors, each once. The tokens loaded
    /// go to `keptAlive`, to release after the lock.
    func partsToRead(
        from id: NodeID,
        settling: Bool,
        withSubtree: Bool = false,
        keepingAlive keptAlive: inout [AnyObject]
    ) -> [PartToRead] {
        guard contains(id) else { return [] }
        var parts: [PartToRead] = []
        let nodes = nodesToFold(from: id, settling: settling, withSubtree: withSubtree)
        // A token whose parts repeat in any batch of the chain, or that has parts done while its
        // operations are open: its surplus needs them all read.
        var repeated = Set<TaskKey>()
        for index in nodes {
            repeated.formUnion(borrowNode(Int(index)) { $0.batch.tokensToReadWhole })
        }
        // Each part once: a part listed below is listed in every batch above (a set, not a scan
        // of `parts` per part: O(parts), not O(parts²), per settle in a scope; none for one node).
        var listed = Set<ObjectIdentifier>()
        for (position, index) in nodes.enumerated() {
            for entry in borrowNode(Int(index), { $0.batch.parts })
            where nodes.count == 1 || listed.insert(ObjectIdentifier(entry)).inserted || position == 0 {
                let open = openTaskCount(of: entry, keepingAlive: &keptAlive)
                parts.append(
                    PartToRead(
                        entry: entry,
                        hadEnded: open == 0,
                        position: position,
                        mayGoUnread: open > 0 && !repeated.contains(entry.task) && !entry.isOutlived,
                        wasDeterminate: entry.reading.isDeterminate,
                        failure: entry.failure
                    )
                )
            }
        }
        return parts
    }

    /// Stores `readings` and folds the batch of `id` (and, `settling`, of each ancestor) from
    /// every part it lists now. Returns the batch of `id`, whether some open task of `id`'s
    /// subtree is not measured by it (both leave out the subtrees of `excludedScopes`), and
    /// whether its last ended batch had every unit (``Batch/lastEndedWasComplete``). The
    /// excluded scopes are child scopes whose own overlays draw their tasks; their parts are
    /// folded all the same. The tokens loaded and the parts folded go to `keptAlive`, to
    /// release after the lock (a part that leaves may hold a caller's last `Progress`).
    mutating func foldProgress(
        from id: NodeID,
        settling: Bool,
        withSubtree: Bool = false,
        readings: [PartToRead],
        now: TimeInterval,
        excludingScopes excludedScopes: [NodeID] = [],
        keepingAlive keptAlive: inout [AnyObject]
    ) -> (summary: Batch.Summary, hasUnmeasuredTasks: Bool, lastBatchWasComplete: Bool) {
        guard contains(id) else { return (Batch.Summary(), false, false) }
        // Noted on each entry for this fold, cleared as it ends: each listed part asks in O(1),
        // with no scan of the readings (O(parts²) a fold) and no set to allocate.
        for part in readings {
            guard let reading = part.reading else { continue }
            part.entry.reading = reading
            part.entry.foldReading = part.hadEnded ? .afterEnd : .fresh
        }
        defer { for part in readings { part.entry.foldReading = .none } }
        let (excluded, excludedTaskCount) = scopes(excludedScopes, below: id)
        var summary = Batch.Summary()
        for index in nodesToFold(from: id, settling: settling, withSubtree: withSubtree) {
            let parts = withNode(Int(index)) { $0.batch.parts }  // in place, not a node's copy
            keptAlive.append(contentsOf: parts as [AnyObject])
            let samples = parts.map { entry in
                var reading = entry.reading
                if entry.leavesCancelled { reading.isCancelled = true }
                return Batch.Sample(
                    entry: entry,
                    openTasks: openTaskCount(of: entry, keepingAlive: &keptAlive),
                    reading: reading,
                    isFresh: entry.foldReading != .none,
                    wasReadAfterEnd: entry.foldReading == .afterEnd
                )
            }
            // A group's parts done while its operations are open measure them, listed or not.
            // The fold may let go of the parts kept for them: released after the lock.
            let (keptGroupParts, unlisted) = withNode(Int(index)) { $0.batch.groupPartsToCount }
            keptAlive.append(contentsOf: keptGroupParts as [AnyObject])
            var unlistedOpenTasks: [TaskKey: Int] = [:]
            for entry in unlisted { unlistedOpenTasks[entry.task] = openTaskCount(of: entry, keepingAlive: &keptAlive) }
            let folded = withNode(Int(index)) {
                $0.batch.fold(samples, unlistedOpenTasks: unlistedOpenTasks, now: now)
            }
            guard index == id.index else { continue }
            summary = folded
            if !excluded.isEmpty {
                summary = borrowNode(Int(index)) { $0.batch.summary(of: samples, excluding: excluded) }
            }
        }
        var unmeasured = activeTaskCount(of: id) - excludedTaskCount
        for tasks in summary.measured {
            unmeasured -= min(openTaskCount(tasks.task.reference, in: tasks.task.node), tasks.cap)
        }
        let wasComplete = borrowNode(Int(id.index)) { node in
            excluded.isEmpty
                ? node.batch.lastEndedWasComplete
                : node.batch.ownPartsWereComplete(excluding: excluded)
        }
        return (summary, unmeasured > 0, wasComplete)
    }

    /// In the hold of a begin with progress in `id`, before its event: if a part listed in `id`
    /// or an ancestor had its tasks all end since the begin's settle (which folded every part
    /// ended before it), folds those batches as a settle does, without new readings: the part
    /// ended before the new task began, so it waits for a reading after its end, and a batch
    /// none of whose parts runs ends now, not with the new part in it. The tokens loaded and
    /// the parts folded go to `keptAlive`.
    mutating func foldPartsEndedSinceSettle(
        from id: NodeID,
        now: TimeInterval,
        keepingAlive keptAlive: inout [AnyObject]
    ) {
        guard contains(id) else { return }
        // Up the chain, each node's parts read in place (a copy of the node retains and releases
        // every field; the chain's array is not needed).
        var index = id.index
        var endedSince = false
        while index >= 0, !endedSince {
            let (parts, parent) = withNode(Int(index)) { ($0.batch.parts, $0.parent) }
            endedSince = parts.contains { !$0.hasEnded && openTaskCount(of: $0, keepingAlive: &keptAlive) == 0 }
            index = parent
        }
        guard endedSince else { return }
        _ = foldProgress(from: id, settling: true, readings: [], now: now, keepingAlive: &keptAlive)
    }

    /// Those of `scopes` that lie below `id` (others are ignored), and their open tasks, each
    /// counted once, at the scopes that no other of `scopes` contains.
    private func scopes(_ scopes: [NodeID], below id: NodeID) -> (nodes: Set<NodeID>, taskCount: Int) {
        guard !scopes.isEmpty else { return ([], 0) }
        // Each scope with its ancestors, read once.
        let below = Set(scopes).filter(contains).map { ($0, chain(ofNodeAt: $0.index).dropFirst()) }
            .filter { $0.1.contains(id.index) }
        let nodes = Set(below.map(\.0))
        let taskCount = below.reduce(0) { total, scope in
            let outer = scope.1.contains { nodes.contains(NodeID(index: $0, generation: node(at: Int($0)).generation)) }
            return outer ? total : total + activeTaskCount(of: scope.0)
        }
        return (nodes, taskCount)
    }

    /// Sets whether `id` has progress listeners, and returns whether the poll it wants changed
    /// (then noted as asked for).
    mutating func progressPollingChanged(of id: NodeID, hasListeners: Bool? = nil) -> Bool {
        guard contains(id) else { return false }
        return withNode(Int(id.index)) { node in
            if let hasListeners { node.hasProgressListeners = hasListeners }
            let wanted = Self.pollInterval(wantedBy: node)
            guard wanted != node.progressPollInterval else { return false }
            node.progressPollInterval = wanted
            return true
        }
    }

    /// The interval `node`'s progress poll should run at: none without listeners or listed
    /// parts, the fast one while a batch runs, the slow one while a listed part of unknown size
    /// cannot tell when its total becomes known, none otherwise.
    private static func pollInterval(wantedBy node: Node) -> TimeInterval? {
        guard node.hasProgressListeners, !node.batch.parts.isEmpty else { return nil }
        if node.batch.startedAt != nil { return ProgressRollUp.pollInterval }
        return node.batch.parts.contains { $0.sizeSignal == nil } ? ProgressRollUp.unknownSizePollInterval : nil
    }

    // MARK: - Reads

    /// The parts `id`'s batch lists.
    func progressParts(of id: NodeID) -> [ProgressEntry] {
        contains(id) ? borrowNode(Int(id.index)) { $0.batch.parts } : []
    }

    /// The tasks open under `entry`'s token in its node: none once the token is gone, nor once
    /// they were all found ended (``ProgressEntry/hasEnded``, noted here). The token loaded goes
    /// to `keptAlive` (see ``ProgressEntry/token``).
    func openTaskCount(of entry: ProgressEntry, keepingAlive keptAlive: inout [AnyObject]) -> Int {
        // Alive token first: only then is the key certainly still this token's in the registry.
        guard !entry.hasEnded else { return 0 }
        guard !entry.tasksEndedAtOnce, let token = entry.token else {
            // Ended at once, or gone with its tasks: noted, so that no later begin finds it
            // newly ended.
            entry.hasEnded = true
            return 0
        }
        keptAlive.append(token)
        let open = openTaskCount(entry.task.reference, in: entry.task.node)
        if open == 0 { entry.hasEnded = true }
        return open
    }

    /// The nodes whose batches a fold of `id` folds: `id`'s alone or, `settling`, `id`'s and each
    /// ancestor's, then (`withSubtree`, before a cancel of `id`'s subtree) each descendant's.
    private func nodesToFold(from id: NodeID, settling: Bool, withSubtree: Bool) -> [Int32] {
        guard settling else { return [id.index] }
        return withSubtree ? chain(from: id) + subtree(of: id).dropLast() : chain(from: id)
    }

    /// The indices of `id` and of each of its ancestors, `id` first; none for a stale id.
    private func chain(from id: NodeID) -> [Int32] {
        contains(id) ? chain(ofNodeAt: id.index) : []
    }

    /// The indices of the node at `index` and of each of its ancestors, that node first.
    func chain(ofNodeAt index: Int32) -> [Int32] {
        var indices: [Int32] = [index]
        var next = borrowNode(Int(index)) { $0.parent }
        while next >= 0 {
            indices.append(next)
            next = borrowNode(Int(next)) { $0.parent }
        }
        return indices
    }
}

// MARK: - A listed part, an ended one

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

    /// What the parts that ended in a batch count, summed.
    struct EndedUnits {
        var completed: Double = 0
        var total: Double = 0
        var unitsBefore: Double = 0

        init() {}

        init(_ parts: [EndedPart]) {
            for part in parts { add(completed: part.completed, total: part.total, unitsBefore: part.unitsBefore) }
        }

        mutating func add(completed: Double, total: Double, unitsBefore: Double) {
            self.completed += completed
            self.total += total
            self.unitsBefore += unitsBefore
        }
    }

    /// An ended part, for its progress to take its units back if it is begun again. Its weak
    /// reference is loaded only once its identity matches a progress being added, which the
    /// caller holds: a load under the lock never releases a caller's last reference.
    struct EndedPart: Sendable {
        let identity: ObjectIdentifier
        weak var progress: Progress?
        /// Where its task began (``ProgressEntry/scopes``).
        let scopes: [IndicatorTree.NodeID]
        let completed: Double
        let total: Double
        /// Of ``completed``, the units it had done when the batch first saw its size.
        var unitsBefore: Double = 0
        /// Cancelled or failed (or left unread at its batch's end): it counts no unit
        /// (``ownPartsWereComplete(excluding:)``).
        var wasCancelled = false

        /// Paused short of its total, or cancelled: the batch is not complete unless it is
        /// resumed.
        var isShort: Bool { completed < total || wasCancelled }

        /// A part of `sample` left unread at its batch's end: short, since no reading after its
        /// end said it had every unit.
        static func unread(_ sample: Sample) -> EndedPart {
            EndedPart(
                identity: sample.identity,
                progress: nil,
                scopes: sample.entry.scopes,
                completed: 0,
                total: 0,
                wasCancelled: true
            )
        }
    }
}
