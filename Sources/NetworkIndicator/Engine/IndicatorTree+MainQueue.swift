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
        completed: [(key: ObjectIdentifier, object: AnyObject)],
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
        /// What a call (``OutputSchedule/TimerKind/call``) calls; gone with its manager or its
        /// observation, and then the call leaves at the next arming (or, due already, fires into
        /// nothing and does not repeat).
        weak var target: (any DeadlineTarget)?
    }

    /// What the scheduler's timer must become: stopped, or started (replacing any running one).
    enum Arming: Equatable {
        case stop
        case start(after: TimeInterval, repeating: TimeInterval?, leeway: TimeInterval, generation: UInt64)
    }

    /// Every pending deadline, in the order it was listed.
    private(set) var pending: [Deadline] = []
    /// When the armed timer fires next, every how often if it repeats, and how late it may run;
    /// `nil` while none runs.
    private(set) var armed: (due: TimeInterval, interval: TimeInterval?, leeway: TimeInterval)?
    /// Bumped at each start: a firing of a timer replaced since (already queued) is stale.
    private(set) var generation: UInt64 = 0

    /// Applies a schedule's timer changes for `node` at `now`: each started timer replaces the
    /// one of its kind (the sweep repeats at its delay), each cancelled one leaves.
    mutating func apply(
        _ changes: [OutputSchedule.TimerKind: VisibilityPolicy.TimerAction],
        of node: IndicatorTree.NodeID,
        now: TimeInterval
    ) {
        for (kind, change) in changes {
            pending.removeAll { $0.node == node && $0.kind == kind }
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
        // The target is the caller's, held: comparing with it loads no last reference.
        pending.removeAll { $0.node == node && $0.target === target }
        guard let delay else { return }
        list(.call, of: node, after: delay, repeating: interval, generation: generation, now: now)
        pending[pending.count - 1].target = target
    }

    /// Lists a deadline of `kind` for `node`, due `delay` seconds from `now` (at once if
    /// negative), then every `interval` if given, with its ``leeway(delay:repeating:)``.
    private mutating func list(
        _ kind: OutputSchedule.TimerKind,
        of node: IndicatorTree.NodeID,
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        generation: UInt64 = 0,
        now: TimeInterval
    ) {
        let leeway = Self.leeway(delay: delay, repeating: interval)
        let due = now + max(delay, 0)
        pending.append(
            Deadline(node: node, kind: kind, generation: generation, due: due, interval: interval, leeway: leeway)
        )
    }

    /// Drops every deadline of a removed node; ``rearm(now:)`` then fits the timer to the rest.
    mutating func removeAll(of node: IndicatorTree.NodeID) {
        pending.removeAll { $0.node == node }
    }

    /// How the timer must change to fire at the earliest deadline, calls whose target went
    /// dropped first; `nil` if it will already (a repeating timer keeps running while its
    /// deadline stays the earliest). Its leeway is the least any deadline allows: a deadline due
    /// soon after the earliest, with less leeway, is not run later than its own leeway allows.
    mutating func rearm(now: TimeInterval) -> Arming? {
        // A call whose target went (a watch cancelled, its owner gone) waits for nothing.
        pending.removeAll { $0.kind == .call && $0.target == nil }
        // By index: a copy of a deadline copies its weak reference (a side-table retain and
        // release per deadline per scan).
        var first: Int?
        for index in pending.indices where pending[index].due < first.map({ pending[$0].due }) ?? .infinity {
            first = index
        }
        guard let first else {
            guard armed != nil else { return nil }
            armed = nil
            return .stop
        }
        let earliest = (due: pending[first].due, interval: pending[first].interval)
        var leeway = pending[first].leeway
        // The difference first: exactly 0 for a deadline due with the earliest, so that a timer
        // re-listed as it repeats keeps its leeway to the bit, and its arming.
        for index in pending.indices {
            leeway = min(leeway, (pending[index].due - earliest.due) + pending[index].leeway)
        }
        if let armed, armed.due == earliest.due, armed.interval == earliest.interval, armed.leeway == leeway {
            return nil
        }
        generation &+= 1
        armed = (earliest.due, earliest.interval, leeway)
        return .start(after: earliest.due - now, repeating: earliest.interval, leeway: leeway, generation: generation)
    }

    /// The timer of `firing` fired: `nil` if it is stale, else whether it is spent (a one-shot,
    /// for the caller to release) and the deadlines due at `now`, taken out of the list. A
    /// repeating deadline comes back one interval after its due time (after `now` if late), as
    /// the scheduler repeats; a poll whose manager went does not.
    mutating func fired(_ firing: UInt64, now: TimeInterval) -> (isSpent: Bool, due: [Deadline])? {
        guard firing == generation, let current = armed else { return nil }
        armed = current.interval.map { (current.due + $0, $0, current.leeway) }
        var due: [Deadline] = []
        pending.removeAll { deadline in
            // A firing this close to a deadline counts as on time, as in the policy.
            guard deadline.due <= now + VisibilityPolicy.tolerance else { return false }
            due.append(deadline)
            return true
        }
        for var next in due {
            guard let interval = next.interval, next.kind != .call || next.target != nil else { continue }
            next.due = next.due + interval > now ? next.due + interval : now + interval
            pending.append(next)
        }
        return (current.interval == nil, due)
    }
}

/// What a deadline that is a call calls, on the main actor: a progress roll-up's poll, a
/// slow-activity watch.
protocol DeadlineTarget: AnyObject {
    /// The call listed with `generation` is due.
    @MainActor func deadlineFired(generation: UInt64)
}
