import Foundation

/// One `mutating func` per event on one node of the tree, each returning plain data: the
/// event's result and the ``IndicatorTree/Hops`` it asks for. A stale ``IndicatorTree/NodeID``
/// (its manager gone) changes nothing.
extension IndicatorTree {
    // MARK: - Tasks, from any thread

    /// Begins one task for a caller's `token`, held weakly; its kind is decided once per type.
    @inline(__always)
    mutating func beginToken(_ token: AnyObject, label: String?, in id: NodeID, time: inout EventTime) -> Hops {
        changeTasks(in: id, time: &time, ifGone: ()) { node, time in
            let kind = node.classifier.kind(of: token)
            node.registry.begin(ObjectIdentifier(token), object: token, kind: kind, label: label, now: time.now())
        }.1
    }

    /// Begins one task under `key` that the sweep never checks (a group's, a helper's load).
    mutating func begin(
        _ key: ObjectIdentifier,
        object: AnyObject?,
        kind: TaskKind,
        label: String?,
        in id: NodeID,
        time: inout EventTime
    ) -> Hops {
        changeTasks(in: id, time: &time, ifGone: ()) { node, time in
            node.registry.begin(key, object: object, kind: kind, label: label, now: time.now())
        }.1
    }

    /// Pins a new slot to an opaque token and begins its first task; returns the slot and its
    /// generation, for the caller to make the token with. `nil` if `id` is stale.
    @inline(__always)
    mutating func beginOpaqueToken(label: String?, in id: NodeID, time: inout EventTime) -> (PinnedSlot?, Hops) {
        changeTasks(in: id, time: &time, ifGone: nil) { node, time in
            node.registry.pin(label: label, now: time.now())
        }
    }

    /// Begins one more task of the opaque token `pinned`; `false` if its pair is stale.
    mutating func beginOpaqueToken(
        _ pinned: PinnedSlot,
        label: String?,
        in id: NodeID,
        time: inout EventTime
    ) -> (Bool, Hops) {
        changeTasks(in: id, time: &time, ifGone: false) { node, time in
            node.registry.beginPinned(at: pinned.slot, generation: pinned.generation, label: label, now: time.now())
        }
    }

    /// Ends one task under `key`.
    @inline(__always)
    mutating func finishOne(
        _ key: ObjectIdentifier,
        in id: NodeID,
        time: inout EventTime
    ) -> (
        TaskRegistry.FinishOutcome, Hops
    ) {
        changeTasks(in: id, time: &time, ifGone: .unknown) { node, _ in node.registry.finishOne(key) }
    }

    /// Ends one task of the opaque token pinned at `slot` in `generation`.
    mutating func finishOne(
        pinnedAt slot: Int32,
        generation: UInt32,
        in id: NodeID,
        time: inout EventTime
    ) -> (
        TaskRegistry.FinishOutcome, Hops
    ) {
        changeTasks(in: id, time: &time, ifGone: .unknown) { node, _ in
            node.registry.finishOnePinned(at: slot, generation: generation)
        }
    }

    /// Ends every task of the opaque token pinned at `slot` in `generation`; `unpinning` (the
    /// token is released) also frees the slot. A stale pair changes nothing.
    @inline(__always)
    mutating func release(
        pinnedAt slot: Int32,
        generation: UInt32,
        unpinning: Bool,
        in id: NodeID,
        time: inout EventTime
    ) -> Hops {
        changeTasks(in: id, time: &time, ifGone: ()) { node, _ in
            node.registry.finishAllPinned(at: slot, generation: generation, unpinning: unpinning)
        }.1
    }

    /// Ends every task under `key`, reporting nothing.
    mutating func finishAll(_ key: ObjectIdentifier, in id: NodeID, time: inout EventTime) -> Hops {
        changeTasks(in: id, time: &time, ifGone: ()) { node, _ in node.registry.finishAll(key) }.1
    }

    /// Begins one counted task.
    mutating func push(in id: NodeID, time: inout EventTime) -> Hops {
        changeTasks(in: id, time: &time, ifGone: ()) { node, time in node.registry.push(now: time.now()) }.1
    }

    /// Ends one counted task; `false` (and no change) if none is open.
    mutating func pop(in id: NodeID, time: inout EventTime) -> (Bool, Hops) {
        changeTasks(in: id, time: &time, ifGone: false) { node, _ in node.registry.pop() }
    }

    // MARK: - The main queue

    /// What the main actor performs after the lock for one answer of a machine: the answer,
    /// the timers it stops, and the streams to tell.
    struct Delivery {
        var reconciliation: IndicatorStateMachine.Reconciliation
        var stoppedTimers: [any NetworkIndicatorCancellable]
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
        _ started: [(IndicatorStateMachine.TimerKind, UInt64, any NetworkIndicatorCancellable)],
        in id: NodeID
    ) -> [any NetworkIndicatorCancellable] {
        update(id, ifGone: started.map(\.2)) { node in
            started.compactMap { timer, generation, handle -> (any NetworkIndicatorCancellable)? in
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
