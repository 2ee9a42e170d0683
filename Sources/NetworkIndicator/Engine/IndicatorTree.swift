import Foundation

/// Every manager of one tree (a root and its scopes, at any depth) as one pure value, with no lock,
/// thread or scheduler: ``IndicatorDriver`` keeps it behind the root's lock and calls one named
/// `mutating func` per event; ``OutputDelivery`` performs the schedules' answers on the main actor,
/// after the lock. A count change rolls up to every ancestor inside the event, and a subtree event
/// (reset, cancel, snapshot) is one call, hence one lock hold.
///
/// Invariants, kept by every event:
/// - a node's ``Node/activeTaskCount`` is its registry's tasks plus ``Node/descendantTaskCount``;
/// - a node's schedule hears of every change of its count, its own or a descendant's;
/// - a node is reached only through a ``NodeID`` of its current generation (``contains(_:)``).
struct IndicatorTree {
    /// A node's index, and the generation that index had when the node was added. A removed
    /// node's index is reused with the next generation.
    struct NodeID: Equatable, Sendable {
        let index: Int32
        let generation: UInt32
    }

    struct Node {
        var registry = TaskRegistry()
        var classifier = TokenClassifier()
        var schedule = OutputSchedule()
        var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler
        /// The open tasks of every live descendant.
        var descendantTaskCount = 0
        /// When the count last left zero, for a scope (its parent's snapshot shows it).
        var activeSince: TimeInterval = 0
        /// The parent's index, `-1` for the root.
        var parent: Int32
        var children: [Int32] = []
        /// The node's name in its parent's snapshot.
        var label: String?
        /// Bumped when the node is removed (see ``IndicatorTree/contains(_:)``).
        var generation: UInt32 = 0

        var activeTaskCount: Int { registry.activeTaskCount + descendantTaskCount }

        /// What the schedule decides on, for a `count` that equals ``activeTaskCount``.
        func activity(count: Int) -> OutputSchedule.Activity {
            OutputSchedule.Activity(count: count, tracksWeakTokens: registry.sweptEntryCount > 0)
        }

        /// Runs `change` on the node's own tasks in one write access, notes when the count left
        /// zero and, if `tellingSchedule`, tells the schedule (its wish for a hop goes
        /// to `hop`). Returns `change`'s result and how far the count moved.
        @inline(__always)  // pays: every task event (Benchmarks/README.md, "The engine cut")
        mutating func changeTasks<Result>(
            time: inout EventTime,
            tellingSchedule: Bool,
            hop: inout Bool,
            _ change: (inout Node, inout EventTime) -> Result
        ) -> (Result, delta: Int) {
            let old = activeTaskCount
            let result = change(&self, &time)
            let new = activeTaskCount
            guard new != old else { return (result, 0) }
            if old == 0, parent >= 0 { activeSince = time.now() }
            if tellingSchedule {
                hop = schedule.tasksChanged(from: old, to: activity(count: new), now: time.now())
            }
            return (result, new - old)
        }

        /// A descendant's count moved by `delta` (not 0); returns whether the schedule asks for a hop.
        @inline(__always)  // pays: every count change in a scope (Benchmarks/README.md, "The engine cut")
        mutating func descendantsChanged(by delta: Int, time: inout EventTime) -> Bool {
            let old = activeTaskCount
            descendantTaskCount += delta
            if old == 0, parent >= 0 { activeSince = time.now() }
            return schedule.tasksChanged(from: old, to: activity(count: old + delta), now: time.now())
        }
    }

    /// The nodes whose schedule asked for a hop since the last ``drainDirtyNodes(now:)``, in the
    /// order they asked: while it is not empty, the tree's one hop is enqueued.
    private(set) var dirtyNodes: [Int32] = []
    // Changed only by the tree's events (this file and its extensions).

    /// Node `i` at `nodes[i]`, the root at 0; a removed node's index waits in `freeIndices`.
    var nodes: [Node]
    var freeIndices: [Int32] = []

    /// The handler of a removed node, and the answer for a stale id.
    static let silent: NetworkIndicatorDiagnosticsHandler = { _ in }
    static let rootID = NodeID(index: 0, generation: 0)

    init(diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler) {
        nodes = [Node(diagnosticsHandler: diagnosticsHandler, parent: -1)]
    }

    /// Whether `id` names a node of the tree (not removed since).
    func contains(_ id: NodeID) -> Bool {
        Int(id.index) < nodes.count && nodes[Int(id.index)].generation == id.generation
    }

    /// The node `id` names; it must be in the tree.
    subscript(id: NodeID) -> Node {
        precondition(contains(id))
        return nodes[Int(id.index)]
    }

    /// The node at `index` asked for a hop; `true` if it is the first since the last drain (the
    /// caller enqueues the tree's hop after the lock).
    mutating func markDirty(_ index: Int32) -> Bool {
        dirtyNodes.append(index)
        return dirtyNodes.count == 1
    }

    /// Takes the dirty nodes, in the order they asked (for the hop).
    mutating func takeDirtyNodes() -> [Int32] {
        defer { dirtyNodes.removeAll(keepingCapacity: true) }
        return dirtyNodes
    }

    // MARK: - Count changes

    /// Runs `change` on the node `id` (nothing if `id` is stale), then carries the count's move up
    /// the tree. Returns `change`'s result and whether the tree's hop must be enqueued.
    @inline(__always)  // pays: every task event (Benchmarks/README.md, "The engine cut")
    mutating func changeTasks<Result>(
        in id: NodeID,
        time: inout EventTime,
        tellingSchedule: Bool = true,
        ifGone: Result,
        _ change: (inout Node, inout EventTime) -> Result
    ) -> (Result, Bool) {
        guard contains(id) else { return (ifGone, false) }
        var hop = false
        let index = Int(id.index)
        let (result, delta) = nodes[index].changeTasks(
            time: &time,
            tellingSchedule: tellingSchedule,
            hop: &hop,
            change
        )
        var needsHop = hop && markDirty(id.index)
        let parent = nodes[index].parent
        if delta != 0, parent >= 0, rollUp(delta, from: parent, time: &time) { needsHop = true }
        return (result, needsHop)
    }

    /// The one roll-up: adds `delta` to the descendants' count of the node at `first` and of each
    /// of its ancestors, each schedule told; those that ask for a hop are marked dirty. Returns
    /// whether the tree's hop must be enqueued.
    mutating func rollUp(_ delta: Int, from first: Int32, time: inout EventTime) -> Bool {
        var needsHop = false
        var next = first
        while next >= 0 {
            if nodes[Int(next)].descendantsChanged(by: delta, time: &time), markDirty(next) { needsHop = true }
            next = nodes[Int(next)].parent
        }
        return needsHop
    }

    // MARK: - Task events, from any thread

    // Each returns whether the tree's hop must be enqueued, after its result if it has one; a
    // stale id changes nothing.

    /// Begins one task for a caller's `token`, held weakly; its kind is decided once per type.
    mutating func beginToken(_ token: AnyObject, label: String?, in id: NodeID, time: inout EventTime) -> Bool {
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
    ) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, time in
            node.registry.begin(key, object: object, kind: kind, label: label, now: time.now())
        }.1
    }

    /// Pins a slot to a new opaque token and begins its first task; `nil` if `id` is stale.
    mutating func beginOpaqueToken(label: String?, in id: NodeID, time: inout EventTime) -> (PinnedSlot?, Bool) {
        changeTasks(in: id, time: &time, ifGone: nil) { node, time in node.registry.pin(label: label, now: time.now()) }
    }

    /// Begins one more task of the opaque token `pinned`; `false` if its pair is stale.
    mutating func beginOpaqueToken(
        _ pinned: PinnedSlot,
        label: String?,
        in id: NodeID,
        time: inout EventTime
    ) -> (Bool, Bool) {
        changeTasks(in: id, time: &time, ifGone: false) { node, time in
            node.registry.beginPinned(at: pinned.slot, generation: pinned.generation, label: label, now: time.now())
        }
    }

    /// Ends one task under `key`.
    @inline(__always)  // pays: every finish (Benchmarks/README.md, "The engine cut")
    mutating func finishOne(
        _ key: ObjectIdentifier,
        in id: NodeID,
        time: inout EventTime
    ) -> (TaskRegistry.FinishOutcome, Bool) {
        changeTasks(in: id, time: &time, ifGone: .unknown) { node, _ in node.registry.finishOne(key) }
    }

    /// Ends one task of the opaque token at (`slot`, `generation`); a stale pair is `.unknown`.
    mutating func finishOne(
        pinnedAt slot: Int32,
        generation: UInt32,
        in id: NodeID,
        time: inout EventTime
    ) -> (TaskRegistry.FinishOutcome, Bool) {
        changeTasks(in: id, time: &time, ifGone: .unknown) { node, _ in
            node.registry.finishOne(pinnedAt: slot, generation: generation)
        }
    }

    /// Ends every task of the opaque token at (`slot`, `generation`); the slot stays pinned.
    mutating func finishAll(pinnedAt slot: Int32, generation: UInt32, in id: NodeID, time: inout EventTime) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, _ in
            node.registry.finishAll(pinnedAt: slot, generation: generation, unpinning: false)
        }.1
    }

    /// The opaque token at (`slot`, `generation`) is released: its tasks end, its slot is freed.
    mutating func release(pinnedAt slot: Int32, generation: UInt32, in id: NodeID, time: inout EventTime) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, _ in
            node.registry.finishAll(pinnedAt: slot, generation: generation, unpinning: true)
        }.1
    }

    /// Ends every task under `key`, reporting nothing.
    mutating func finishAll(_ key: ObjectIdentifier, in id: NodeID, time: inout EventTime) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, _ in node.registry.finishAll(key) }.1
    }

    /// Begins one counted task.
    mutating func push(in id: NodeID, time: inout EventTime) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, time in node.registry.push(now: time.now()) }.1
    }

    /// Ends one counted task; `false` (and no change) if none is open.
    mutating func pop(in id: NodeID, time: inout EventTime) -> (Bool, Bool) {
        changeTasks(in: id, time: &time, ifGone: false) { node, _ in node.registry.pop() }
    }
}

/// The time of one event, read at most once and only when asked: a reading taken before the lock
/// (a scheduler other than ``MainQueueScheduler``), or the coarse clock on demand.
struct EventTime {
    private var reading: TimeInterval?

    init(preread: TimeInterval?) {
        reading = preread
    }

    mutating func now() -> TimeInterval {
        if let reading { return reading }
        let now = CoarseClock.now
        reading = now
        return now
    }
}
