import Foundation

/// The events that run on the main queue: the tree's hop, a node's delay timer and the sweep's two
/// steps. Each returns plain data; a stale ``IndicatorTree/NodeID`` (its manager gone) changes nothing.
extension IndicatorTree {
    /// One schedule's answer, for the main actor to perform after the lock, and the node it is for.
    typealias Answer = (node: NodeID, reconciliation: OutputSchedule.Reconciliation)

    /// The tree's hop runs: every dirty node's schedule brings its policy and timers up to date, in
    /// the order the nodes asked.
    mutating func drainDirtyNodes(now: TimeInterval) -> [Answer] {
        var answers: [Answer] = []
        // By position, so that no copy of the list outlives the loop and the clearing keeps its buffer.
        for position in dirtyNodes.indices {
            let index = dirtyNodes[position]
            withNode(Int(index)) { node in
                // A node removed since it asked is a fresh node with no hop pending.
                guard node.schedule.isHopPending else { return }
                let reconciliation = node.schedule.reconcile(node.activity(count: node.activeTaskCount), now: now)
                let id = NodeID(index: index, generation: node.generation)
                answers.append((id, reconciliation))
            }
        }
        dirtyNodes.removeAll(keepingCapacity: true)
        return answers
    }

    /// The delay timer of `id` fired; `nil` if `id` is stale.
    mutating func delayTimerFired(_ id: NodeID, now: TimeInterval) -> Answer? {
        guard contains(id) else { return nil }
        return withNode(Int(id.index)) { node in
            let activity = node.activity(count: node.activeTaskCount)
            return (id, node.schedule.delayTimerFired(activity, now: now))
        }
    }

    /// The sweep's first step on `id`: ends the tasks of dead tokens and carries the change up the
    /// tree; the node's schedule hears of it when the sweep finishes. `nil` if `id` is stale; `true`
    /// if the tree's hop must be enqueued.
    mutating func sweepRegistry(_ id: NodeID, now: TimeInterval) -> (TaskRegistry.SweepResult?, Bool) {
        var time = EventTime(preread: now)
        var (result, needsHop) = changeTasks(in: id, time: &time, tellingSchedule: false, ifGone: nil) { node, _ in
            node.registry.sweep(now: now, staleThreshold: node.schedule.staleThreshold)
        }
        if result?.staleTasks.isEmpty == false { result?.scopePath = scopePath(ofNodeAt: id.index) }
        return (result, needsHop)
    }

    /// The sweep's last step on `id`: ends the tasks of the tokens that reported completion (if
    /// their entries are still theirs), carries the change up the tree, and brings the schedule up
    /// to date.
    mutating func finishSweep(
        _ id: NodeID,
        completed: [(key: ObjectIdentifier, object: AnyObject)],
        now: TimeInterval
    ) -> (Answer?, Bool) {
        var time = EventTime(preread: now)
        return changeTasks(in: id, time: &time, tellingSchedule: false, ifGone: nil) { node, time in
            node.registry.finishCompleted(completed, time: &time)
            let reconciliation = node.schedule.sweepFinished(node.activity(count: node.activeTaskCount), now: now)
            return (id, reconciliation)
        }
    }
}
