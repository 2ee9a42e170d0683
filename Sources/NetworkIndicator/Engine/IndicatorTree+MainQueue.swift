import Foundation

/// The events that run on the main queue: the tree's hop, a node's delay timer and the sweep's
/// two steps. Each returns plain data; a stale ``IndicatorTree/NodeID`` (its manager gone)
/// changes nothing.
extension IndicatorTree {
    /// One schedule's answer, for the main actor to perform after the lock, and the node it is for.
    struct Answer {
        var node: NodeID
        var reconciliation: OutputSchedule.Reconciliation
    }

    /// The tree's hop runs: every dirty node's schedule brings its policy and timers up to date,
    /// in the order the nodes asked. The first answer comes apart from the rest, so that a hop
    /// for one node (the common case) allocates no array.
    mutating func drainDirtyNodes(now: TimeInterval) -> (first: Answer?, rest: [Answer]) {
        var first: Answer?
        var rest: [Answer] = []
        for index in dirtyNodes {
            let answer = withNode(Int(index)) { node -> Answer? in
                // A node removed since it asked is a fresh node with no hop pending.
                guard node.schedule.isHopPending else { return nil }
                let reconciliation = node.schedule.reconcile(node.activity(count: node.activeTaskCount), now: now)
                return Self.answer(reconciliation, from: &node, at: index)
            }
            guard let answer else { continue }
            if first == nil { first = answer } else { rest.append(answer) }
        }
        dirtyNodes.removeAll(keepingCapacity: true)
        return (first, rest)
    }

    /// The delay timer of `generation` of `id` fired; `nil` if it is stale.
    mutating func delayTimerFired(_ id: NodeID, generation: UInt64, now: TimeInterval) -> Answer? {
        guard contains(id) else { return nil }
        return withNode(Int(id.index)) { node in
            let activity = node.activity(count: node.activeTaskCount)
            return node.schedule.delayTimerFired(generation: generation, activity, now: now).map {
                Self.answer($0, from: &node, at: id.index)
            }
        }
    }

    /// The sweep's first step on `id`: ends the tasks of dead tokens and carries the change up
    /// the tree; the node's schedule hears of it when the sweep finishes. `nil` if `id` is stale;
    /// `true` if the tree's hop must be enqueued.
    mutating func sweepRegistry(_ id: NodeID, now: TimeInterval) -> (TaskRegistry.SweepResult?, Bool) {
        guard contains(id) else { return (nil, false) }
        var time = EventTime(preread: now)
        var unused = false
        let (found, delta, parent) = withNode(Int(id.index)) { node in
            let old = node.activeTaskCount
            let found = node.registry.sweep(now: now, staleThreshold: node.schedule.settings.staleTaskThreshold)
            return (found, node.settle(from: old, time: &time, tellingSchedule: false, hop: &unused), node.parent)
        }
        return (found, delta != 0 && rollUp(delta, from: parent, time: &time))
    }

    /// The sweep's last step on `id`: ends the tasks of the tokens that reported completion (if
    /// their entries are still theirs), carries the change up the tree, and brings the schedule
    /// up to date.
    mutating func finishSweep(
        _ id: NodeID,
        completed: [(key: ObjectIdentifier, object: AnyObject)],
        now: TimeInterval
    ) -> (Answer?, Bool) {
        guard contains(id) else { return (nil, false) }
        var time = EventTime(preread: now)
        var unused = false
        let (answer, delta, parent) = withNode(Int(id.index)) { node in
            let old = node.activeTaskCount
            for candidate in completed {
                node.registry.finishAll(candidate.key, ifStillOwnedBy: candidate.object)
            }
            let delta = node.settle(from: old, time: &time, tellingSchedule: false, hop: &unused)
            let reconciliation = node.schedule.sweepFinished(node.activity(count: node.activeTaskCount), now: now)
            return (Self.answer(reconciliation, from: &node, at: id.index), delta, node.parent)
        }
        return (answer, delta != 0 && rollUp(delta, from: parent, time: &time))
    }

    /// `reconciliation` as the answer of `node` (at `index`).
    private static func answer(
        _ reconciliation: OutputSchedule.Reconciliation,
        from node: inout Node,
        at index: Int32
    ) -> Answer {
        Answer(node: NodeID(index: index, generation: node.generation), reconciliation: reconciliation)
    }
}
