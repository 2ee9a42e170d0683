import Foundation

/// Removing a node, a node's children, and the events on a subtree: reset, cancel and snapshot,
/// each one event, hence one hold of the driver's lock.
extension IndicatorTree {
    /// The manager of `id` is gone: its remaining tasks end in every ancestor, it leaves its
    /// parent's children, and its id goes stale. Returns whether the tree's hop must be enqueued,
    /// and the node as it was, to release after the lock: its own diagnostics handler and its
    /// progress parts may hold a caller's last reference to an object whose `deinit` calls in.
    /// Its descendants are gone already (each keeps its parent's manager alive); its outputs and
    /// timers are ``OutputDelivery``'s to stop, if it has an outlet (`removed.hasOutlet`).
    mutating func removeNode(_ id: NodeID, time: inout EventTime) -> (needsHop: Bool, removed: Node?) {
        guard contains(id) else { return (false, nil) }
        let (parent, ended, newer, older) = withNode(Int(id.index)) {
            ($0.parent, $0.registry.activeTaskCount, $0.newerSibling, $0.olderSibling)
        }
        var needsHop = false
        let wasWatched = withNode(Int(id.index)) { $0.taskEventListeners > 0 }
        if withNode(Int(id.index), { $0.registry.eventLog != nil }) { needsHop = logRemoval(of: id, time: &time) }
        if parent >= 0 {
            // Out of its parent's linked children, in O(1).
            if newer >= 0 {
                withNode(Int(newer)) { $0.olderSibling = older }
            } else {
                withNode(Int(parent)) { $0.newestChild = older }
            }
            if older >= 0 { withNode(Int(older)) { $0.newerSibling = newer } }
            if ended > 0, rollUp(-ended, from: parent, time: &time) { needsHop = true }
        }
        // Empty the node and move it to the next generation, which no id names yet: `contains`
        // refuses every id of the removed node. A scope's index waits for reuse.
        var removed = Node(diagnosticsHandler: Self.silent, parent: -1)
        removed.generation = id.generation &+ 1
        withNode(Int(id.index)) { swap(&$0, &removed) }
        if id.index > 0 { freeIndices.append(id.index) }
        if wasWatched { refreshRecording() }
        return (needsHop, removed)
    }

    /// The children of the node at `index`, in the order they were added.
    func children(ofNodeAt index: Int32) -> [Int32] {
        var children: [Int32] = []
        var child = borrowNode(Int(index)) { $0.newestChild }
        while child >= 0 {
            children.append(child)
            child = borrowNode(Int(child)) { $0.olderSibling }
        }
        return children.reversed()
    }

    /// The indices of `id`'s subtree, children before their parent (`id` last).
    func subtree(of id: NodeID) -> [Int32] {
        var order: [Int32] = []
        func visit(_ index: Int32) {
            for child in children(ofNodeAt: index) { visit(child) }
            order.append(index)
        }
        visit(id.index)
        return order
    }

    /// Ends every task of the node `id` and of all its descendants, at once; the live objects
    /// read go to `keptAlive`, released after the lock.
    mutating func resetSubtree(
        of id: NodeID,
        time: inout EventTime,
        keepingAlive keptAlive: inout [AnyObject]
    ) -> Bool {
        changeSubtree(of: id, time: &time) { node, time in
            node.registry.finishEverything(time: &time, keepingAlive: &keptAlive)
            node.batch.noteTasksEnded { _ in true }
        }
    }

    /// Ends the tasks whose work can be cancelled in `id`'s subtree, at once; returns the work,
    /// each object once however many nodes count it, and the objects that leave with it (see
    /// `TaskRegistry+Cancel.swift`).
    mutating func cancelSubtree(of id: NodeID, time: inout EventTime) -> (TaskRegistry.Cancellation, Bool) {
        var cancellation = TaskRegistry.Cancellation()
        // Each part still open that the cancel stops reads cancelled from before its task ends,
        // in this hold: no reading between its end and its `cancel()` counts it as done, and one
        // begun just before the hold is found listed (its begin listed it). A tracked URLSession
        // task's reads failed until it completes; a caller's cancellable token's, for good. (A
        // group's, a load's and an iteration's record their failure as the registry ends them.)
        for part in progressParts(of: id) where openTaskCount(of: part, keepingAlive: &cancellation.keptAlive) > 0 {
            if let progress = part.progress as? URLSessionTaskProgress {
                progress.cancelIsComing()
            } else if part.failure.record == nil, part.token is any NetworkActivityCancellable {
                // Its token is in `keptAlive` already (the `where` clause's `openTaskCount`).
                part.isCancelledByManager = true
            }
        }
        var seen = Set<ObjectIdentifier>()
        let needsHop = changeSubtree(of: id, time: &time) { node, time in
            let ended = node.registry.finishCancellableTasks(time: &time)
            cancellation.work += ended.work.filter { seen.insert(ObjectIdentifier($0)).inserted }
            cancellation.keptAlive += ended.keptAlive
        }
        return (cancellation, needsHop)
    }

    /// Runs `change` on each registry of `id`'s subtree (children first), as one task event each,
    /// so that a node's schedule hears of its descendants' changes before its own.
    private mutating func changeSubtree(
        of id: NodeID,
        time: inout EventTime,
        _ change: (inout Node, inout EventTime) -> Void
    ) -> Bool {
        guard contains(id) else { return false }
        var needsHop = false
        for index in subtree(of: id) {
            let node = NodeID(index: index, generation: node(at: Int(index)).generation)
            if changeTasks(in: node, time: &time, ifGone: (), change).1 { needsHop = true }
        }
        return needsHop
    }

    /// One record per open entry of `id` and one per child with tasks, holding the child's own
    /// records the same way, and `id`'s count: one consistent moment of the subtree. The live
    /// objects whose type names a default label go to `keptAlive`, to be released after the lock.
    func snapshot(
        of id: NodeID,
        keepingAlive keptAlive: inout [AnyObject]
    ) -> (records: [TaskRegistry.ActivityRecord], count: Int) {
        guard contains(id) else { return ([], 0) }
        return (records(ofNodeAt: Int(id.index), keepingAlive: &keptAlive), node(at: Int(id.index)).activeTaskCount)
    }

    /// The records of the node at `index` and, nested, of its children with tasks.
    private func records(
        ofNodeAt index: Int,
        keepingAlive keptAlive: inout [AnyObject]
    ) -> [TaskRegistry.ActivityRecord] {
        let snapshotted = node(at: index)
        var records = snapshotted.registry.records(keepingAlive: &keptAlive)
        for childIndex in children(ofNodeAt: Int32(index)) where node(at: Int(childIndex)).activeTaskCount > 0 {
            let child = node(at: Int(childIndex))
            records.append(
                TaskRegistry.ActivityRecord(
                    label: child.label ?? ActivityLabel.unlabelledScope,
                    kind: .childManager,
                    taskCount: child.activeTaskCount,
                    startedAt: child.activeSince,
                    isTokenAlive: true,
                    children: self.records(ofNodeAt: Int(childIndex), keepingAlive: &keptAlive)
                )
            )
        }
        return records
    }
}
