import Foundation

/// One manager's determinate progress: the batch of the tasks begun with a `Progress` in the
/// manager or any of its descendants (``Batch``, kept in the manager's node of the tree), read
/// and folded when asked (``snapshot()``), and the listeners polled while such tasks exist
/// (below, "Polling").
///
/// It holds no state and no lock of its own: the parts sit in the tree, under the tree's lock,
/// beside the tasks they measure. The engine never calls it, so a task without progress pays
/// nothing, and a progress update costs nothing until someone reads. Each reading takes the
/// tree's lock twice: once to list the parts, once to store their readings and fold; the
/// `Progress` objects are read between the two, outside every lock. Nobody's code runs under
/// it: the tokens loaded and the parts folded there are released after it, and listeners are
/// told outside.
final class ProgressRollUp: Sendable {
    /// The manager's driver: its tree, its node and its scheduler's clock.
    let driver: IndicatorDriver

    init(driver: IndicatorDriver) {
        self.driver = driver
    }

    /// Folds the parts of this manager and of every ancestor that ended before a task with
    /// progress begins, so that whether a batch is over, and whether a token begun again had
    /// ended, never depends on whether anyone read. Cheaper than a reading: only the parts whose
    /// reading the fold may need are read (a `Progress` read costs several times a lock).
    /// `withSubtree`, around a cancel of this manager's subtree and after its reset, folds every
    /// descendant's batch too, so that a scope's own bar finds the parts the group's rules (or
    /// the reset) ended gone as well.
    func settle(withSubtree: Bool = false) {
        _ = readAndFold(settling: true, withSubtree: withSubtree)
    }

    /// What ``NetworkIndicatorManager/progressSnapshot()`` returns; leaving out the subtrees of
    /// `excludedScopes` (``NetworkIndicatorManager/progressSnapshot(excluding:)``).
    func snapshot(excluding excludedScopes: [IndicatorTree.NodeID] = []) -> NetworkProgressSnapshot {
        let (summary, hasUnmeasuredTasks, _) = readAndFold(settling: false, excludingScopes: excludedScopes)
        guard hasUnmeasuredTasks || summary.isRunning else { return NetworkProgressSnapshot() }
        let now = driver.scheduler.now
        return NetworkProgressSnapshot(summary: summary, hasIndeterminateWork: hasUnmeasuredTasks, now: now)
    }

    /// Whether the batch has ended (none runs now) and the last one that ended had every unit
    /// of each part (``Batch/lastEndedWasComplete``), after a reading of every part; leaving out
    /// `excludedScopes`, whether the parts begun outside them ended so
    /// (``Batch/ownPartsWereComplete(excluding:)``), while the batch may run on.
    func lastBatchEndedComplete(excluding excludedScopes: [IndicatorTree.NodeID]) -> Bool {
        let read = readAndFold(settling: false, excludingScopes: excludedScopes)
        return !read.summary.isRunning && read.lastBatchWasComplete
    }

    /// Reads the parts a settle needs (a `Progress` read costs several times a lock): every one
    /// that ended or shares its token, and running ones in order until one of known size runs in
    /// a node; that one keeps the node's batch running, so the running parts after it are left
    /// unread, counted at their last reading. `nil`: nothing to fold.
    private func readForSettling(_ parts: [IndicatorTree.PartToRead]) -> [IndicatorTree.PartToRead]? {
        // The lowest position in the chain where a running part of known size was read: a part
        // first listed at a position is listed in every node above, so each of them runs.
        var runsFrom = Int.max
        // A part read with a known size for the first time: the fold starts its batch then.
        var sizeNewlyKnown = false
        let readings = parts.map { part in
            guard !part.mayGoUnread || part.position < runsFrom else { return part }
            let part = part.read()
            if part.mayGoUnread, !part.failure.hasFailed, let reading = part.reading, reading.isDeterminate,
                !reading.isCancelled
            {
                runsFrom = min(runsFrom, part.position)
                if !part.wasDeterminate { sizeNewlyKnown = true }
            }
            return part
        }
        // Nothing to fold while every batch runs, no part leaves and no size is new: the common case.
        let leaves = readings.contains {
            !$0.mayGoUnread || $0.failure.hasFailed || $0.reading?.isCancelled == true
        }
        return leaves || sizeNewlyKnown || runsFrom > 0 ? readings : nil
    }

    /// Lists the parts to read, reads them outside the lock, then stores the readings and folds.
    func readAndFold(
        settling: Bool,
        withSubtree: Bool = false,
        excludingScopes excludedScopes: [IndicatorTree.NodeID] = []
    ) -> (summary: Batch.Summary, hasUnmeasuredTasks: Bool, lastBatchWasComplete: Bool) {
        let node = driver.node
        // The tokens loaded and the parts folded under the lock are released just after it, not
        // later: a token kept through the reading would keep its task open meanwhile.
        var loaded: [AnyObject] = []
        let parts = driver.withTree {
            $0.partsToRead(from: node, settling: settling, withSubtree: withSubtree, keepingAlive: &loaded)
        }
        loaded = []
        guard !settling || !parts.isEmpty, let readings = settling ? readForSettling(parts) : parts.map({ $0.read() })
        else { return (Batch.Summary(), false, false) }
        let now = driver.scheduler.now
        let result = driver.withTree {
            $0.foldProgress(
                from: node,
                settling: settling,
                withSubtree: withSubtree,
                readings: readings,
                now: now,
                excludingScopes: excludedScopes,
                keepingAlive: &loaded
            )
        }
        loaded = []
        return result
    }
}

// MARK: - Polling

/// Telling listeners: a repeating deadline on the tree's one timer (``OutputDelivery``) runs only
/// while the roll-up has both listeners and tasks with progress. Each tick reads the batch and tells each listener
/// the fraction only when it changed. While a batch runs, the timer ticks every
/// ``pollInterval`` (at most ten updates a second, whatever the tasks report). While only tasks
/// of unknown size are listed, no timer runs if each of them tells when its total becomes known
/// (a ``NetworkActivityProgress``: the openapi middleware's requests, tracked sequences; see
/// ``sizeBecameKnown()``); a part that cannot tell (a `Progress` of Foundation's, which cannot be
/// observed on Linux, or a tracked `URLSessionTask` awaiting its response) is read every
/// ``unknownSizePollInterval`` instead, to see its total become known. The tick that finds the
/// batch over tells `nil` and, with nothing left listed, stops the timer: no timer runs for
/// work without progress, and no listener keeps a stale fraction.
extension ProgressRollUp {
    /// Seconds between two readings while a batch runs: 10 Hz, smooth for a bar, cheap for the
    /// main thread.
    static let pollInterval: TimeInterval = 0.1
    /// Seconds between two readings while only tasks of unknown size are listed.
    static let unknownSizePollInterval: TimeInterval = 1

    /// Starts, changes or stops the poll to fit the listeners and the listed parts now. The
    /// tree's delivery is told on the main actor, at once if called there, else in a hop; it
    /// reads the interval wanted when it runs, so a later change is never undone by an earlier.
    func pollIfWanted() {
        let node = driver.node
        guard driver.withTree({ $0.progressPollingChanged(of: node) }) else { return }
        if MainQueue.isCurrent {
            MainActor.assumeIsolated { applyPollInterval() }
        } else {
            driver.scheduler.enqueue { [weak self] in self?.applyPollInterval() }
        }
    }

    /// Gives the tree's delivery the interval wanted now (`nil`: no poll).
    @MainActor
    private func applyPollInterval() {
        let interval = driver.read { $0.progressPollInterval } ?? nil
        driver.delivery.call(self, after: interval, repeating: interval, for: driver.node)
    }

    /// One reading: tells the listeners if the fraction changed, then fits the poll to the
    /// listeners now and to what is left to watch. Also run when the listeners change.
    @MainActor
    func tick() {
        let node = driver.node
        driver.delivery.deliverProgress(readAndFold(settling: false).summary.fraction, to: node)
        let hasListeners = driver.delivery.hasProgressListeners(node)
        guard driver.withTree({ $0.progressPollingChanged(of: node, hasListeners: hasListeners) }) else { return }
        applyPollInterval()
    }

    /// A listed part's total became known (``SizeSignal``), from any thread: while listeners
    /// wait and no batch runs, one tick on the main queue reads it and starts the batch's timer.
    /// Without listeners nothing is asked for: a reader reads the part when it reads.
    func sizeBecameKnown() {
        // Listeners, and no batch running: a total that became known starts one.
        guard driver.read({ $0.hasProgressListeners && $0.batch.startedAt == nil }) == true else { return }
        driver.scheduler.enqueue { [weak self] in self?.tick() }
    }
}

extension ProgressRollUp: DeadlineTarget {
    /// The poll's deadline: one reading.
    @MainActor
    func deadlineFired(generation: UInt64) {
        tick()
    }
}

// MARK: - Listeners

/// An owner-bound closure of ``NetworkIndicatorManager/observeProgress(owner:_:)``: an output
/// that wants the fraction, kept by the delivery until its owner goes or it is cancelled.
@MainActor
final class ProgressObserver: NetworkIndicatorOutput {
    /// Calls the body with its owner, `false` once the owner is gone; `nil` once the owner is
    /// gone or the observation cancelled, so that the body (and what it captured) is freed.
    private var body: (@MainActor (Double?) -> Bool)?
    /// The owner, to let the body go at the next reading once the owner is gone, whether or not
    /// the fraction changed.
    private weak var owner: AnyObject?

    init<Owner: AnyObject>(owner: Owner, body: @escaping @MainActor (Owner, Double?) -> Void) {
        self.owner = owner
        self.body = { [weak owner] fraction in
            guard let owner else { return false }
            body(owner, fraction)
            return true
        }
    }

    var isFinished: Bool { body == nil || owner == nil }

    var receivesFractionCompleted: Bool { true }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

    func networkIndicatorFractionCompletedDidChange(_ fraction: Double?) {
        guard let body else { return }
        if !body(fraction) { self.body = nil }
    }

    /// From the observation's `cancel()`: the body is freed at once and never called again.
    func cancel() {
        body = nil
    }
}

/// Telling the outputs that want the fraction (``Attached/receivesFraction``) ``ProgressRollUp``'s readings.
extension OutputDelivery {
    /// Tells the live outputs of `node` that want the fraction `fraction` if it differs from what
    /// they were last told, and `newListener`, just attached, in any case; then lets go of the
    /// finished. Outputs may call back into the manager.
    func deliverProgress(
        _ fraction: Double?,
        to node: IndicatorTree.NodeID,
        newListener: (any NetworkIndicatorOutput)? = nil
    ) {
        let targets = modifyOutlet(node) { outlet -> [Attached] in
            let changed = fraction != outlet.fraction
            outlet.fraction = fraction
            return outlet.attached.filter { $0.receivesFraction && (changed || $0.output === newListener) }
        }
        tell(targets ?? [], of: node) { target, output in
            if target.isLive { output.networkIndicatorFractionCompletedDidChange(fraction) }
        }
        pruneReleasedOutputs(of: node)
    }

    /// Whether anything alive listens to the fraction of `node`.
    func hasProgressListeners(_ node: IndicatorTree.NodeID) -> Bool {
        outlet(node)?.attached.contains { $0.receivesFraction && $0.isLive } ?? false
    }
}
