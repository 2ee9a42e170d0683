import Foundation

/// One manager's handle on an ``IndicatorTree``: the tree sits behind one lock shared by every
/// driver of the tree, beside one ``OutputDelivery`` on the main actor. A task event (one
/// ``TaskEvent``, through ``apply(_:)``) locks, applies the event to the tree, unlocks, then
/// enqueues the tree's hop if the event asked for it.
/// Nothing under the lock runs code we do not own (schedulers, outputs, diagnostics handlers, the
/// last release of a caller's object).
///
/// Callers' objects are not `Sendable`, so the methods that move one into or out of the tree,
/// or whose result may hold one (``apply(_:)`` and ``apply(_:before:then:)``, ``resetTree()``,
/// ``cancelTree()``, ``shutDown(keepingUntilRemoved:)``, ``read(_:)``, attaching an output,
/// ``withTree(_:)``, the sweep's last step in ``OutputDelivery``) use `withLockUnchecked`.
/// Safe: the registry holds it weakly and under the lock only compares its identity or hands it
/// back; once out, it is only released, or called as ``NetworkActivityCompletionReporting`` and
/// ``NetworkActivityCancellable`` document.
final class IndicatorDriver: Sendable {
    let scheduler: any NetworkIndicatorScheduler
    /// Whether event times come from ``CoarseClock`` under the lock (see ``eventTime()``).
    private let readsCoarseClock: Bool
    private let tree: LockedState<IndicatorTree>
    let node: IndicatorTree.NodeID
    /// The tree's outputs and timers, shared by every driver of the tree.
    let delivery: OutputDelivery

    /// The driver of a root manager, with a tree of its own.
    init(scheduler: any NetworkIndicatorScheduler, diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler) {
        self.scheduler = scheduler
        self.readsCoarseClock = scheduler is MainQueueScheduler
        // 60 s on the main queue in debug builds, else none (no timer in a test that did not ask).
        #if DEBUG
        let defaultStaleThreshold: TimeInterval? = readsCoarseClock ? 60 : nil
        #else
        let defaultStaleThreshold: TimeInterval? = nil
        #endif
        self.tree = LockedState(
            IndicatorTree(diagnosticsHandler: diagnosticsHandler, defaultStaleThreshold: defaultStaleThreshold)
        )
        self.node = IndicatorTree.rootID
        self.delivery = OutputDelivery(tree: tree, scheduler: scheduler)
    }

    /// The driver of a scope of `parent`'s manager, in `parent`'s tree.
    init(childOf parent: IndicatorDriver, label: String?) {
        self.scheduler = parent.scheduler
        self.readsCoarseClock = parent.readsCoarseClock
        self.tree = parent.tree
        self.delivery = parent.delivery
        self.node = parent.tree.withLock { $0.addNode(childOf: parent.node, label: label) }
    }

    /// The manager is gone: its tasks end in every ancestor; if the main actor holds an outlet
    /// for it, there its timers stop, its streams finish and its outputs are told, its
    /// owner-bound `observations` among them (kept until then: the manager held them; without
    /// an outlet there is none to keep). A manager that never showed anything leaves no work for
    /// the main queue.
    func shutDown(keepingUntilRemoved observations: OwnerBoundObservations) {
        var time = eventTime()
        // The node as it was (its own diagnostics handler, its progress parts: a caller's objects
        // among them) is released after the lock.
        let (needsHop, removed) = tree.withLockUnchecked { $0.removeNode(node, time: &time) }
        let hasOutlet = removed?.hasOutlet ?? false
        withExtendedLifetime(removed) {}
        if needsHop { delivery.enqueueHop(on: scheduler) }
        // The close and the observations' release in one piece of work, in that order. Not in
        // the tree: an observation may lead back to it, and a scheduler dropped with the work
        // queued frees the work.
        if hasOutlet {
            scheduler.enqueue { [delivery, node] in
                delivery.remove(node)
                withExtendedLifetime(observations) {}
            }
        }
        if node == IndicatorTree.rootID { delivery.rootRemoved() }
    }

    // MARK: - Tasks, from any thread

    /// Applies one task event to this manager's node: lock, apply, unlock, then enqueue the tree's
    /// hop if the event asked for it. The objects the event loaded are released after the lock.
    /// A removed node's event is `.stale`.
    @discardableResult
    @inline(__always)  // pays: every task event (Benchmarks/README.md, "The engine cut")
    func apply(_ event: TaskEvent) -> TaskEvent.Outcome {
        var time = eventTime()
        var keptAlive: [AnyObject]? = nil
        // A caller's object may enter or leave the tree (see the header).
        let (outcome, needsHop) = tree.withLockUnchecked {
            $0.apply(event, in: node, time: &time, keepingAlive: &keptAlive)
        }
        if needsHop { delivery.enqueueHop(on: scheduler) }
        withExtendedLifetime(keptAlive) {}
        return outcome
    }

    /// ``apply(_:)``, with `prepare` on the tree just before the event, and `body` on the tree and
    /// the event's outcome just after it, all in one hold: nothing can land between them. A begin
    /// with progress folds the parts ended since its settle first, and lists its part after (a
    /// group's takes the part's failure record, an opaque token is made for the slot the outcome
    /// pinned), so that no reading finds the task unmeasured, and a cancel either precedes both
    /// or finds the part listed. Neither closure may call code of a caller's.
    func apply<Result>(
        _ event: TaskEvent,
        before prepare: (inout IndicatorTree) -> Void,
        then body: (inout IndicatorTree, TaskEvent.Outcome) -> Result
    ) -> (TaskEvent.Outcome, Result) {
        var time = eventTime()
        var keptAlive: [AnyObject]? = nil
        // A caller's object may enter or leave the tree (see the header).
        let (outcome, needsHop, result) = tree.withLockUnchecked { tree in
            prepare(&tree)
            let (outcome, needsHop) = tree.apply(event, in: node, time: &time, keepingAlive: &keptAlive)
            return (outcome, needsHop, body(&tree, outcome))
        }
        if needsHop { delivery.enqueueHop(on: scheduler) }
        withExtendedLifetime(keptAlive) {}
        return (outcome, result)
    }

    /// Ends every task of this manager and of all its descendants, in one hold of the lock.
    func resetTree() {
        var time = eventTime()
        var keptAlive: [AnyObject] = []
        // Callers' objects leave the tree (see the header).
        if tree.withLockUnchecked({ $0.resetSubtree(of: node, time: &time, keepingAlive: &keptAlive) }) {
            delivery.enqueueHop(on: scheduler)
        }
        withExtendedLifetime(keptAlive) {}
    }

    /// Ends the cancellable tasks of this manager's subtree in one lock hold; returns their work, to
    /// cancel after the lock (other objects read are released here, after it).
    func cancelTree() -> [any NetworkActivityCancellable] {
        var time = eventTime()
        // Callers' objects leave the tree (see the header).
        let (cancellation, needsHop) = tree.withLockUnchecked { $0.cancelSubtree(of: node, time: &time) }
        if needsHop { delivery.enqueueHop(on: scheduler) }
        return cancellation.work
    }

    // MARK: - Reading, from any thread

    /// Reads this manager's node under the lock, in one hold: `nil` once the node is removed (a
    /// driver that outlived its manager). `body` only reads the node's value: it runs under the
    /// lock, so it must call no code of a caller's (a handler it reads is called after).
    func read<Result: Sendable>(_ body: (IndicatorTree.Node) -> Result) -> Result? {
        // Unchecked: `body` is not `Sendable`, but it runs here, in this hold, and keeps nothing.
        tree.withLockUnchecked { $0.read(node, body) }
    }

    /// Reads of this manager's node that hold the tree, not the driver: for the watchdog, which
    /// outlives the manager (`openTasks()` is `nil` once it is gone).
    var probe: Probe {
        Probe(tree: tree, node: node)
    }

    struct Probe: Sendable {
        fileprivate let tree: LockedState<IndicatorTree>
        fileprivate let node: IndicatorTree.NodeID

        func openTasks() -> Int? {
            tree.withLock { $0.read(node) { $0.activeTaskCount } }
        }

        func report(_ kind: NetworkIndicatorDiagnostic.Kind, _ label: String) {
            let handler = tree.withLock { $0.read(node) { $0.diagnosticsHandler } }
            handler?(NetworkIndicatorDiagnostic(kind: kind, label: label))
        }
    }

    // MARK: - Changes that move no count, from any thread

    /// Changes the settings under the lock; they apply at the next main-queue hop.
    func updateSettings(_ update: @escaping @Sendable (inout NetworkIndicatorSettings) -> Void) {
        if tree.withLock({ $0.changeSettings(of: node, update) }) { delivery.enqueueHop(on: scheduler) }
    }

    /// Replaces the handler; the old one (and whatever it captured) is released after the lock.
    func replaceDiagnosticsHandler(with handler: @escaping NetworkIndicatorDiagnosticsHandler) {
        _ = tree.withLock { $0.replaceDiagnosticsHandler(of: node, with: handler) }
    }

    /// Passes a diagnostic to the handler, outside the lock; nowhere once the node is removed.
    func report(_ kind: NetworkIndicatorDiagnostic.Kind, label: String) {
        probe.report(kind, label)
    }

    // MARK: - Outputs, on the main actor

    /// Attaches `output` and tells it the visibility (and, if it wants counts and is still
    /// attached, the last reconciled count) at once; nothing if attached already. Returns its
    /// attachment if it was attached now and still is (its own call may have removed it).
    @MainActor
    @discardableResult
    func addOutput(_ output: any NetworkIndicatorOutput) -> OutputDelivery.Attached? {
        let receivesCount = output.receivesActiveTaskCount
        let receivesTaskEvents = output is any NetworkActivityTaskEventOutput
        guard
            let attached = delivery.attach(
                output,
                to: node,
                receivesCount: receivesCount,
                receivesTaskEvents: receivesTaskEvents,
                receivesFraction: output.receivesFractionCompleted
            )
        else { return nil }
        // The open tasks' tokens that a watcher's node loads to name them leave after the lock.
        var keptAlive: [AnyObject] = []
        let (count, needsHop) = tree.withLockUnchecked { tree in
            if receivesTaskEvents {
                tree.nameOpenTasks(ofNodesAt: tree.taskEventListenersChanged(by: 1, in: node), keepingAlive: &keptAlive)
            }
            return tree.outputAttached(receivesCount: receivesCount, in: node)
        }
        keptAlive = []
        if needsHop { delivery.enqueueHop(on: scheduler) }
        output.networkIndicatorVisibilityDidChange(delivery.isVisible(node))
        // Each call may remove the output (`removeOutput` from its own callback).
        if let count, delivery.isAttached(output, to: node) {
            output.networkIndicatorActiveTaskCountDidChange(count)
        }
        return delivery.isAttached(output, to: node) ? attached : nil
    }

    /// Detaches `output`, if it is attached; returns its attachment (`nil` if it was not).
    @MainActor
    @discardableResult
    func removeOutput(_ output: any NetworkIndicatorOutput) -> OutputDelivery.Attached? {
        guard let detached = delivery.detach(output, from: node) else { return nil }
        delivery.outputsLeft(
            counting: detached.receivesCount ? 1 : 0,
            watching: detached.receivesTaskEvents ? 1 : 0,
            of: node
        )
        return detached
    }

    // MARK: - The progress roll-up

    /// Runs `body` on the tree under its lock, for the progress roll-up and the snapshot: their
    /// events move no count and ask for no hop. `body` runs no code but the tree's and a failure
    /// record's; the callers' objects it loads (tokens, parts that may hold a caller's last
    /// `Progress`) it hands back to release after the lock.
    func withTree<Result>(_ body: (inout IndicatorTree) -> Result) -> Result {
        tree.withLockUnchecked(body)
    }

    // MARK: - Private

    /// The time of an event: the scheduler's, read before the lock, unless it is
    /// ``MainQueueScheduler`` (then the coarse clock, read under the lock only if needed).
    private func eventTime() -> EventTime {
        EventTime(preread: readsCoarseClock ? nil : scheduler.now)
    }
}
