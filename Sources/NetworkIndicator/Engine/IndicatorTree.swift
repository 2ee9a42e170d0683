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
    struct NodeID: Hashable, Sendable {
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
        /// The name of the node in its parent's snapshot.
        var label: String?
        /// Bumped when the node is removed (see ``IndicatorTree/contains(_:)``).
        var generation: UInt32 = 0
        /// The parts with progress begun in the node or below it (`IndicatorTree+Progress.swift`).
        var progress = NodeProgress()

        var activeTaskCount: Int { registry.activeTaskCount + descendantTaskCount }

        /// What the schedule decides on, for a `count` that equals ``activeTaskCount``.
        func activity(count: Int) -> OutputSchedule.Activity {
            OutputSchedule.Activity(count: count, tracksWeakTokens: registry.sweptEntryCount > 0)
        }

        /// After the node's own tasks changed from a count of `old`: notes when the count left zero
        /// and, if `tellingSchedule`, tells the schedule (its wish for a hop goes to `hop`).
        /// Returns how far the count moved.
        @inline(__always)  // pays: every count change (Benchmarks/README.md, "The engine cut")
        mutating func settle(from old: Int, time: inout EventTime, tellingSchedule: Bool, hop: inout Bool) -> Int {
            let new = activeTaskCount
            guard new != old else { return 0 }
            if old == 0 { leftZero(time: &time) }
            if tellingSchedule {
                hop = schedule.tasksChanged(from: old, to: activity(count: new), now: time.now())
            }
            return new - old
        }

        /// A descendant's count moved by `delta` (not 0); returns whether the schedule asks for a hop.
        @inline(__always)  // pays: every count change in a scope (Benchmarks/README.md, "The engine cut")
        mutating func descendantsChanged(by delta: Int, time: inout EventTime) -> Bool {
            let old = activeTaskCount
            descendantTaskCount += delta
            if old == 0 { leftZero(time: &time) }
            return schedule.tasksChanged(from: old, to: activity(count: old + delta), now: time.now())
        }

        @inline(__always)  // pays: every count change (Benchmarks/README.md, "The engine cut")
        private mutating func leftZero(time: inout EventTime) {
            // Only a parent's snapshot reads when a child became active.
            if parent >= 0 { activeSince = time.now() }
        }
    }

    /// The nodes whose schedule asked for a hop since the last ``drainDirtyNodes(now:)``, in the
    /// order they asked: while it is not empty, the tree's one hop is enqueued.
    private(set) var dirtyNodes: [Int32] = []

    /// The node at `index` asked for a hop; `true` if it is the first since the last drain (the
    /// caller enqueues the tree's hop after the lock).
    mutating func markDirty(_ index: Int32) -> Bool {
        dirtyNodes.append(index)
        return dirtyNodes.count == 1
    }

    /// The hop drained the dirty nodes.
    mutating func clearDirtyNodes() {
        dirtyNodes.removeAll(keepingCapacity: true)
    }

    /// The root (index 0), kept out of `scopes`: a root's event skips an array access, and a
    /// scope's roll-up reaches it without one (pays: 11-13 % of a depth-1 pair; Benchmarks/README.md).
    private(set) var rootNode: Node
    /// Node `i` at `scopes[i - 1]`; a removed node's index waits in ``freeIndices`` for reuse.
    private(set) var scopes: [Node] = []

    /// Runs `body` on `node` in one write access.
    @inline(__always)  // pays: every scope's task event (Benchmarks/README.md, "The engine cut")
    private static func modify<Result>(_ node: inout Node, _ body: (inout Node) -> Result) -> Result {
        body(&node)
    }

    /// Runs `body` on the node at `index`, in place: for the tree's own events.
    mutating func withNode<Result>(_ index: Int, _ body: (inout Node) -> Result) -> Result {
        if index == 0 { return body(&rootNode) }
        return body(&scopes[index - 1])
    }

    /// The node at `index`, copied (off the hot paths).
    func node(at index: Int) -> Node {
        index == 0 ? rootNode : scopes[index - 1]
    }

    private var freeIndices: [Int32] = []

    /// Adds a child of `parent` (which must be in the tree), named `label` in its snapshot, at a
    /// removed scope's index (in the generation its removal left) or appended.
    mutating func addNode(
        childOf parent: NodeID,
        label: String?,
        diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler
    ) -> NodeID {
        precondition(contains(parent))
        let threshold = withNode(Int(parent.index)) { $0.schedule.staleThreshold }
        var node = Node(
            schedule: OutputSchedule(inheritingStaleThreshold: threshold),
            diagnosticsHandler: diagnosticsHandler,
            parent: parent.index,
            label: label
        )
        let id: NodeID
        if let reused = freeIndices.popLast() {
            node.generation = scopes[Int(reused) - 1].generation
            scopes[Int(reused) - 1] = node
            id = NodeID(index: reused, generation: node.generation)
        } else {
            scopes.append(node)
            id = NodeID(index: Int32(scopes.count), generation: node.generation)
        }
        withNode(Int(parent.index)) { $0.children.append(id.index) }
        return id
    }

    /// The manager of `id` is gone: its remaining tasks end in every ancestor, it leaves its
    /// parent's children, and its id goes stale. Returns whether the tree's hop must be enqueued.
    /// Its descendants are gone already (each keeps its parent's manager alive); its outputs and
    /// timers are ``OutputDelivery``'s to stop.
    mutating func removeNode(_ id: NodeID, time: inout EventTime) -> Bool {
        guard contains(id) else { return false }
        let (parent, ended) = withNode(Int(id.index)) { ($0.parent, $0.registry.activeTaskCount) }
        var needsHop = false
        if parent >= 0 {
            withNode(Int(parent)) { $0.children.removeAll { $0 == id.index } }
            needsHop = ended > 0 && rollUp(-ended, from: parent, time: &time)
        }
        // Empty the node and move it to the next generation, which no id names yet: `contains`
        // refuses every id of the removed node. A scope's index waits for reuse.
        withNode(Int(id.index)) { node in
            node = Node(diagnosticsHandler: Self.silent, parent: -1)
            node.generation = id.generation &+ 1
        }
        if id.index > 0 { freeIndices.append(id.index) }
        return needsHop
    }

    /// The handler of a removed node, and the answer for a stale id.
    static let silent: NetworkIndicatorDiagnosticsHandler = { _ in }

    static let rootID = NodeID(index: 0, generation: 0)

    /// A tree whose root reports to `diagnosticsHandler` and, unless its settings say otherwise,
    /// reports tasks older than `defaultStaleThreshold` (`nil`: none).
    init(diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler, defaultStaleThreshold: TimeInterval? = nil) {
        rootNode = Node(
            schedule: OutputSchedule(inheritingStaleThreshold: defaultStaleThreshold),
            diagnosticsHandler: diagnosticsHandler,
            parent: -1
        )
    }

    /// Whether `id` names a node of the tree (not removed since).
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

    // MARK: - Count changes

    /// Runs `change` on the node `id` (nothing if `id` is stale), then carries the count's move up
    /// the tree and tells each schedule it reached (the node's own only if `tellingSchedule`).
    /// Returns `change`'s result and whether the tree's hop must be enqueued.
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
        guard id.index > 0 else {
            // The root, the common case: no ancestor to reach, no scope array to touch.
            let old = rootNode.activeTaskCount
            let result = change(&rootNode, &time)
            _ = rootNode.settle(from: old, time: &time, tellingSchedule: tellingSchedule, hop: &hop)
            return (result, hop && markDirty(0))
        }
        // One write access to the scope's node (one bounds and uniqueness check) for the change.
        let (result, delta, parent) = Self.modify(&scopes[Int(id.index) - 1]) { node in
            let old = node.activeTaskCount
            let result = change(&node, &time)
            let delta = node.settle(from: old, time: &time, tellingSchedule: tellingSchedule, hop: &hop)
            return (result, delta, node.parent)
        }
        var needsHop = hop && markDirty(id.index)
        if delta != 0, rollUp(delta, from: parent, time: &time) { needsHop = true }
        return (result, needsHop)
    }

    /// The one roll-up: adds `delta` to the descendants' count of the node at `first` and of each
    /// of its ancestors, each schedule told; those that ask for a hop are marked dirty. Returns
    /// whether the tree's hop must be enqueued; nothing for `first` == `-1` (above the root).
    @inline(__always)  // pays: a depth-1 scope's pair (Benchmarks/README.md, "The engine cut")
    mutating func rollUp(_ delta: Int, from first: Int32, time: inout EventTime) -> Bool {
        // A child of the root, the common scope, reaches its one ancestor without the loop's call.
        guard first == 0 else { return rollUp(delta, fromScope: first, time: &time) }
        return rootNode.descendantsChanged(by: delta, time: &time) && markDirty(0)
    }

    /// ``rollUp(_:from:time:)`` from a scope's parent that is not the root, or from above the root.
    @inline(never)
    private mutating func rollUp(_ delta: Int, fromScope first: Int32, time: inout EventTime) -> Bool {
        var needsHop = false
        // Every chain of parents ends at the root (index 0), kept apart from the scopes.
        var next = first
        while next > 0 {
            let position = Int(next) - 1
            if scopes[position].descendantsChanged(by: delta, time: &time), markDirty(next) { needsHop = true }
            next = scopes[position].parent
        }
        if next == 0, rootNode.descendantsChanged(by: delta, time: &time), markDirty(0) { needsHop = true }
        return needsHop
    }

    // MARK: - Task events, from any thread

    // Each returns whether the tree's hop must be enqueued, after its result if it has one; a
    // stale id changes nothing.

    /// Begins one task for a caller's `token`, held weakly; its kind is decided once per type.
    mutating func beginToken(
        _ token: AnyObject,
        label: String?,
        site: CallSite = .none,
        in id: NodeID,
        time: inout EventTime
    ) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, time in
            let kind = node.classifier.kind(of: token)
            node.registry.begin(
                ObjectIdentifier(token),
                object: token,
                kind: kind,
                label: label,
                site: site,
                now: time.now()
            )
        }.1
    }

    /// Begins one task under `key` that the sweep never checks (a group's, a helper's load).
    mutating func begin(
        _ key: ObjectIdentifier,
        object: AnyObject?,
        kind: TaskKind,
        label: String?,
        site: CallSite = .none,
        in id: NodeID,
        time: inout EventTime
    ) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, time in
            node.registry.begin(key, object: object, kind: kind, label: label, site: site, now: time.now())
        }.1
    }

    /// Pins a slot to a new opaque token and begins its first task; `nil` if `id` is stale.
    mutating func beginOpaqueToken(
        label: String?,
        site: CallSite = .none,
        in id: NodeID,
        time: inout EventTime
    ) -> (PinnedSlot?, Bool) {
        changeTasks(in: id, time: &time, ifGone: nil) { node, time in
            node.registry.pin(label: label, site: site, now: time.now())
        }
    }

    /// Begins one more task of the opaque token `pinned`; `false` if its pair is stale.
    mutating func beginOpaqueToken(
        _ pinned: PinnedSlot,
        label: String?,
        site: CallSite = .none,
        in id: NodeID,
        time: inout EventTime
    ) -> (Bool, Bool) {
        changeTasks(in: id, time: &time, ifGone: false) { node, time in
            node.registry.beginPinned(
                at: pinned.slot,
                generation: pinned.generation,
                label: label,
                site: site,
                now: time.now()
            )
        }
    }

    /// Ends one task of the token `reference` names; a stale pinned slot is `.unknown`.
    @inline(__always)  // pays: every finish (Benchmarks/README.md, "The engine cut")
    mutating func finishOne(
        _ reference: TaskReference,
        in id: NodeID,
        time: inout EventTime
    ) -> (TaskRegistry.FinishOutcome, Bool) {
        changeTasks(in: id, time: &time, ifGone: .unknown) { node, _ in node.registry.finishOne(reference) }
    }

    /// Ends one task of `key` and keeps `object` within a cancel's reach, uncounted (see
    /// `TaskRegistry.stopCounting`); the live objects read go to `keptAlive`.
    mutating func stopCounting(
        _ key: ObjectIdentifier,
        object: AnyObject,
        in id: NodeID,
        keepingAlive keptAlive: inout [AnyObject],
        time: inout EventTime
    ) -> (TaskRegistry.FinishOutcome, Bool) {
        changeTasks(in: id, time: &time, ifGone: .unknown) { node, _ in
            node.registry.stopCounting(key, object: object, keepingAlive: &keptAlive)
        }
    }

    /// The opaque token at (`slot`, `generation`) is released: its tasks end, its slot is freed.
    mutating func release(pinnedAt slot: Int32, generation: UInt32, in id: NodeID, time: inout EventTime) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, _ in
            node.registry.release(pinnedAt: slot, generation: generation)
        }.1
    }

    /// Ends every task under `key`, reporting nothing.
    mutating func finishAll(_ key: ObjectIdentifier, in id: NodeID, time: inout EventTime) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, _ in node.registry.finishAll(key) }.1
    }

    /// Begins one counted task.
    mutating func push(site: CallSite = .none, in id: NodeID, time: inout EventTime) -> Bool {
        changeTasks(in: id, time: &time, ifGone: ()) { node, time in node.registry.push(site: site, now: time.now()) }.1
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
