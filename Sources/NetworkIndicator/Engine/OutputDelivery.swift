import Foundation

/// The main-actor half of one tree: each node's outputs and timers, and the tree's one hop.
/// Events on the tree ask for the hop (``enqueueHop()``); the hop drains every dirty node in one
/// hold of the tree's lock, then performs the answers here with the lock released: timers first,
/// then outputs and streams. Outputs are held weakly: a deallocated output is told nothing more.
@MainActor
final class OutputDelivery {
    /// One node's outputs and timers, for the node of `generation` at its index.
    private struct Outlet {
        var generation: UInt32
        var attached: [Attached] = []
        /// What the outputs were last told.
        var isVisible = false
        var timers: [IndicatorStateMachine.TimerKind: any NetworkIndicatorTimer] = [:]
    }

    private struct Attached {
        weak var output: (any NetworkIndicatorOutput)?
        let id: ObjectIdentifier
        let receivesCount: Bool
    }

    nonisolated let tree: LockedState<IndicatorTree>
    nonisolated let scheduler: any NetworkIndicatorScheduler
    /// By node index; an outlet of an older generation belongs to a removed node.
    private var outlets: [Outlet?] = []

    nonisolated init(tree: LockedState<IndicatorTree>, scheduler: any NetworkIndicatorScheduler) {
        self.tree = tree
        self.scheduler = scheduler
    }

    /// Queues the tree's hop; an event asks for it when it marked the first dirty node.
    nonisolated func enqueueHop() {
        scheduler.enqueue { [self] in hop() }
    }

    /// The tree's hop: every dirty node's answer, drained in one lock hold, then performed.
    func hop() {
        let now = scheduler.now
        let (first, rest) = tree.withLock { $0.drainDirtyNodes(now: now) }
        if let first { perform(first) }
        for answer in rest { perform(answer) }
    }

    /// The live outputs of `node`, in the order they were added.
    func outputs(of node: IndicatorTree.NodeID) -> [any NetworkIndicatorOutput] {
        outlet(node)?.attached.compactMap(\.output) ?? []
    }

    /// What the outputs of `node` were last told.
    func isVisible(_ node: IndicatorTree.NodeID) -> Bool {
        outlet(node)?.isVisible ?? false
    }

    /// Attaches `output` to `node`; `false` if it is attached already.
    func attach(_ output: any NetworkIndicatorOutput, to node: IndicatorTree.NodeID, receivesCount: Bool) -> Bool {
        modifyOutlet(node) { outlet in
            guard !outlet.attached.contains(where: { $0.output === output }) else { return false }
            outlet.attached.append(Attached(output: output, id: ObjectIdentifier(output), receivesCount: receivesCount))
            return true
        }
    }

    /// Detaches `output` from `node`: `nil` if it was not attached, else whether it received counts.
    func detach(_ output: any NetworkIndicatorOutput, from node: IndicatorTree.NodeID) -> Bool? {
        let id = ObjectIdentifier(output)
        return modifyOutlet(node) { outlet in
            guard let index = outlet.attached.firstIndex(where: { $0.id == id && $0.output != nil }) else { return nil }
            return outlet.attached.remove(at: index).receivesCount
        }
    }

    /// The manager of `node` is gone: its timers stop, outputs that showed the indicator hear
    /// `false`, count outputs hear `0` (a count output that outlives its manager keeps no stale
    /// count), and all are let go. Nothing if the node's index went to a newer node already.
    func remove(_ node: IndicatorTree.NodeID) {
        guard let outlet = outlet(node) else { return }
        outlets[Int(node.index)] = nil
        close(outlet)
    }

    // MARK: - Private

    /// Performs one machine's answer: stops and starts timers, then tells outputs and streams.
    private func perform(_ answer: IndicatorTree.Answer) {
        let node = answer.node
        let reconciliation = answer.reconciliation
        let targets = modifyOutlet(node) { outlet in
            for (kind, change) in reconciliation.timerChanges {
                outlet.timers.removeValue(forKey: kind)?.cancel()
                guard case .start(let delay, let interval, let generation) = change else { continue }
                let leeway = interval.map { $0 * 0.1 } ?? min(delay * 0.1, 0.05)
                outlet.timers[kind] = scheduler.schedule(after: delay, repeating: interval, leeway: leeway) {
                    [weak self] in
                    switch kind {
                    case .delay: self?.delayTimerFired(node, generation: generation)
                    case .sweep: self?.sweep(node)
                    }
                }
            }
            if let visibility = reconciliation.visibility { outlet.isVisible = visibility }
            return (attached: outlet.attached, isVisible: outlet.isVisible)
        }
        if let visibility = reconciliation.visibility {
            for target in targets.attached {
                guard let output = target.output, isAttached(output, to: node) else { continue }
                output.networkIndicatorVisibilityDidChange(visibility)
            }
            for stream in answer.streams.updated { stream.yield(visibility) }
        }
        for stream in answer.streams.primed { stream.yield(targets.isVisible) }
        if let count = reconciliation.count {
            for target in targets.attached where target.receivesCount {
                guard let output = target.output, isAttached(output, to: node) else { continue }
                output.networkIndicatorActiveTaskCountDidChange(count)
            }
        }
        pruneReleasedOutputs(of: node)
    }

    private func delayTimerFired(_ node: IndicatorTree.NodeID, generation: UInt64) {
        let now = scheduler.now
        if let answer = tree.withLock({ $0.delayTimerFired(node, generation: generation, now: now) }) {
            perform(answer)
        }
    }

    /// Ends the tasks of `node`'s tokens that died or report completion, reports stale tasks, then
    /// brings the machine up to date. O(live tokens). Runs on the sweep timer.
    private func sweep(_ node: IndicatorTree.NodeID) {
        let now = scheduler.now
        let (swept, sweepNeedsHop) = tree.withLock { $0.sweepRegistry(node, now: now) }
        if sweepNeedsHop { enqueueHop() }
        guard var found = swept else { return }
        // Asked without the lock: a completion check is the caller's code.
        let finished = found.completionCandidates.filter {
            ($0.object as? any NetworkActivityCompletionReporting)?.isNetworkActivityFinished == true
        }
        // Callers' objects enter the lock, only to be compared (see IndicatorDriver's header).
        let (answer, needsHop, handler) = tree.withLockUnchecked { tree in
            let (answer, needsHop) = tree.finishSweep(node, completed: finished, now: now)
            return (answer, needsHop, tree.read(node, ifGone: IndicatorTree.silent) { $0.diagnosticsHandler })
        }
        if needsHop { enqueueHop() }
        if let answer { perform(answer) }
        // Objects that lost their last other owner during the sweep die here, lock released.
        found.keptAlive.removeAll()
        found.completionCandidates.removeAll()
        // A token that reported completion in this very sweep is not stale.
        let finishedKeys = Set(finished.map(\.key))
        for stale in found.staleTasks where stale.key.map({ !finishedKeys.contains($0) }) ?? true {
            handler(NetworkIndicatorDiagnostic(kind: .staleTask(age: stale.age), label: stale.label))
        }
    }

    /// The outlet of `node`, if it has one of its generation.
    private func outlet(_ node: IndicatorTree.NodeID) -> Outlet? {
        let index = Int(node.index)
        guard index < outlets.count, let outlet = outlets[index], outlet.generation == node.generation else {
            return nil
        }
        return outlet
    }

    /// Runs `body` on the outlet of `node`, made if missing. An outlet of an older generation
    /// (a removed node whose removal has not run yet) is closed first.
    private func modifyOutlet<Result>(_ node: IndicatorTree.NodeID, _ body: (inout Outlet) -> Result) -> Result {
        let index = Int(node.index)
        while outlets.count <= index { outlets.append(nil) }
        if let stale = outlets[index], stale.generation != node.generation {
            outlets[index] = nil
            close(stale)
        }
        if outlets[index] == nil { outlets[index] = Outlet(generation: node.generation) }
        return body(&outlets[index]!)
    }

    /// Stops a removed node's timers and tells its outputs goodbye.
    private func close(_ outlet: Outlet) {
        for timer in outlet.timers.values { timer.cancel() }
        for target in outlet.attached {
            guard let output = target.output else { continue }
            if outlet.isVisible { output.networkIndicatorVisibilityDidChange(false) }
            if target.receivesCount { output.networkIndicatorActiveTaskCountDidChange(0) }
        }
    }

    private func isAttached(_ output: any NetworkIndicatorOutput, to node: IndicatorTree.NodeID) -> Bool {
        outlet(node)?.attached.contains { $0.output === output } ?? false
    }

    /// Lets go of the deallocated outputs of `node`; the machine stops asking for hops on behalf
    /// of those that received counts.
    private func pruneReleasedOutputs(of node: IndicatorTree.NodeID) {
        let released = modifyOutlet(node) { outlet -> Int in
            guard outlet.attached.contains(where: { $0.output == nil }) else { return 0 }
            let released = outlet.attached.filter { $0.output == nil && $0.receivesCount }.count
            outlet.attached.removeAll { $0.output == nil }
            return released
        }
        if released > 0 { tree.withLock { $0.countObserversLeft(released, in: node) } }
    }
}
