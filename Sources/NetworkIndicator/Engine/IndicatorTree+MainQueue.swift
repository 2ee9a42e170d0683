import Foundation

/// The events that run on the main queue: a node's reconcile, its delay timer, the timers'
/// installation and the sweep's two steps. Each returns plain data; a stale
/// ``IndicatorTree/NodeID`` (its manager gone) changes nothing.
extension IndicatorTree {
    /// What the main actor performs after the lock for one answer of a machine: the answer,
    /// the timers it stops, and the streams to tell.
    struct Delivery {
        var reconciliation: IndicatorStateMachine.Reconciliation
        var stoppedTimers: [any NetworkIndicatorTimer]
        var streams: StreamRegistry.Delivery
    }

    /// The pending hop of `id` runs: its machine brings the policy and the timers up to date.
    mutating func reconcile(_ id: NodeID, now: TimeInterval) -> Delivery? {
        update(id, ifGone: nil) { node in
            Self.delivery(node.machine.reconcile(node.activity(count: node.activeTaskCount), now: now), from: &node)
        }
    }

    /// The delay timer of `generation` of `id` fired; `nil` if it is stale.
    mutating func delayTimerFired(_ id: NodeID, generation: UInt64, now: TimeInterval) -> Delivery? {
        update(id, ifGone: nil) { node in
            let activity = node.activity(count: node.activeTaskCount)
            return node.machine.delayTimerFired(generation: generation, activity, now: now).map {
                Self.delivery($0, from: &node)
            }
        }
    }

    /// Installs the timers just started for `id`; returns those no longer current (replaced
    /// meanwhile, or the node gone), to cancel after the lock.
    mutating func install(
        _ started: [(IndicatorStateMachine.TimerKind, UInt64, any NetworkIndicatorTimer)],
        in id: NodeID
    ) -> [any NetworkIndicatorTimer] {
        update(id, ifGone: started.map(\.2)) { node in
            started.compactMap { timer, generation, handle -> (any NetworkIndicatorTimer)? in
                guard node.machine.isCurrent(timer, generation: generation) else { return handle }
                node.timers[timer] = handle
                return nil
            }
        }
    }

    /// The sweep's first step on `id`: ends the tasks of dead tokens and carries the change up
    /// the tree; the machine hears of it when the sweep finishes. `nil` if `id` is stale.
    mutating func sweepRegistry(_ id: NodeID, now: TimeInterval) -> (TaskRegistry.SweepResult?, Hops) {
        var time = EventTime(preread: now)
        guard contains(id) else { return (nil, Hops()) }
        var hops = Hops()
        let (found, delta) = withNode(Int(id.index)) { Self.sweep(&$0, now: now, time: &time) }
        let parent = parent(of: Int(id.index))
        if delta != 0, parent >= 0 { rollUp(delta, from: parent, time: &time, hops: &hops) }
        return (found, hops)
    }

    /// The sweep's last step on `id`: ends the tasks of the tokens that reported completion (if
    /// their entries are still theirs), carries the change up the tree, and brings the machine
    /// up to date.
    mutating func finishSweep(
        _ id: NodeID,
        completed: [(key: ObjectIdentifier, object: AnyObject)],
        now: TimeInterval
    ) -> (Delivery?, Hops) {
        var time = EventTime(preread: now)
        guard contains(id) else { return (nil, Hops()) }
        var hops = Hops()
        let (delivery, delta) = withNode(Int(id.index)) {
            Self.finishSweep(&$0, completed: completed, now: now, time: &time)
        }
        let parent = parent(of: Int(id.index))
        if delta != 0, parent >= 0 { rollUp(delta, from: parent, time: &time, hops: &hops) }
        return (delivery, hops)
    }

    // MARK: - Private

    /// ``sweepRegistry(_:now:)`` on the node: the sweep, and how far the count moved (the
    /// machine is not told: the sweep's reconcile follows).
    private static func sweep(
        _ node: inout Node,
        now: TimeInterval,
        time: inout EventTime
    )
        -> (TaskRegistry.SweepResult, Int)
    {
        let old = node.activeTaskCount
        let found = node.registry.sweep(now: now, staleThreshold: node.machine.settings.staleTaskThreshold)
        var hop = false
        return (found, node.settle(from: old, time: &time, tellingMachine: false, hop: &hop))
    }

    /// ``finishSweep(_:completed:now:)`` on the node: the completed tasks end, then the
    /// machine's reconcile; returns what to deliver and how far the count moved.
    private static func finishSweep(
        _ node: inout Node,
        completed: [(key: ObjectIdentifier, object: AnyObject)],
        now: TimeInterval,
        time: inout EventTime
    ) -> (Delivery, Int) {
        let old = node.activeTaskCount
        for candidate in completed {
            node.registry.finishAll(candidate.key, ifStillOwnedBy: candidate.object)
        }
        var hop = false
        let delta = node.settle(from: old, time: &time, tellingMachine: false, hop: &hop)
        let reconciliation = node.machine.sweepFinished(node.activity(count: node.activeTaskCount), now: now)
        return (delivery(reconciliation, from: &node), delta)
    }

    /// Takes the timers `reconciliation` stops and the streams to tell out of `node`.
    private static func delivery(
        _ reconciliation: IndicatorStateMachine.Reconciliation,
        from node: inout Node
    )
        -> Delivery
    {
        let stopped = reconciliation.timerChanges.keys.compactMap { node.timers.removeValue(forKey: $0) }
        let streams = node.streams.takeDelivery(visibilityChanged: reconciliation.visibility != nil)
        return Delivery(reconciliation: reconciliation, stoppedTimers: stopped, streams: streams)
    }
}
