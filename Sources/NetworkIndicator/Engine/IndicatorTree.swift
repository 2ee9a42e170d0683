import Foundation

/// Every manager of one tree (a root and its scopes, at any depth) as one pure value: each node
/// has its registry, its state machine, the open tasks of its descendants and its busy period.
///
/// It knows no lock, thread or scheduler. ``IndicatorDriver`` keeps one tree behind one lock
/// (the root's), calls one `mutating func` per event and performs the returned effects after
/// releasing the lock. The roll-up of a count change to every ancestor is a loop over parent
/// indices inside the event, so each ancestor sees a descendant's changes in the order they
/// happened, and an event on a subtree (reset, cancel, snapshot) is one call, hence one hold of
/// the driver's lock.
///
/// Invariants, kept by every event:
/// - a node's ``Node/activeTaskCount`` is its registry's tasks plus the tasks of every live
///   descendant (``Node/descendantTaskCount``);
/// - a node's ``Node/busyPeriod`` counts the times its count left zero;
/// - a node's machine hears of every change of the node's count, its own or a descendant's;
/// - a node is reached only through a ``NodeID`` of its current generation: an id of a removed
///   node finds nothing (``contains(_:)``).
///
/// The `@inline(__always)` on the event path (here, in `IndicatorTree+Events.swift` and in the
/// driver) pay: without them an explicit begin+finish takes 1 971 instructions instead of 1 308
/// (Benchmarks/README.md, "Issue 37").
struct IndicatorTree {
    /// A node's place in the tree: its index, and the generation that index had when the node
    /// was added. Indices of removed nodes are reused with the next generation.
    struct NodeID: Equatable, Sendable {
        let index: Int32
        let generation: UInt32
    }

    /// One manager of the tree.
    struct Node {
        var registry = TaskRegistry()
        var classifier = TokenClassifier()
        /// The settings, the policy, the timers' generations and the count observers.
        var machine = IndicatorStateMachine()
        var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler
        var streams = StreamRegistry()
        /// The running timers, by the machine's name for them.
        var timers: [IndicatorStateMachine.TimerKind: any NetworkIndicatorCancellable] = [:]
        /// The open tasks of every live descendant.
        var descendantTaskCount = 0
        /// How many times the count went from zero to more: the progress roll-up's busy period.
        var busyPeriod: UInt64 = 0
        /// When the count last went from zero to more (a parent's snapshot shows it).
        var activeSince: TimeInterval = 0
        /// The parent's index, `-1` for the root.
        var parent: Int32
        /// The indices of the live children.
        var children: [Int32] = []
        /// The name of the node in its parent's snapshot.
        var label: String?
        /// Bumped when the node is removed (see ``IndicatorTree/contains(_:)``).
        var generation: UInt32 = 0

        /// The node's own tasks and those of all its descendants.
        var activeTaskCount: Int { registry.activeTaskCount + descendantTaskCount }

        /// What the machine decides on, for a `count` that equals ``activeTaskCount``.
        func activity(count: Int) -> IndicatorStateMachine.Activity {
            IndicatorStateMachine.Activity(count: count, tracksWeakTokens: registry.sweptEntryCount > 0)
        }

        /// After the node's own tasks changed from a count of `old`: starts a busy period where
        /// the count left zero and, if `tellingMachine`, tells the machine, whose wish for a hop
        /// goes to `hop`. Returns how far the count moved.
        @inline(__always)
        mutating func settle(from old: Int, time: inout EventTime, tellingMachine: Bool, hop: inout Bool) -> Int {
            let new = activeTaskCount
            guard new != old else { return 0 }
            if old == 0 { startBusyPeriod(time: &time) }
            if tellingMachine {
                hop = machine.tasksChanged(from: old, to: activity(count: new), now: time.now())
            }
            return new - old
        }

        /// A descendant's count moved by `delta` (not 0); returns whether the machine asks for
        /// a hop.
        @inline(__always)
        mutating func descendantsChanged(by delta: Int, time: inout EventTime) -> Bool {
            let old = activeTaskCount
            descendantTaskCount += delta
            if old == 0 { startBusyPeriod(time: &time) }
            return machine.tasksChanged(from: old, to: activity(count: old + delta), now: time.now())
        }

        /// The count left zero.
        @inline(__always)
        private mutating func startBusyPeriod(time: inout EventTime) {
            busyPeriod &+= 1
            // Only a parent's snapshot reads when a child became active.
            if parent >= 0 { activeSince = time.now() }
        }
    }

    /// The nodes whose machine asked for a main-queue hop during one event: the event's own
    /// node, and any others (ancestors, or the descendants of a subtree event).
    struct Hops: Equatable {
        /// The event's node asked for one.
        var ownNode = false
        /// The other nodes that asked. Optional: an empty array would still be a reference to
        /// the shared empty storage, released by every event.
        var others: [Int32]?

        mutating func append(_ index: Int32) {
            if others == nil { others = [index] } else { others!.append(index) }
        }
    }

    /// The root's node (index 0), kept apart from the scopes: a root's event, the common case,
    /// reaches it without an array access (its bounds check and uniqueness check).
    private var rootNode: Node
    /// The scopes' nodes, node `i` at `scopes[i - 1]`; a removed node's slot waits in
    /// ``freeIndices`` for reuse.
    private var scopes: [Node] = []

    /// Runs `body` on the node at `index`, in place.
    @inline(__always)
    mutating func withNode<Result>(_ index: Int, _ body: (inout Node) -> Result) -> Result {
        if index == 0 { return body(&rootNode) }
        return body(&scopes[index - 1])
    }

    /// The node at `index`, copied (off the hot paths).
    func node(at index: Int) -> Node {
        index == 0 ? rootNode : scopes[index - 1]
    }

    /// The parent's index of the node at `index` (`-1` for the root).
    @inline(__always)
    func parent(of index: Int) -> Int32 {
        index == 0 ? rootNode.parent : scopes[index - 1].parent
    }
    private var freeIndices: [Int32] = []

    /// The handler of a removed node, and the answer for a stale id.
    static let silent: NetworkIndicatorDiagnosticsHandler = { _ in }

    /// The root's id.
    static let rootID = NodeID(index: 0, generation: 0)

    /// A tree of one root.
    init(diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler) {
        rootNode = Node(diagnosticsHandler: diagnosticsHandler, parent: -1)
    }

    /// Whether `id` names a node of the tree (not removed since).
    @inline(__always)
    func contains(_ id: NodeID) -> Bool {
        let index = Int(id.index)
        if index == 0 { return rootNode.generation == id.generation }
        return index <= scopes.count && scopes[index - 1].generation == id.generation
    }

    /// The node `id` names; it must be in the tree.
    subscript(id: NodeID) -> Node {
        precondition(contains(id))
        return node(at: Int(id.index))
    }

    // MARK: - Nodes

    /// Adds a child of `parent` (which must be in the tree), named `label` in its snapshot.
    mutating func addNode(
        childOf parent: NodeID,
        label: String?,
        diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler
    ) -> NodeID {
        precondition(contains(parent))
        var node = Node(diagnosticsHandler: diagnosticsHandler, parent: parent.index, label: label)
        let index: Int32
        if let reused = freeIndices.popLast() {
            index = reused
            // A removed node's generation was bumped at its removal.
            node.generation = scopes[Int(reused) - 1].generation
            scopes[Int(reused) - 1] = node
        } else {
            scopes.append(node)
            index = Int32(scopes.count)
        }
        withNode(Int(parent.index)) { $0.children.append(index) }
        return NodeID(index: index, generation: node.generation)
    }

    /// What a removed node leaves to stop after the lock.
    struct Removal {
        var timers: [any NetworkIndicatorCancellable] = []
        var streams: [StreamRegistry.Continuation] = []
        var hops = Hops()
    }

    /// The manager of `id` is gone: its remaining tasks end in every ancestor, it leaves its
    /// parent's children, and its timers and streams are handed back to stop. Its descendants
    /// are gone already (each keeps its parent's manager alive). Nothing if `id` is stale.
    mutating func removeNode(_ id: NodeID, time: inout EventTime) -> Removal {
        guard contains(id) else { return Removal() }
        let index = Int(id.index)
        var removal = Removal()
        let removed = node(at: index)
        removal.timers = Array(removed.timers.values)
        removal.streams = removed.streams.all
        let ended = removed.registry.activeTaskCount
        let parent = removed.parent
        if parent >= 0 {
            withNode(Int(parent)) { $0.children.removeAll { $0 == id.index } }
            if ended > 0 { rollUp(-ended, from: parent, time: &time, hops: &removal.hops) }
            freeIndices.append(id.index)
        }
        // Drops everything but a new generation, which no id names yet: `contains` refuses
        // every id of the removed node, and the next node at this index takes it.
        withNode(index) { node in
            node = Node(diagnosticsHandler: Self.silent, parent: -1)
            node.generation = id.generation &+ 1
        }
        return removal
    }

    // MARK: - Count changes

    /// Runs `change` on the node `id` (nothing if `id` is stale), then carries the count's
    /// move up the tree and tells each machine it reached.
    @inline(__always)
    mutating func changeTasks<Result>(
        in id: NodeID,
        time: inout EventTime,
        ifGone: Result,
        _ change: (inout Node, inout EventTime) -> Result
    ) -> (Result, Hops) {
        guard contains(id) else { return (ifGone, Hops()) }
        var hops = Hops()
        let index = Int(id.index)
        if index == 0 {
            // The root: no ancestor to reach.
            let old = rootNode.activeTaskCount
            let result = change(&rootNode, &time)
            _ = rootNode.settle(from: old, time: &time, tellingMachine: true, hop: &hops.ownNode)
            return (result, hops)
        }
        let old = scopes[index - 1].activeTaskCount
        let result = change(&scopes[index - 1], &time)
        let delta = scopes[index - 1].settle(from: old, time: &time, tellingMachine: true, hop: &hops.ownNode)
        guard delta != 0 else { return (result, hops) }
        let parent = scopes[index - 1].parent
        if parent == 0 {
            // A child of the root, the common scope: its one ancestor without the loop's call.
            if rootNode.descendantsChanged(by: delta, time: &time) { hops.append(0) }
        } else {
            rollUp(delta, from: parent, time: &time, hops: &hops)
        }
        return (result, hops)
    }

    /// ``changeTasks(in:time:ifGone:_:)`` on one node reached in place: `change`, then the
    /// node's own settling. Returns `change`'s result and how far the count moved.
    @inline(__always)
    private static func change<Result>(
        _ node: inout Node,
        time: inout EventTime,
        hop: inout Bool,
        _ change: (inout Node, inout EventTime) -> Result
    ) -> (Result, Int) {
        let old = node.activeTaskCount
        let result = change(&node, &time)
        return (result, node.settle(from: old, time: &time, tellingMachine: true, hop: &hop))
    }

    /// Adds `delta` to the descendants' count of the node at `first` and of each of its
    /// ancestors (a loop up the parent indices), each machine told; those that ask for a hop
    /// join `hops`. Nothing for `first` == `-1` (above the root). Out of line: a root's events,
    /// the common case, skip it at the call.
    @inline(never)
    mutating func rollUp(_ delta: Int, from first: Int32, time: inout EventTime, hops: inout Hops) {
        // Every chain of parents ends at the root (index 0), kept apart from the scopes.
        var next = Int(first)
        while next > 0 {
            if scopes[next - 1].descendantsChanged(by: delta, time: &time) { hops.append(Int32(next)) }
            next = Int(scopes[next - 1].parent)
        }
        if next == 0, rootNode.descendantsChanged(by: delta, time: &time) { hops.append(0) }
    }

    // MARK: - Subtrees

    /// The indices of `id`'s subtree, children before their parent (`id` last).
    func subtree(of id: NodeID) -> [Int32] {
        var order: [Int32] = []
        func visit(_ index: Int32) {
            for child in node(at: Int(index)).children { visit(child) }
            order.append(index)
        }
        visit(id.index)
        return order
    }

    /// Ends every task of the node `id` and of all its descendants, at once.
    mutating func resetSubtree(of id: NodeID, time: inout EventTime) -> Hops {
        changeSubtree(of: id, time: &time) { node in node.registry.removeAll() }
    }

    /// Ends the tasks whose work can be cancelled in `id`'s subtree, at once; returns the work
    /// and the objects that leave with it (see `TaskRegistry+Cancel.swift`).
    mutating func cancelSubtree(of id: NodeID, time: inout EventTime) -> (TaskRegistry.Cancellation, Hops) {
        var cancellation = TaskRegistry.Cancellation()
        let hops = changeSubtree(of: id, time: &time) { node in
            let found = node.registry.endCancellableTasks()
            cancellation.work += found.work
            cancellation.keptAlive += found.keptAlive
        }
        return (cancellation, hops)
    }

    /// Runs `change` on each registry of `id`'s subtree (children first), then settles each
    /// node's own change, so that a node's machine hears of its descendants' before its own.
    private mutating func changeSubtree(
        of id: NodeID,
        time: inout EventTime,
        _ change: (inout Node) -> Void
    ) -> Hops {
        guard contains(id) else { return Hops() }
        var hops = Hops()
        for index in subtree(of: id) {
            var hop = false
            let delta = withNode(Int(index)) { node in
                Self.change(&node, time: &time, hop: &hop) { node, _ in change(&node) }.1
            }
            if hop {
                if index == id.index { hops.ownNode = true } else { hops.append(index) }
            }
            let parent = parent(of: Int(index))
            if delta != 0, parent >= 0 { rollUp(delta, from: parent, time: &time, hops: &hops) }
        }
        return hops
    }

    /// One record per open entry of `id` and one per child with tasks, and `id`'s count: one
    /// consistent moment of the subtree. The live objects whose type names a default label are
    /// appended to `keptAlive`, to be released after the lock.
    func snapshot(
        of id: NodeID,
        keepingAlive keptAlive: inout [AnyObject]
    ) -> (records: [TaskRegistry.ActivityRecord], count: Int) {
        guard contains(id) else { return ([], 0) }
        let snapshotted = node(at: Int(id.index))
        var records = snapshotted.registry.records(keepingAlive: &keptAlive)
        for child in snapshotted.children.map({ node(at: Int($0)) }) where child.activeTaskCount > 0 {
            records.append(
                TaskRegistry.ActivityRecord(
                    label: child.label ?? "child NetworkIndicatorManager",
                    kind: .childManager,
                    taskCount: child.activeTaskCount,
                    startedAt: child.activeSince,
                    isTokenAlive: true
                )
            )
        }
        return (records, snapshotted.activeTaskCount)
    }

    // MARK: - One node, without a count change

    /// Runs `body` on the node `id`; `ifGone` if `id` is stale.
    @inline(__always)
    mutating func update<Result>(_ id: NodeID, ifGone: Result, _ body: (inout Node) -> Result) -> Result {
        guard contains(id) else { return ifGone }
        return withNode(Int(id.index), body)
    }

    /// Reads the node `id`; `ifGone` if `id` is stale.
    @inline(__always)
    func read<Result>(_ id: NodeID, ifGone: Result, _ body: (Node) -> Result) -> Result {
        guard contains(id) else { return ifGone }
        return Int(id.index) == 0 ? body(rootNode) : body(scopes[Int(id.index) - 1])
    }
}

/// The time of one event, read at most once, and only when asked: a reading taken before the
/// lock (a scheduler other than ``MainQueueScheduler``, whose `now` is the caller's code), or
/// the coarse clock, read on demand. Passed `inout` from the first reader to the last (the
/// entry's start, a child's `activeSince`, the machines' edges up the tree).
struct EventTime {
    private var reading: TimeInterval?

    init(preread: TimeInterval?) {
        reading = preread
    }

    @inline(__always)
    mutating func now() -> TimeInterval {
        if let reading { return reading }
        let now = CoarseClock.now
        reading = now
        return now
    }
}
