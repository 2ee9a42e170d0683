import Foundation

/// Task events for the outputs that watch tasks (``NetworkActivityTaskEventOutput``): a node
/// records while it or an ancestor has such an output. Its registry logs into the tree's one
/// ``TaskEventBuffer`` as the events happen, stamped; a recording node's schedule asks for the
/// tree's hop on each count change, and the hop takes the events, naming and numbering them here,
/// under the lock. A task event pays nothing here while nothing watches.
extension IndicatorTree {
    /// What the tree keeps for task events.
    struct TaskEventLog {
        /// The events logged since the last hop, in order, by the registries that record.
        let buffer = TaskEventBuffer()
        /// For each node removed while it recorded, since the last hop, the nodes whose outputs
        /// hear it (it and its ancestors then) and its scope path, read as it went: its last
        /// events wait in the buffer.
        var removedNodes: [NodeID: (hearers: [NodeID], scopePath: [String])] = [:]
        /// Each task told as begun and not yet as ended: its id and its label then (id 0: a task
        /// open when its node started recording, named then, never told as begun).
        var open: [TaskKey: (id: UInt64, label: String)] = [:]
        var nextID: UInt64 = 1
        /// Whether some node records: while none does, the hop keeps no open task.
        var isRecording = false
        /// Whether the tree's hop was asked for the events alone (no node dirty then).
        var isHopAsked = false

        mutating func takeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }
    }

    /// What the hop takes: the events, and for each node they name the nodes whose outputs
    /// hear it (the node and its ancestors) and its scope path.
    struct TakenTaskEvents {
        /// Each event as logged, named as its begin named it, with its node and its number.
        var pending: [(node: NodeID, event: TaskRegistry.LoggedEvent, id: UInt64)] = []
        var nodes: [NodeID: (hearers: [NodeID], scopePath: [String])] = [:]

        /// The public events, made on the main actor after the lock (call sites and ages are
        /// formatted here, not under it), each with the nodes whose outputs hear it.
        var events: [(event: NetworkActivityTaskEvent, hearers: [NodeID])] {
            pending.compactMap { pending in
                guard let node = nodes[pending.node] else { return nil }
                // A begin's `endedAt` is its record's start.
                let activity = NetworkActivitySnapshot.Activity(pending.event.record, now: pending.event.endedAt)
                guard let ending = pending.event.ending else {
                    return (.began(activity, id: pending.id, scopePath: node.scopePath), node.hearers)
                }
                return (.ended(activity, id: pending.id, scopePath: node.scopePath, ending: ending), node.hearers)
            }
        }
    }

    /// Whether the node at `index` records task events: it or an ancestor has a watching output.
    func recordsTaskEvents(_ index: Int32) -> Bool {
        chain(ofNodeAt: index).contains { node(at: Int($0)).taskEventListeners > 0 }
    }

    /// `delta` watching outputs were attached to `id` (or left it): its subtree starts or stops
    /// recording. A stale id changes nothing. Returns the nodes that started recording, whose
    /// open tasks ``nameOpenTasks(ofNodesAt:keepingAlive:)`` names.
    @discardableResult
    mutating func taskEventListenersChanged(by delta: Int, in id: NodeID) -> [Int32] {
        guard contains(id) else { return [] }
        withNode(Int(id.index)) { $0.taskEventListeners += delta }
        var started: [Int32] = []
        for index in subtree(of: id) {
            let records = recordsTaskEvents(index)
            if records, node(at: Int(index)).registry.eventLog == nil { started.append(index) }
            setRecording(records, ofNodeAt: index)
        }
        refreshRecording()
        return started
    }

    /// The nodes at `indices` started recording with tasks open that no watcher heard begin:
    /// each live unlabelled caller's token among them is named now by its type, as a snapshot
    /// names it, so that its end is not named as a deallocated token's. It ends with an id of its
    /// own (none is kept: 0). The tokens loaded go to `keptAlive`, to release after the lock.
    mutating func nameOpenTasks(ofNodesAt indices: [Int32], keepingAlive keptAlive: inout [AnyObject]) {
        for index in indices {
            let id = NodeID(index: index, generation: node(at: Int(index)).generation)
            let names = withNode(Int(index)) { $0.registry.typeNamesOfUnlabelledTokens(keepingAlive: &keptAlive) }
            for (reference, name) in names { taskEvents.open[TaskKey(node: id, reference: reference)] = (0, name) }
        }
    }

    /// Starts or stops the recording of the node at `index`: its registry's log (the tree's
    /// buffer, and the node's id), and its schedule's hop on each count change.
    mutating func setRecording(_ records: Bool, ofNodeAt index: Int32) {
        let (buffer, id) = (taskEvents.buffer, NodeID(index: index, generation: node(at: Int(index)).generation))
        let changed = withNode(Int(index)) { node in
            guard records != (node.registry.eventLog != nil) else { return false }
            node.registry.eventLog = records ? buffer : nil
            node.registry.eventNode = id
            node.schedule.recordingChanged(to: records)
            return true
        }
        // Its tasks told as begun are forgotten: what they do unheard is never told, so a later
        // end under the same token is not named by one of them.
        if changed, !records { taskEvents.open = taskEvents.open.filter { $0.key.node.index != index } }
    }

    /// Whether some node still records, after a change of listeners or a node's removal. What
    /// waits in the buffer stays for the hop, with the tasks told as begun that it ends: a
    /// removed scope's watcher still hears its last events, named as their begins were.
    mutating func refreshRecording() {
        taskEvents.isRecording = subtree(of: Self.rootID).contains { node(at: Int($0)).registry.eventLog != nil }
        if !taskEvents.isRecording, taskEvents.buffer.events.isEmpty { taskEvents.open.removeAll() }
    }

    /// Whether the tree's hop must be enqueued for the logged events: some wait, and neither a
    /// dirty node nor an earlier ask has enqueued it. For the events that move no schedule (a
    /// sweep's, a removed node's).
    mutating func askHopForTaskEvents() -> Bool {
        guard !taskEvents.buffer.events.isEmpty, dirtyNodes.isEmpty, !taskEvents.isHopAsked else { return false }
        taskEvents.isHopAsked = true
        return true
    }

    /// The node `id` goes: its open entries end (`managerGone`, at `time`), and its hearers and
    /// scope path are kept for the hop. Returns whether the tree's hop must be enqueued.
    mutating func logRemoval(of id: NodeID, time: inout EventTime) -> Bool {
        let now = time.now()
        withNode(Int(id.index)) { $0.registry.logEverythingEnded(.managerGone, at: now) }
        taskEvents.removedNodes[id] = audience(ofNodeAt: id.index)
        return askHopForTaskEvents()
    }

    /// The nodes whose outputs hear the node at `index` (it and its ancestors, as ids), and its
    /// scope path.
    private func audience(ofNodeAt index: Int32) -> (hearers: [NodeID], scopePath: [String]) {
        let hearers = chain(ofNodeAt: index).map { NodeID(index: $0, generation: node(at: Int($0)).generation) }
        return (hearers, scopePath(ofNodeAt: index))
    }

    /// The tree's hop takes the logged events, numbered and named as their begin named them,
    /// with each node's hearers and scope path. The events of a node removed when it no longer
    /// recorded are dropped (nobody listened; its index may name another node now). Nothing is
    /// formatted here, under the lock.
    mutating func takeTaskEvents() -> TakenTaskEvents {
        taskEvents.isHopAsked = false
        guard !taskEvents.buffer.events.isEmpty else { return TakenTaskEvents() }
        let logged = taskEvents.buffer.events
        taskEvents.buffer.events = []  // not `removeAll(keepingCapacity:)`: `logged` shares the storage
        var taken = TakenTaskEvents()
        for (node, var entry) in logged {
            if taken.nodes[node] == nil {
                guard
                    let heard = taskEvents.removedNodes[node]
                        ?? (contains(node) ? audience(ofNodeAt: node.index) : nil)
                else { continue }
                taken.nodes[node] = heard
            }
            let key = TaskKey(node: node, reference: entry.reference)
            let taskID: UInt64
            if entry.ending == nil {
                taskID = taskEvents.takeID()
                // Kept while its node records (see `setRecording`), or for its end if the node went
                // while it recorded (that end waits in this batch).
                let records =
                    taskEvents.removedNodes[node] != nil
                    || contains(node) && withNode(Int(node.index)) { $0.registry.eventLog != nil }
                if records { taskEvents.open[key] = (taskID, entry.record.label) }
            } else {
                let opened = taskEvents.open.removeValue(forKey: key)
                taskID = opened.flatMap { $0.id == 0 ? nil : $0.id } ?? taskEvents.takeID()
                if let label = opened?.label { entry.record.label = label }
                entry.record.isTokenAlive = entry.ending != .swept
            }
            taken.pending.append((node, entry, taskID))
        }
        taskEvents.removedNodes.removeAll()
        if !taskEvents.isRecording { taskEvents.open.removeAll() }
        return taken
    }
}

// MARK: - Delivery, on the main actor

/// The task events' last step, on the main actor: the hop hands over what the tree took
/// (`IndicatorTree+TaskEvents.swift`), and each watching output hears its batch.
extension OutputDelivery {
    /// Tells each watching output the events of its node and below, in one batch, in order. An
    /// output removed by an earlier output's batch hears only the events of the nodes where it is
    /// still attached (``isAttached(_:to:)``, as the other outputs are told).
    func deliver(_ events: [(event: NetworkActivityTaskEvent, hearers: [IndicatorTree.NodeID])]) {
        typealias Heard = (event: NetworkActivityTaskEvent, through: [(Attached, IndicatorTree.NodeID)])
        var batches: [(output: any NetworkActivityTaskEventOutput, heard: [Heard])] = []
        var positions: [ObjectIdentifier: Int] = [:]
        for (event, hearers) in events {
            // An output attached to a scope and to an ancestor hears each event once, through
            // either attachment.
            var told = Set<ObjectIdentifier>()
            for node in hearers {
                for target in outlet(node)?.attached ?? [] where target.receivesTaskEvents {
                    guard let output = target.output as? any NetworkActivityTaskEventOutput else { continue }
                    let id = ObjectIdentifier(output)
                    let position = positions[id] ?? batches.count
                    if position == batches.count {
                        positions[id] = position
                        batches.append((output, []))
                    }
                    if told.insert(id).inserted { batches[position].heard.append((event, [])) }
                    batches[position].heard[batches[position].heard.count - 1].through.append((target, node))
                }
            }
        }
        for batch in batches {
            let events = batch.heard.filter { $0.through.contains { isAttached($0.0, to: $0.1) } }.map(\.event)
            if !events.isEmpty { batch.output.networkIndicatorTasksDidChange(events) }
        }
    }
}
