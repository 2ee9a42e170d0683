import Foundation

/// The main-actor half of one tree: each node's outputs, the tree's one hop (every dirty node
/// drained in one hold of the tree's lock, the answers performed after it: deadlines, then
/// outputs) and the tree's one timer (``TreeDeadlines``). Outputs are held weakly; a stream or a
/// progress observer is kept until it ends. Those that want the fraction hear
/// ``ProgressRollUp``'s readings.
@MainActor
final class OutputDelivery {
    /// One node's outputs, for the node of `generation` at its index.
    struct Outlet {
        let generation: UInt32
        var attached: [Attached] = []
        /// What the outputs were last told.
        var isVisible = false
        /// The fraction last told to the outputs that want it.
        var fraction: Double?
    }

    struct Attached {
        weak var output: (any NetworkIndicatorOutput)?
        /// This attachment's number: an output removed and added again is a new attachment.
        let serial: UInt64
        let receivesCount: Bool
        /// A ``NetworkActivityTaskEventOutput``: it hears the tasks of its node and below.
        let receivesTaskEvents: Bool
        /// Told the fraction (``ProgressRollUp``'s readings).
        let receivesFraction: Bool
        /// An output kept here (strongly) until it ends or its node goes: a visibility stream,
        /// a ``ProgressObserver``.
        let kept: (any NetworkIndicatorOutput)?

        /// Whether it still listens: alive, and not an observer whose owner went or that was cancelled.
        @MainActor var isLive: Bool { output != nil && (kept as? ProgressObserver)?.isFinished != true }
    }

    private nonisolated let tree: LockedState<IndicatorTree>
    /// Any scheduler but ``MainQueueScheduler``, until the root manager goes, then `nil` (work still
    /// queued then holds no cycle through it: a dropped scheduler frees both). `nil` from the start
    /// on ``MainQueueScheduler``, which holds no state: the delivery makes its own, without a lock.
    private nonisolated let schedulerSlot: LockedState<(any NetworkIndicatorScheduler)?>?
    /// By node index; an outlet of an older generation belongs to a removed node.
    private(set) var outlets: [Outlet?] = []
    private var attachments: UInt64 = 0
    /// Every node's pending timers, and what the tree's one timer is armed for.
    private var deadlines = TreeDeadlines()
    /// The scheduler's one timer for the tree, running while `deadlines` is armed.
    private var timer: (any NetworkIndicatorTimer)?

    nonisolated init(tree: LockedState<IndicatorTree>, scheduler: any NetworkIndicatorScheduler) {
        self.tree = tree
        self.schedulerSlot = scheduler is MainQueueScheduler ? nil : LockedState(scheduler)
    }

    /// The tree's scheduler; `nil` once the root manager is gone, unless it is the main queue's.
    nonisolated var scheduler: (any NetworkIndicatorScheduler)? {
        guard let schedulerSlot else { return MainQueueScheduler() }
        return schedulerSlot.withLock { $0 }
    }

    /// Queues the tree's hop on `scheduler` (the tree's), for an event that marked the first dirty node.
    nonisolated func enqueueHop(on scheduler: any NetworkIndicatorScheduler) {
        scheduler.enqueue { [self] in hop() }
    }

    /// The root manager is gone: let go of the scheduler (see `schedulerSlot`).
    nonisolated func rootRemoved() {
        schedulerSlot?.withLock { $0 = nil }
    }

    /// The tree's hop: every dirty node's answer, drained in one lock hold, then performed.
    func hop() {
        // Once the root manager is gone (its scheduler let go) no node is left to reconcile, but
        // its tasks' last events (`managerGone`) still reach their watchers.
        let now = scheduler?.now
        let (answers, events) = tree.withLock { $0.takeHop(now: now) }
        // The timer is fitted once to every node's new deadlines, not once per node: a fit may
        // replace the scheduler's timer, which a later node's deadline would replace again.
        for answer in answers { perform(answer, arming: false) }
        if answers.contains(where: { !$0.reconciliation.timerChanges.isEmpty }), let scheduler {
            arm(scheduler, now: scheduler.now)
        }
        if let events, !events.pending.isEmpty { deliver(events.events) }
    }

    /// The live outputs of `node`, in the order they were added.
    func outputs(of node: IndicatorTree.NodeID) -> [any NetworkIndicatorOutput] {
        outlet(node)?.attached.compactMap(\.output) ?? []
    }

    /// What the outputs of `node` were last told.
    func isVisible(_ node: IndicatorTree.NodeID) -> Bool {
        outlet(node)?.isVisible ?? false
    }

    /// When the count of `node` last left zero, if it has tasks now: a slow-activity watch begun
    /// during a busy period asks once, at the first count above zero it is told.
    func busySince(_ node: IndicatorTree.NodeID) -> TimeInterval? {
        tree.withLock { $0.busySince(of: node) }
    }

    /// Attaches `output` to `node` (kept strongly if `keeps`: a visibility stream, a progress
    /// observer); returns the attachment, or `nil` if it is attached already, or if `node` is
    /// older than the outlet at its index (a removed node).
    func attach(
        _ output: any NetworkIndicatorOutput,
        to node: IndicatorTree.NodeID,
        receivesCount: Bool = false,
        receivesTaskEvents: Bool = false,
        receivesFraction: Bool = false,
        keeps: Bool = false
    ) -> Attached? {
        attachments += 1
        let attached = Attached(
            output: output,
            serial: attachments,
            receivesCount: receivesCount,
            receivesTaskEvents: receivesTaskEvents,
            receivesFraction: receivesFraction,
            kept: keeps ? output : nil
        )
        let isNew = modifyOutlet(node) { outlet in
            guard !outlet.attached.contains(where: { $0.output === output }) else { return false }
            outlet.attached.append(attached)
            return true
        }
        return isNew == true ? attached : nil
    }

    /// Detaches `output` from `node`: `nil` if it was not attached, else its attachment (what it
    /// received).
    func detach(_ output: any NetworkIndicatorOutput, from node: IndicatorTree.NodeID) -> Attached? {
        guard outlet(node) != nil else { return nil }
        return modifyOutlet(node) { outlet -> Attached? in
            guard let index = outlet.attached.firstIndex(where: { $0.output === output }) else { return nil }
            return outlet.attached.remove(at: index)
        } ?? nil
    }

    /// Calls `target` of `node` on the tree's timer after `delay` seconds, then every `interval`
    /// if given, replacing its listed call, handing it `generation` back; a `nil` delay
    /// stops it. Nothing for a node without outputs or listeners (gone, or never observed).
    func call(
        _ target: any DeadlineTarget,
        after delay: TimeInterval?,
        repeating interval: TimeInterval? = nil,
        generation: UInt64 = 0,
        for node: IndicatorTree.NodeID
    ) {
        guard let scheduler, outlet(node) != nil else { return }
        let now = scheduler.now
        deadlines.call(
            target,
            after: delay,
            repeating: interval,
            generation: generation,
            of: node,
            now: now
        )
        arm(scheduler, now: now)
    }

    /// The manager of `node` is gone: its timers stop, outputs that showed the indicator hear
    /// `false`, count outputs hear `0`, and all are let go. Nothing if a newer node has its index.
    func remove(_ node: IndicatorTree.NodeID) {
        guard let outlet = outlet(node) else { return }
        outlets[Int(node.index)] = nil
        close(outlet, at: Int(node.index))
    }

    // MARK: - Private

    /// Performs one schedule's answer: moves its deadlines (fitting the timer to them unless the
    /// caller fits it once for several answers, `arming` false), then tells the outputs.
    private func perform(_ answer: IndicatorTree.Answer, arming: Bool = true) {
        let (node, reconciliation) = answer
        guard let scheduler else { return }
        // `nil`: the node went, and a new one took its index, since the drain.
        let changed = modifyOutlet(node) { outlet in
            if let visibility = reconciliation.visibility { outlet.isVisible = visibility }
            return outlet.attached
        }
        guard let targets = changed else { return }
        if !reconciliation.timerChanges.isEmpty {
            let now = scheduler.now
            deadlines.apply(reconciliation.timerChanges, of: node, now: now)
            if arming { arm(scheduler, now: now) }
        }
        if let visibility = reconciliation.visibility {
            tell(targets, of: node) { $1.networkIndicatorVisibilityDidChange(visibility) }
        }
        if let count = reconciliation.count {
            tell(targets.filter(\.receivesCount), of: node) { $1.networkIndicatorActiveTaskCountDidChange(count) }
        }
        if let isEnabled = reconciliation.isEnabled {
            tell(targets, of: node) { ($1 as? any ManagerAwareOutput)?.managerEnabledChanged(isEnabled) }
        }
        pruneReleasedOutputs(of: node)
    }

    /// Runs `body` on each of `targets` alive and still attached to `node`: each call may remove
    /// or add outputs (`removeOutput` from an output's own callback), and one removed, or added
    /// again, by an earlier call is told nothing more here.
    func tell(
        _ targets: [Attached],
        of node: IndicatorTree.NodeID,
        _ body: (Attached, any NetworkIndicatorOutput) -> Void
    ) {
        for target in targets {
            guard let output = target.output, isAttached(target, to: node) else { continue }
            body(target, output)
        }
    }

    /// Starts, replaces or stops the tree's timer for the earliest deadline, if it must change.
    private func arm(_ scheduler: any NetworkIndicatorScheduler, now: TimeInterval) {
        guard let arming = deadlines.rearm(now: now) else { return }
        timer?.cancel()
        timer = nil
        guard case .start(let delay, let interval, let leeway, let generation) = arming else { return }
        timer = scheduler.schedule(after: delay, repeating: interval, leeway: leeway) { [weak self] in
            self?.timerFired(generation)
        }
    }

    /// The tree's timer fired: every deadline due runs, the sweeps, then the delays of all nodes
    /// in one hold of the lock, then the calls (progress polls, slow-activity watches)
    /// (``TreeDeadlines/fired(_:now:)``).
    private func timerFired(_ generation: UInt64) {
        guard let scheduler else { return }
        let now = scheduler.now
        guard let (isSpent, due) = deadlines.fired(generation, now: now) else { return }
        if isSpent {
            timer?.cancel()  // lets the scheduler release it
            timer = nil
        }
        // The sweeps first: a task that finished (an `Operation` done) ends before a delay due
        // in the same firing decides, so a task done inside the start delay never shows.
        for sweep in due where sweep.kind == .sweep { self.sweep(sweep.node) }
        let delays = due.filter { $0.kind == .delay }
        if !delays.isEmpty {
            let answers = tree.withLock { tree in
                var answers: [IndicatorTree.Answer] = []
                for delay in delays {
                    if let answer = tree.delayTimerFired(delay.node, now: now) {
                        answers.append(answer)
                    }
                }
                return answers
            }
            for answer in answers { perform(answer, arming: false) }  // armed below
        }
        for call in due where call.kind == .call { call.target?.deadlineFired(generation: call.generation) }
        arm(scheduler, now: now)
    }

    /// The sweep timer: ends the tasks of `node`'s tokens that died or report completion, reports
    /// stale tasks, then brings the schedule up to date. O(live tokens).
    private func sweep(_ node: IndicatorTree.NodeID) {
        guard let scheduler else { return }
        let now = scheduler.now
        let (swept, sweepNeedsHop) = tree.withLock { $0.sweepRegistry(node, now: now) }
        if sweepNeedsHop { enqueueHop(on: scheduler) }
        guard var found = swept else { return }
        // Asked without the lock: a completion check is the caller's code.
        let finished = found.completionCandidates.filter {
            ($0.object as? any NetworkActivityCompletionReporting)?.isNetworkActivityFinished == true
        }
        // Callers' objects enter the lock, only to be compared (see IndicatorDriver's header).
        let (answer, needsHop, handler) = tree.withLockUnchecked { tree in
            let (answer, needsHop) = tree.finishSweep(node, completed: finished, now: now)
            return (answer, needsHop, tree.read(node) { $0.diagnosticsHandler } ?? IndicatorTree.silent)
        }
        if needsHop { enqueueHop(on: scheduler) }
        if let answer { perform(answer) }
        // Objects that lost their last other owner during the sweep die here, lock released.
        found.keptAlive.removeAll()
        found.completionCandidates.removeAll()
        // A token that reported completion in this very sweep is not stale.
        let finishedKeys = Set(finished.map(\.key))
        for stale in found.staleTasks where stale.key.map({ !finishedKeys.contains($0) }) ?? true {
            let task = NetworkActivitySnapshot.Activity(stale.record, now: now)
            handler(
                NetworkIndicatorDiagnostic(staleTask: task, scopePath: found.scopePath, keptOpenBy: stale.keptOpenBy)
            )
        }
    }

    /// The outlet of `node`, if it has one of its generation.
    func outlet(_ node: IndicatorTree.NodeID) -> Outlet? {
        let index = Int(node.index)
        guard index < outlets.count, let outlet = outlets[index], outlet.generation == node.generation else {
            return nil
        }
        return outlet
    }

    /// Runs `body` on the outlet of `node`, made if missing; an outlet of an older generation (a
    /// removed node whose removal has not run yet) is closed first. `nil`, and nothing made, if
    /// `node` is older than the outlet at its index, or was removed (late work for a removed
    /// node). Making an outlet takes the tree's lock once, so that the node's removal knows to
    /// close it (``IndicatorTree/outletMade(for:)``); never call it under that lock.
    func modifyOutlet<Result>(_ node: IndicatorTree.NodeID, _ body: (inout Outlet) -> Result) -> Result? {
        let index = Int(node.index)
        while outlets.count <= index { outlets.append(nil) }
        if let present = outlets[index], present.generation != node.generation {
            guard Int32(bitPattern: present.generation &- node.generation) < 0 else { return nil }
            outlets[index] = nil
            close(present, at: index)
        }
        if outlets[index] == nil {
            guard tree.withLock({ $0.outletMade(for: node) }) else { return nil }
            outlets[index] = Outlet(generation: node.generation)
        }
        return body(&outlets[index]!)
    }

    /// Drops a removed node's deadlines and tells its outputs goodbye (`false`, `0`, a `nil`
    /// fraction), streams included, unless they moved on; streams finish as the outlet goes.
    private func close(_ outlet: Outlet, at index: Int) {
        let node = IndicatorTree.NodeID(index: Int32(index), generation: outlet.generation)
        deadlines.removeAll(of: node)
        if let scheduler {
            arm(scheduler, now: scheduler.now)
        } else {
            timer?.cancel()  // the root went with its scheduler: nothing runs any more
            timer = nil
        }
        for target in outlet.attached {
            guard let output = target.output, !followsAnother(output) else { continue }
            if outlet.isVisible { output.networkIndicatorVisibilityDidChange(false) }
            if target.receivesCount { output.networkIndicatorActiveTaskCountDidChange(0) }
            if target.receivesFraction, outlet.fraction != nil, target.isLive {
                output.networkIndicatorFractionCompletedDidChange(nil)
            }
        }
    }

    /// Whether `output` is attached to `node` now (a call may have removed it).
    func isAttached(_ output: any NetworkIndicatorOutput, to node: IndicatorTree.NodeID) -> Bool {
        outlet(node)?.attached.contains { $0.output === output } ?? false
    }

    /// Whether `target`'s attachment holds: not removed, nor replaced by a new one (told itself).
    func isAttached(_ target: Attached, to node: IndicatorTree.NodeID) -> Bool {
        outlet(node)?.attached.contains { $0.serial == target.serial } ?? false
    }

    /// Lets go of the deallocated outputs (and finished observers) of `node`, telling the tree how
    /// many wanted counts or tasks.
    func pruneReleasedOutputs(of node: IndicatorTree.NodeID) {
        let released =
            modifyOutlet(node) { outlet -> [Attached] in
                // Untouched when none went: the caller's copy of the list shares its storage.
                guard outlet.attached.contains(where: { !$0.isLive }) else { return [] }
                // One look at each to decide and list: an output released on another thread
                // between two looks would leave without being counted out.
                var released: [Attached] = []
                outlet.attached.removeAll { attached in
                    if attached.isLive { return false }
                    released.append(attached)
                    return true
                }
                return released
            } ?? []
        // Out of the outlets' access: an observer whose owner went lets its body go here, even
        // if its caller keeps the handle, and what the body captured is freed.
        for target in released { (target.kept as? ProgressObserver)?.cancel() }
        outputsLeft(
            counting: released.filter(\.receivesCount).count,
            watching: released.filter(\.receivesTaskEvents).count,
            of: node
        )
    }

    /// Tells the tree that `counting` outputs of `node` that wanted counts, and `watching` that
    /// wanted task events, left; nothing (no lock) if none did.
    nonisolated func outputsLeft(counting: Int, watching: Int, of node: IndicatorTree.NodeID) {
        guard counting > 0 || watching > 0 else { return }
        tree.withLock { tree in
            if counting > 0 { tree.countObserversLeft(counting, in: node) }
            if watching > 0 { tree.taskEventListenersChanged(by: -watching, in: node) }
        }
    }
}
