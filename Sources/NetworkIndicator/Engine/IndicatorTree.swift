import Foundation

/// Every manager of one tree (a root and its scopes, at any depth) as one pure value, with no lock,
/// thread or scheduler: ``IndicatorDriver`` keeps it behind the root's lock and applies each task
/// event with ``apply(_:in:time:keepingAlive:)``; ``OutputDelivery`` performs the schedules' answers on the main actor,
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
        /// Whether ``diagnosticsHandler`` was set on this node's manager; until then, a scope's
        /// follows its parent's.
        var hasOwnDiagnosticsHandler = false
        /// The open tasks of every live descendant.
        var descendantTaskCount = 0
        /// When the count last left zero: a scope's parent's snapshot shows it, and a slow-activity
        /// watch begun during a busy period counts from it.
        var activeSince: TimeInterval = 0
        /// The parent's index, `-1` for the root.
        var parent: Int32
        /// The index of the child added last, `-1` for none: the children are linked, newest
        /// first, so that one leaves in O(1) however many siblings it has (a server's scopes, one
        /// per request). ``IndicatorTree/children(ofNodeAt:)`` lists them oldest first.
        var newestChild: Int32 = -1
        /// The indices of the siblings added just after and just before this node, `-1` for none.
        var newerSibling: Int32 = -1
        var olderSibling: Int32 = -1
        /// The name of the node in its parent's snapshot.
        var label: String?
        /// Bumped when the node is removed (see ``IndicatorTree/contains(_:)``).
        var generation: UInt32 = 0
        /// The parts with progress begun in the node or below it (`IndicatorTree+Progress.swift`).
        var batch = Batch()
        /// The interval of the progress poll the delivery was last asked for, `nil` for none.
        var progressPollInterval: TimeInterval?
        var hasProgressListeners = false
        /// The outputs of this node that watch tasks (`IndicatorTree+TaskEvents.swift`).
        var taskEventListeners = 0
        /// Whether the main actor holds an outlet for the node (``outletMade(for:)``), which its
        /// removal must close there.
        var hasOutlet = false

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
            guard new != old else {
                // A recording node's event that moved no count may have logged some (a begin over
                // a dead token's entry: two); the hop takes them (or finds none: a stale finish).
                if tellingSchedule, registry.eventLog != nil { hop = schedule.hopRequested() }
                return 0
            }
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
            activeSince = time.now()  // read at this edge anyway, by the schedule's policy
        }
    }

    /// The nodes whose schedule asked for a hop since the last ``drainDirtyNodes(now:)``, in the
    /// order they asked: while it is not empty, the tree's one hop is enqueued.
    var dirtyNodes: [Int32] = []

    /// The node at `index` asked for a hop; `true` if it is the first since the last drain (the
    /// caller enqueues the tree's hop after the lock), task events included.
    mutating func markDirty(_ index: Int32) -> Bool {
        dirtyNodes.append(index)
        return dirtyNodes.count == 1 && !taskEvents.isHopAsked
    }

    /// The task events waiting for the tree's hop (`IndicatorTree+TaskEvents.swift`).
    var taskEvents = TaskEventLog()

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

    /// Reads the node at `index` in place: a copy retains and releases every field of the node.
    func borrowNode<Result>(_ index: Int, _ body: (Node) -> Result) -> Result {
        index == 0 ? body(rootNode) : body(scopes[index - 1])
    }

    /// The indices of removed scopes (``removeNode(_:time:)``), for the next ones added.
    var freeIndices: [Int32] = []

    /// Adds a child of `parent` (which must be in the tree), named `label` in its snapshot, at a
    /// removed scope's index (in the generation its removal left) or appended. It reports through
    /// its parent's diagnostics handler and inherits its stale-task threshold.
    mutating func addNode(childOf parent: NodeID, label: String?) -> NodeID {
        precondition(contains(parent))
        let (threshold, handler) = withNode(Int(parent.index)) { ($0.schedule.staleThreshold, $0.diagnosticsHandler) }
        var node = Node(
            schedule: OutputSchedule(inheritingStaleThreshold: threshold),
            diagnosticsHandler: handler,
            parent: parent.index,
            label: label
        )
        node.olderSibling = withNode(Int(parent.index)) { $0.newestChild }
        let id: NodeID
        if let reused = freeIndices.popLast() {
            node.generation = scopes[Int(reused) - 1].generation
            scopes[Int(reused) - 1] = node
            id = NodeID(index: reused, generation: node.generation)
        } else {
            scopes.append(node)
            id = NodeID(index: Int32(scopes.count), generation: node.generation)
        }
        if node.olderSibling >= 0 { withNode(Int(node.olderSibling)) { $0.newerSibling = id.index } }
        withNode(Int(parent.index)) { $0.newestChild = id.index }
        if recordsTaskEvents(parent.index) { setRecording(true, ofNodeAt: id.index) }
        return id
    }

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
            var needsHop = hop && markDirty(0)
            if !tellingSchedule, askHopForTaskEvents() { needsHop = true }
            return (result, needsHop)
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
        if !tellingSchedule, askHopForTaskEvents() { needsHop = true }
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

    /// Applies `event` to the node `id` (nothing if `id` is stale) and carries the count's move up
    /// the tree: the one way a task begins or ends. The objects a `stopCounting` loads go to
    /// `keptAlive`, to release after the lock (an optional: the other events, which load none,
    /// then release no empty array; 18 instructions an explicit pair under callgrind). Returns
    /// what the event did and whether the tree's hop must be enqueued.
    @inline(__always)  // pays: every task event; the switch folds at each call site
    mutating func apply(
        _ event: TaskEvent,
        in id: NodeID,
        time: inout EventTime,
        keepingAlive keptAlive: inout [AnyObject]?
    ) -> (TaskEvent.Outcome, Bool) {
        // One `changeTasks` per case, each with a closure of its own: inlined at the call site
        // with the case known, the root's and the scope's path each inline their small closure
        // (one closure around the whole switch was left a call in the scope's path).
        switch event {
        case .begin(.token(let token), let label, let site):
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                let kind = node.classifier.kind(of: token)
                node.registry.begin(
                    ObjectIdentifier(token),
                    object: token,
                    kind: kind,
                    label: label,
                    site: site,
                    now: time.now()
                )
                return .applied
            }
        case .begin(.keyed(let key, let object, let kind), let label, let site):
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                node.registry.begin(key, object: object, kind: kind, label: label, site: site, now: time.now())
                // A group's later operation outlives the group's listed parts (Batch's rules).
                let outlives = kind == .group && !node.batch.parts.isEmpty && node.batch.outlive(key)
                return outlives ? .outlivedParts : .applied
            }
        case .begin(.newOpaqueToken, let label, let site):
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                .pinned(node.registry.pin(label: label, site: site, now: time.now()))
            }
        case .begin(.opaqueToken(let pinned), let label, let site):
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                node.registry.beginPinned(pinned, label: label, site: site, now: time.now()) ? .applied : .stale
            }
        case .begin(.counter, _, let site):
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                node.registry.push(site: site, now: time.now())
                return .applied
            }
        case .finish(let reference):
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                node.registry.finishOne(reference, time: &time)
            }
        case .finishAll(let key, let ending):
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                node.registry.finishAll(key, ending: ending, time: &time)
                node.batch.noteTasksEnded { $0.task == TaskKey(node: id, reference: .key(key)) }
                return .applied
            }
        case .release(let pinned):
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                node.registry.release(pinned, time: &time)
                return .applied
            }
        case .stopCounting(let key, let object):
            var loaded: [AnyObject] = []
            defer { keptAlive = loaded }
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                node.registry.stopCounting(key, object: object, keepingAlive: &loaded, time: &time)
            }
        case .pop:
            return changeTasks(in: id, time: &time, ifGone: .stale) { node, time in
                node.registry.pop(time: &time) ? .applied : .stale
            }
        }
    }
}

/// One task event: the closed set of ways a task begins or ends, each applied by
/// ``IndicatorTree/apply(_:in:time:keepingAlive:)`` under the tree's lock.
enum TaskEvent {
    /// What a task begins for.
    enum Subject {
        /// A caller's token, held weakly; its kind is decided once per type.
        case token(AnyObject)
        /// A key the sweep never checks (a group's, a helper's load); `object`, held weakly, is
        /// what a cancel reaches.
        case keyed(ObjectIdentifier, object: AnyObject?, kind: TaskKind)
        /// A new opaque token: a slot is pinned to it (``Outcome/pinned(_:)``).
        case newOpaqueToken
        /// An opaque token that exists.
        case opaqueToken(PinnedSlot)
        /// The push/pop counter.
        case counter
    }

    /// What an event did.
    enum Outcome: Equatable {
        /// It changed what it names.
        case applied
        /// It named nothing open: a finish or pop with no task, a begin of a stale pinned pair, a
        /// removed node. (A `.release` of a stale pair and a `.finishAll` of an unknown key change
        /// nothing and still answer `.applied`: nobody reads their outcome.)
        case stale
        /// A finish found its key's entry owned by a dead object; that entry's tasks ended.
        case tokenDead
        /// A new opaque token's slot.
        case pinned(PinnedSlot)
        /// A group's operation began, later than parts of the group still listed: they may
        /// leave (``ProgressEntry/isOutlived``), at the next fold.
        case outlivedParts
    }

    /// One task of `Subject` begins, labelled, begun at `site`.
    case begin(Subject, label: String?, site: CallSite)
    /// One task of the token the reference names ends.
    case finish(TaskReference)
    /// Every task under the key ends, reporting nothing (a token, group or load going away), as
    /// `ending` tells task watchers.
    case finishAll(ObjectIdentifier, ending: NetworkActivityTaskEvent.Ending = .finished)
    /// The opaque token is released (or done for good): its tasks end and its slot is freed; a
    /// stale pair changes nothing.
    case release(PinnedSlot)
    /// One task of the key ends while the object's work goes on: a cancel of this manager or of
    /// an ancestor still reaches it, until it dies (`TaskRegistry.stopCounting`).
    case stopCounting(ObjectIdentifier, object: any NetworkActivityCancellable)
    /// One counted task ends; `.stale` if none is open.
    case pop
}

/// The one way to name a task's token in the engine: a caller's token by its identity, or an
/// opaque token by the slot pinned to it.
enum TaskReference: Hashable, Sendable {
    case key(ObjectIdentifier)
    case pinned(PinnedSlot)
}
