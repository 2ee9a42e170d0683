import Foundation

// What runs on the main queue, as values: the tree's events there (below) and the deadlines of
// the tree's one timer (``TreeDeadlines``), which ``OutputDelivery`` keeps.

/// The events that run on the main queue: the tree's hop, a node's delay timer and the sweep's two
/// steps. Each returns plain data; a stale ``IndicatorTree/NodeID`` (its manager gone) changes nothing.
extension IndicatorTree {
    /// One schedule's answer, for the main actor to perform after the lock, and the node it is for.
    typealias Answer = (node: NodeID, reconciliation: OutputSchedule.Reconciliation)

    /// The tree's hop: every dirty node's answer (none once the root manager went, `now` `nil`),
    /// and the task events logged since the last hop (`nil`: none, the common case; the tree
    /// asks for the hop for them only once some are logged).
    mutating func takeHop(now: TimeInterval?) -> (answers: [Answer], events: TakenTaskEvents?) {
        let answers = now.map { drainDirtyNodes(now: $0) } ?? []
        let hasEvents = !taskEvents.buffer.events.isEmpty || taskEvents.isHopAsked
        return (answers, hasEvents ? takeTaskEvents() : nil)
    }

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
                answers.append((NodeID(index: index, generation: node.generation), reconciliation))
            }
        }
        dirtyNodes.removeAll(keepingCapacity: true)
        return answers
    }

    /// The delay timer of `id` fired; `nil` if `id` is stale.
    mutating func delayTimerFired(_ id: NodeID, now: TimeInterval) -> Answer? {
        guard contains(id) else { return nil }
        return withNode(Int(id.index)) { node in
            (id, node.schedule.delayTimerFired(node.activity(count: node.activeTaskCount), now: now))
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
        completed: [TaskRegistry.CompletionCandidate],
        now: TimeInterval
    ) -> (Answer?, Bool) {
        var time = EventTime(preread: now)
        return changeTasks(in: id, time: &time, tellingSchedule: false, ifGone: nil) { node, time in
            node.registry.finishCompleted(completed, time: &time)
            return (id, node.schedule.sweepFinished(node.activity(count: node.activeTaskCount), now: now))
        }
    }
}

// MARK: - The tree's deadlines

/// Pure: every pending timer of one tree as a deadline (each node's delay and sweep, each
/// manager's progress poll, each slow-activity watch), and what the scheduler's one timer is armed for. ``OutputDelivery``
/// holds it on the main actor, performs the ``Arming`` it answers and runs what a firing makes due:
/// the sweeps, then the delays of all nodes in one hold of the tree's lock, then the calls. A hide
/// that reaches four managers (a scope three deep) runs one timer and one firing.
///
/// A change costs O(log n) in the n deadlines of the tree (amortized: the heaps are rebuilt now
/// and then), plus a look through its node's few, not O(n); a firing, O(log n) a deadline due. A
/// server's thousands of scopes, each with its sweep or its delay, make no hop slower
/// (Benchmarks/README.md, "Many scopes, one timer"). The deadlines are kept by node, and found
/// in two binary heaps: by due time, and by the latest time each may run (its due time plus its
/// leeway). A deadline that leaves is only taken out of its node's list; its heap entries drop
/// out when they reach the top.
struct TreeDeadlines {
    /// One node's timer, due at `due`, then every `interval` if it repeats.
    struct Deadline {
        let node: IndicatorTree.NodeID
        let kind: OutputSchedule.TimerKind
        /// The generation a call's target gave (``DeadlineTarget/deadlineFired(generation:)``
        /// hears it back); 0 for a schedule's timer.
        let generation: UInt64
        var due: TimeInterval
        let interval: TimeInterval?
        let leeway: TimeInterval
        /// When it was listed, among all the tree's listings: deadlines due at the same time are
        /// due in this order, and a heap entry names its deadline by it.
        var sequence: UInt64 = 0
        /// What a call (``OutputSchedule/TimerKind/call``) calls; gone with its manager or its
        /// observation, and then the call leaves when it would arm the timer, when another call
        /// of its node changes, or when it is due (it fires into nothing and does not repeat).
        weak var target: (any DeadlineTarget)?
    }

    /// What the scheduler's timer must become: stopped, or started (replacing any running one).
    enum Arming: Equatable {
        case stop
        case start(after: TimeInterval, repeating: TimeInterval?, leeway: TimeInterval, generation: UInt64)
    }

    /// A heap entry: a deadline's time (due, or latest), then its listing order, and its node.
    private typealias Entry = (time: TimeInterval, sequence: UInt64, node: IndicatorTree.NodeID)

    /// Every pending deadline, by its node's index in the tree (a node has a few: its delay, its
    /// sweep, its calls), so that no node is hashed.
    private var byNode: [[Deadline]] = []
    /// How many deadlines `byNode` holds; the heaps are rebuilt when their left entries outnumber them.
    private var listedCount = 0
    /// Binary min-heaps of entries: by due time, and by due time plus leeway.
    private var byDue: [Entry] = []
    private var byLatest: [Entry] = []
    private var nextSequence: UInt64 = 0
    /// When the armed timer fires next, every how often if it repeats, and how late it may run;
    /// `nil` while none runs.
    private(set) var armed: (due: TimeInterval, interval: TimeInterval?, leeway: TimeInterval)?
    /// Bumped at each start: a firing of a timer replaced since (already queued) is stale.
    private(set) var generation: UInt64 = 0

    /// The entries of both heaps, those of deadlines that left included: just after a listing, at
    /// most four per deadline listed, plus 66.
    var heapEntryCount: Int { byDue.count + byLatest.count }

    /// Every pending deadline, in the order it was listed. O(n log n): for tests and debugging.
    var pending: [Deadline] {
        byNode.joined().sorted { $0.sequence < $1.sequence }
    }

    /// Applies a schedule's timer changes for `node` at `now`: each started timer replaces the
    /// one of its kind (the sweep repeats at its delay), each cancelled one leaves.
    mutating func apply(
        _ changes: [OutputSchedule.TimerKind: VisibilityPolicy.TimerAction],
        of node: IndicatorTree.NodeID,
        now: TimeInterval
    ) {
        for (kind, change) in changes {
            remove(of: node) { $0.kind == kind }
            guard case .start(let delay) = change else { continue }
            list(kind, of: node, after: delay, repeating: kind == .sweep ? delay : nil, now: now)
        }
    }

    /// How late the scheduler may run a timer, so that it can coalesce wake-ups: a tenth of a
    /// repeating timer's interval, or of a one-shot's delay but at most 50 ms (a delay's firing,
    /// or a slow-activity report, is something the user sees).
    static func leeway(delay: TimeInterval, repeating interval: TimeInterval?) -> TimeInterval {
        interval.map { $0 / 10 } ?? min(delay / 10, 0.05)
    }

    /// Calls `target` (of `node`) `delay` seconds from `now`, then every `interval` if given,
    /// replacing its listed call; a `nil` delay stops it. The call carries `generation`
    /// back to the target, which can tell a call of its own from an older one due in the same
    /// firing.
    mutating func call(
        _ target: any DeadlineTarget,
        after delay: TimeInterval?,
        repeating interval: TimeInterval? = nil,
        generation: UInt64 = 0,
        of node: IndicatorTree.NodeID,
        now: TimeInterval
    ) {
        // The target is the caller's, held: comparing with it loads no last reference. The
        // node's calls into nothing leave too, so that its list holds only live ones.
        remove(of: node) { $0.target === target || ($0.kind == .call && $0.target == nil) }
        guard let delay else { return }
        list(.call, of: node, after: delay, repeating: interval, generation: generation, target: target, now: now)
    }

    /// Lists a deadline of `kind` for `node`, due `delay` seconds from `now` (at once if
    /// negative), then every `interval` if given, with its ``leeway(delay:repeating:)``: in its
    /// node's list and in both heaps.
    private mutating func list(
        _ kind: OutputSchedule.TimerKind,
        of node: IndicatorTree.NodeID,
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        generation: UInt64 = 0,
        target: (any DeadlineTarget)? = nil,
        now: TimeInterval
    ) {
        let list = Int(node.index)
        if list >= byNode.count { byNode += repeatElement([], count: list + 1 - byNode.count) }
        byNode[list].append(
            Deadline(
                node: node,
                kind: kind,
                generation: generation,
                due: now + max(delay, 0),
                interval: interval,
                leeway: Self.leeway(delay: delay, repeating: interval),
                target: target
            )
        )
        listedCount += 1
        enter(byNode[list].count - 1, of: node)
    }

    /// Gives the deadline at `index` of `node`'s list a new sequence number, and enters it in both
    /// heaps (its older entries, if any, no longer name it).
    private mutating func enter(_ index: Int, of node: IndicatorTree.NodeID) {
        nextSequence &+= 1
        let list = Int(node.index)
        byNode[list][index].sequence = nextSequence
        if heapEntryCount > 4 * listedCount + 64 {
            // Mostly entries of deadlines that left: rebuilt from the lists (a sorted array is a heap).
            let listed = byNode.joined()
            byDue = listed.map { ($0.due, $0.sequence, $0.node) }.sorted(by: Self.precedes)
            byLatest = listed.map { ($0.due + $0.leeway, $0.sequence, $0.node) }.sorted(by: Self.precedes)
        } else {
            let (due, leeway) = (byNode[list][index].due, byNode[list][index].leeway)
            Self.push((due, nextSequence, node), into: &byDue)
            Self.push((due + leeway, nextSequence, node), into: &byLatest)
        }
    }

    /// Takes the deadlines of `node` that `leaves` picks out of its list; their heap entries stay.
    private mutating func remove(of node: IndicatorTree.NodeID, where leaves: (Deadline) -> Bool) {
        let list = Int(node.index)
        guard list < byNode.count else { return }
        let count = byNode[list].count
        byNode[list].removeAll { $0.node == node && leaves($0) }
        listedCount -= count - byNode[list].count
    }

    /// Takes the deadline at `index` of `node`'s list out, found already; its heap entries stay.
    private mutating func takeOut(_ index: Int, of node: IndicatorTree.NodeID) {
        byNode[Int(node.index)].remove(at: index)
        listedCount -= 1
    }

    /// Where the deadline listed under `sequence` for `node` is in its node's list, if listed.
    private func position(of sequence: UInt64, in node: IndicatorTree.NodeID) -> Int? {
        let list = Int(node.index)
        return list < byNode.count ? byNode[list].firstIndex { $0.sequence == sequence } : nil
    }

    /// Drops every deadline of a removed node; ``rearm(now:)`` then fits the timer to the rest.
    mutating func removeAll(of node: IndicatorTree.NodeID) {
        remove(of: node) { _ in true }
    }

    /// How the timer must change to fire at the earliest deadline (calls whose target went
    /// dropped on the way); `nil` if it will already (a repeating timer keeps running while its
    /// deadline stays the earliest). Its leeway is the least any deadline allows: a deadline due
    /// soon after the earliest, with less leeway, is not run later than its own leeway allows.
    mutating func rearm(now: TimeInterval) -> Arming? {
        guard let first = liveTop(byLatest: false), let latest = liveTop(byLatest: true) else {
            guard armed != nil else { return nil }
            armed = nil
            return .stop
        }
        let earliest = (due: first.due, interval: first.interval)
        // The difference first: exactly 0 for a deadline due with the earliest, so that a timer
        // re-listed as it repeats keeps its leeway to the bit, and its arming.
        let leeway = min(first.leeway, (latest.due - earliest.due) + latest.leeway)
        if let armed, armed.due == earliest.due, armed.interval == earliest.interval, armed.leeway == leeway {
            return nil
        }
        generation &+= 1
        armed = (earliest.due, earliest.interval, leeway)
        return .start(after: earliest.due - now, repeating: earliest.interval, leeway: leeway, generation: generation)
    }

    /// The listed deadline at the top of `byLatest` or `byDue`, after dropping the entries of
    /// deadlines that left, and the calls whose target went; `nil` if none is listed.
    private mutating func liveTop(byLatest latest: Bool) -> Deadline? {
        while let top = latest ? byLatest.first : byDue.first {
            if let index = position(of: top.sequence, in: top.node) {
                let list = Int(top.node.index)
                // By index: a copy of a deadline copies its weak reference.
                if byNode[list][index].kind != .call || byNode[list][index].target != nil {
                    return byNode[list][index]
                }
                takeOut(index, of: top.node)  // a call into nothing
            }
            if latest { Self.popTop(of: &byLatest) } else { Self.popTop(of: &byDue) }
        }
        return nil
    }

    /// The timer of `firing` fired: `nil` if it is stale, else whether it is spent (a one-shot,
    /// for the caller to release) and the deadlines due at `now`, taken out of the list, by due
    /// time, then in the order they were listed. A repeating deadline comes back one interval
    /// after its due time (after `now` if late), as the scheduler repeats; a poll whose manager
    /// went does not.
    mutating func fired(_ firing: UInt64, now: TimeInterval) -> (isSpent: Bool, due: [Deadline])? {
        guard firing == generation, let current = armed else { return nil }
        armed = current.interval.map { (current.due + $0, $0, current.leeway) }
        var due: [Deadline] = []
        var repeats: [Entry] = []
        // A firing this close to a deadline counts as on time, as in the policy.
        while let top = byDue.first, top.time <= now + VisibilityPolicy.tolerance {
            Self.popTop(of: &byDue)
            guard let index = position(of: top.sequence, in: top.node) else { continue }
            let deadline = byNode[Int(top.node.index)][index]
            due.append(deadline)
            if let interval = deadline.interval, deadline.kind != .call || deadline.target != nil {
                // Comes back in place, after this loop: an interval of 0 would be due again at once.
                let next = top.time + interval > now ? top.time + interval : now + interval
                byNode[Int(top.node.index)][index].due = next
                repeats.append((next, top.sequence, top.node))
            } else {
                takeOut(index, of: top.node)
            }
        }
        for repeated in repeats {
            if let index = position(of: repeated.sequence, in: repeated.node) {
                enter(index, of: repeated.node)
            }
        }
        return (current.interval == nil, due)
    }

    // MARK: Binary heaps

    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        (a.time, a.sequence) < (b.time, b.sequence)
    }

    private static func push(_ entry: Entry, into heap: inout [Entry]) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0, precedes(heap[child], heap[(child - 1) / 2]) {
            heap.swapAt(child, (child - 1) / 2)
            child = (child - 1) / 2
        }
    }

    private static func popTop(of heap: inout [Entry]) {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let child = left + 1 < heap.count && precedes(heap[left + 1], heap[left]) ? left + 1 : left
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(parent, child)
            parent = child
        }
    }
}

/// What a deadline that is a call calls, on the main actor: a progress roll-up's poll, a
/// slow-activity watch.
protocol DeadlineTarget: AnyObject {
    /// The call listed with `generation` is due.
    @MainActor func deadlineFired(generation: UInt64)
}
