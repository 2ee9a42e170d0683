import Foundation

/// Task events for the outputs that watch tasks (``NetworkActivityTaskEventOutput``): a node
/// records while it or an ancestor has such an output; each task event's registry log is
/// collected, stamped and named here, in the same hold, and the tree's hop takes them.
extension IndicatorTree {
    /// What the tree keeps for task events.
    struct TaskEventLog {
        /// The events since the last hop, oldest first, as recorded: the public events are made
        /// from them after the lock (``TakenTaskEvents/events``).
        var pending: [PendingTaskEvent] = []
        /// For each node the pending events name, the nodes whose outputs hear it (the node and
        /// its ancestors) and its scope path, read at its first event since the hop (a node
        /// removed since still reaches its ancestors' outputs).
        var nodes: [NodeID: (hearers: [NodeID], scopePath: [String])] = [:]
        /// Each task told as begun and not yet as ended: its id and its label then.
        var open: [OpenTask: (id: UInt64, label: String)] = [:]
        var nextID: UInt64 = 1
        /// Whether some node records: the one check a task event pays while nothing watches.
        var isRecording = false

        mutating func takeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }
    }

    /// One event as recorded under the lock.
    struct PendingTaskEvent {
        let node: NodeID
        let record: TaskRegistry.ActivityRecord
        let id: UInt64
        /// `nil`: it began.
        let ending: NetworkActivityTaskEvent.Ending?
        /// When it ended (its begin's time is the record's).
        let endedAt: TimeInterval
    }

    /// What the hop takes: the events, and for each node they name the nodes whose outputs
    /// hear it (the node and its ancestors) and its scope path.
    struct TakenTaskEvents {
        var pending: [PendingTaskEvent] = []
        var nodes: [NodeID: (hearers: [NodeID], scopePath: [String])] = [:]

        /// The public events, made on the main actor after the lock (call sites and ages are
        /// formatted here, not under it), each with the nodes whose outputs hear it.
        var events: [(event: NetworkActivityTaskEvent, hearers: [NodeID])] {
            pending.compactMap { pending in
                guard let node = nodes[pending.node] else { return nil }
                let record = pending.record
                guard let ending = pending.ending else {
                    let activity = NetworkActivitySnapshot.Activity(record, now: record.startedAt)
                    return (.began(activity, id: pending.id, scopePath: node.scopePath), node.hearers)
                }
                let activity = NetworkActivitySnapshot.Activity(record, now: pending.endedAt)
                let event = NetworkActivityTaskEvent.ended(
                    activity,
                    id: pending.id,
                    scopePath: node.scopePath,
                    ending: ending
                )
                return (event, node.hearers)
            }
        }
    }

    /// A task told as begun: its node and its token.
    struct OpenTask: Hashable {
        let node: NodeID
        let reference: TaskReference
    }

    /// Whether the node at `index` records task events: it or an ancestor has a watching output.
    func recordsTaskEvents(_ index: Int32) -> Bool {
        chain(ofNodeAt: index).contains { node(at: Int($0)).taskEventListeners > 0 }
    }

    /// `delta` watching outputs were attached to `id` (or left it): its subtree starts or stops
    /// recording. A stale id changes nothing.
    mutating func taskEventListenersChanged(by delta: Int, in id: NodeID) {
        guard contains(id) else { return }
        withNode(Int(id.index)) { $0.taskEventListeners += delta }
        for index in subtree(of: id) {
            let records = recordsTaskEvents(index)
            withNode(Int(index)) { node in
                if !records {
                    node.registry.eventLog = nil
                } else if node.registry.eventLog == nil {
                    node.registry.eventLog = []
                }
            }
        }
        refreshRecording()
    }

    /// Whether some node still records, after a change of listeners or a node's removal.
    mutating func refreshRecording() {
        taskEvents.isRecording = subtree(of: Self.rootID).contains { node(at: Int($0)).registry.eventLog != nil }
        if !taskEvents.isRecording { taskEvents.open.removeAll() }
    }

    /// Moves what the node at `index` logged into the pending events, stamped now and named as
    /// their begin named them; returns whether the tree's hop must be enqueued for them (the
    /// first pending thing since the last hop). Nothing is formatted here, under the lock.
    @inline(never)
    mutating func collectTaskEvents(ofNodeAt index: Int32, time: inout EventTime) -> Bool {
        // A node that does not record (its log `nil`) is left so: `[]` would start its recording.
        let (logged, generation) = withNode(Int(index)) { node -> ([TaskRegistry.LoggedEvent], UInt32) in
            guard let logged = node.registry.eventLog, !logged.isEmpty else { return ([], node.generation) }
            node.registry.eventLog = []
            return (logged, node.generation)
        }
        guard !logged.isEmpty else { return false }
        let asksForHop = taskEvents.pending.isEmpty && dirtyNodes.isEmpty
        let now = time.now()
        let id = NodeID(index: index, generation: generation)
        if taskEvents.nodes[id] == nil {
            let hearers = chain(ofNodeAt: index).map { NodeID(index: $0, generation: node(at: Int($0)).generation) }
            taskEvents.nodes[id] = (hearers, scopePath(ofNodeAt: index))
        }
        for entry in logged {
            let key = OpenTask(node: id, reference: entry.reference)
            var record = entry.record
            let taskID: UInt64
            if entry.ending == nil {
                taskID = taskEvents.takeID()
                taskEvents.open[key] = (taskID, record.label)
            } else {
                let opened = taskEvents.open.removeValue(forKey: key)
                taskID = opened?.id ?? taskEvents.takeID()
                if let label = opened?.label { record.label = label }
                record.isTokenAlive = entry.ending != .swept
            }
            taskEvents.pending.append(
                PendingTaskEvent(node: id, record: record, id: taskID, ending: entry.ending, endedAt: now)
            )
        }
        return asksForHop
    }

    /// The tree's hop takes the pending events, with each node's hearers and scope path.
    mutating func takeTaskEvents() -> TakenTaskEvents {
        guard !taskEvents.pending.isEmpty else { return TakenTaskEvents() }
        defer {
            taskEvents.pending = []
            taskEvents.nodes = [:]
        }
        return TakenTaskEvents(pending: taskEvents.pending, nodes: taskEvents.nodes)
    }
}
