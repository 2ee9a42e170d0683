public import Foundation

extension NetworkIndicatorManager {
    /// ``beganNetworkTask(label:progress:weight:file:line:)`` with a progress.
    @usableFromInline
    func beginTask(label: String?, progress: Progress, weight: Int64?, site: CallSite) -> NetworkActivityToken {
        beganNetworkTask(label: label, progress: progress, weight: weight, failure: nil, site: site)
    }

    /// Opens a task of `token` whose units `progress` measures.
    @usableFromInline
    func beginTask(withToken token: AnyObject, label: String?, progress: Progress, weight: Int64?, site: CallSite) {
        settleProgress()
        if beganTaskReadingItself(token, label: label, progress: progress, weight: weight, site: site) { return }
        let event: TaskEvent =
            if let opaque = ownOpaqueToken(token) {
                .begin(.opaqueToken(opaque.pinned), label: label, site: site)
            } else {
                .begin(.token(token), label: label, site: site)
            }
        beginTask(event, measuredBy: progress, weight: weight, token: token)
    }

    /// ``beganNetworkTask(label:progress:weight:file:line:)``, with where its code records a failure.
    func beganNetworkTask(
        label: String?,
        progress: Progress?,
        weight: Int64? = nil,
        failure: FailureRecord?,
        site: CallSite
    ) -> NetworkActivityToken {
        guard let progress else { return beginTask(label: label, site: site) }
        settleProgress()
        let part = preparePart(progress, weight: weight)
        // The token exists only once its slot is pinned: it is made in the begin's hold, and its
        // part listed there too, so that no reading or cancel lands between them. Made, not
        // released, under the lock: its `deinit` runs after it.
        let begin = TaskEvent.begin(.newOpaqueToken, label: label, site: site)
        var loaded: [AnyObject] = []
        let (_, (token, entry)) = driver.apply(
            begin,
            before: { $0.foldPartsEndedSinceSettle(from: driver.node, now: part.now, keepingAlive: &loaded) },
            then: { (tree: inout IndicatorTree, outcome) -> (NetworkActivityToken, ProgressEntry?) in
                guard case .pinned(let pinned) = outcome else {
                    // The manager is gone (never here: the caller holds it): a pair that names nothing.
                    return (NetworkActivityToken(manager: self, pinned: PinnedSlot(slot: -1, generation: 0)), nil)
                }
                let token = NetworkActivityToken(manager: self, pinned: pinned)
                let entry = part.entry(for: token, pinned: pinned, failure: failure)
                tree.addPart(entry, reading: part.reading, now: part.now, keepingAlive: &loaded)
                return (token, entry)
            }
        )
        loaded = []
        if let entry { partListed(part, entry) }
        return token
    }

    /// The current batch of determinate work in this scope, for a download screen: the fraction,
    /// the units done and in all, whether work of unknown size runs beside it, and an estimate
    /// of the time left.
    ///
    /// ```swift
    /// let progress = downloads.progressSnapshot()
    /// label.text = "\(progress.completedUnitCount) of \(progress.totalUnitCount) bytes"
    /// ```
    ///
    /// The time is the manager's scheduler's.
    ///
    /// Its ``NetworkProgressSnapshot/fractionCompleted`` says how far the batch has come, from 0
    /// to 1, or `nil` when no determinate task runs. It rolls up the tasks begun with a
    /// `Progress` (``beganNetworkTask(label:progress:weight:file:line:)`` and the other `progress:` forms)
    /// in this manager and in every descendant scope, computed when read: nothing is kept up to
    /// date while tasks report progress.
    ///
    /// - **Units.** A task weighs its progress's `totalUnitCount` (bytes, for the package's own
    ///   URLSession forms), or the `weight` it was begun with, and has done `fractionCompleted`
    ///   of it. The fraction is units done over units in all, so that a 1 KB request finishing
    ///   beside a 1 GB download does not jump the bar to 50 %, as averaging tasks would. Give a
    ///   progress that counts pages or files a `weight` in bytes (an estimate will do). A
    ///   `weight` of 0 or less makes the task one of unknown size, as if begun without progress.
    /// - **Batches.** A batch is the determinate work that overlaps: it begins with the first
    ///   task whose total is known, and ends when none of its tasks runs. Then the value is
    ///   `nil`, even while requests without progress (or of unknown size) still run, so that a
    ///   screen shows a spinner, never a full bar; the next determinate task begins a new batch
    ///   at its own fraction. A task whose total is not known takes no part until it is.
    /// - **Inside a batch**, a task that ended counts as done, so the value does not fall back
    ///   when one file ends; one whose `Progress` was cancelled leaves the batch (its units drop
    ///   out of both sums, so the bar neither jumps forward nor counts bytes that never came);
    ///   one whose `Progress` is paused keeps the units it had, and takes them back when begun
    ///   again with the same progress. The value may fall when new work joins a running batch:
    ///   2 of 4 MB done reads 0.5, and a new 4 MB download makes it 2 of 8 MB, 0.25.
    ///
    /// Readable from any thread, at the cost of one reading of every tracked task. On the main
    /// queue it reads each tracked `Progress`; on another thread, a caller's plain `Progress`
    /// answers what the main queue last read of it, and only the package's own lock-guarded
    /// progresses (``NetworkActivityProgress``, tracked URLSession tasks and sequences) are read
    /// then. A task that ended since the main queue last read its plain `Progress` keeps that
    /// reading until the main queue reads it again: it is never counted as done on a reading
    /// older than its end. No `Progress` is read under a lock of the package's; the reading takes
    /// the tree's lock twice, once to list the tasks and once to fold them. Read it when you
    /// draw, not in a tight loop.
    public func progressSnapshot() -> NetworkProgressSnapshot {
        progressRollUp.snapshot()
    }

    /// ``progressSnapshot()`` as an overlay of this manager sees it while `scopes` (descendant
    /// scopes whose own overlays draw their tasks) are left out: their tasks, and the parts
    /// begun in them or below, count neither in the batch's units nor as work of unknown size.
    /// The batch itself still runs while they do. Scopes that are not descendants change
    /// nothing. Any thread, as ``progressSnapshot()``.
    package func progressSnapshot(excluding scopes: [NetworkIndicatorManager]) -> NetworkProgressSnapshot {
        progressRollUp.snapshot(excluding: descendantNodes(of: scopes))
    }

    /// The nodes of those of `scopes` that are descendants of this manager.
    private func descendantNodes(of scopes: [NetworkIndicatorManager]) -> [IndicatorTree.NodeID] {
        let descendants = scopes.filter { scope in
            sequence(first: scope, next: \.parent).dropFirst().contains { $0 === self }
        }
        return descendants.map(\.driver.node)
    }

    /// Whether no batch runs and the last one that ended had every unit of each of its parts
    /// (none cancelled, failed or paused short): an overlay whose bar last read 73 % of a
    /// download that finished since shows it done as it fades. With `scopes`, as an overlay of
    /// this manager sees it while they are left out (see ``progressSnapshot(excluding:)``):
    /// whether the parts begun outside them had every unit, though a covered scope's part still
    /// runs. Any thread; reads every part.
    package func lastProgressBatchEndedComplete(excluding scopes: [NetworkIndicatorManager] = []) -> Bool {
        progressRollUp.lastBatchEndedComplete(excluding: descendantNodes(of: scopes))
    }

    // MARK: - Tracking

    /// Folds the ended tasks with progress of this manager and every ancestor, before a task
    /// with progress begins: a token begun again must not bring back its ended part.
    func settleProgress() {
        progressRollUp.settle()
    }

    /// Begins `event`'s task of `token` and lists `progress` as its part in the same hold of the
    /// tree's lock, so that no reading finds the task unmeasured and no cancel lands between the
    /// two (one after both finds the part listed, and fails it). `failure`, if given, is taken in
    /// that hold too (a group's record: a cancel after the begin fails the very record the part
    /// reads). Returns the event's outcome.
    @discardableResult
    func beginTask(
        _ event: TaskEvent,
        measuredBy progress: Progress,
        weight: Int64? = nil,
        token: AnyObject,
        failure: (() -> FailureRecord)? = nil
    ) -> TaskEvent.Outcome {
        let part = preparePart(progress, weight: weight)
        let pinned = ownOpaqueToken(token)?.pinned
        var loaded: [AnyObject] = []
        let (outcome, entry) = driver.apply(
            event,
            before: { $0.foldPartsEndedSinceSettle(from: driver.node, now: part.now, keepingAlive: &loaded) },
            then: { tree, _ in
                let entry = part.entry(for: token, pinned: pinned, failure: failure?())
                tree.addPart(entry, reading: part.reading, now: part.now, keepingAlive: &loaded)
                return entry
            }
        )
        loaded = []
        partListed(part, entry)
        return outcome
    }

    /// A part about to be listed: what is known before the task's hold (its progress, its first
    /// reading, taken outside every lock, the roll-ups that will list it: this manager's and each
    /// ancestor's, already listening for its size), and the time.
    struct PendingPart {
        let progress: Progress
        let weight: Int64?
        let node: IndicatorTree.NodeID
        let ancestors: [IndicatorTree.NodeID]
        let rollUps: [ProgressRollUp]
        let reading: ProgressReading?
        let now: TimeInterval

        /// The part's entry for `token`'s task (`pinned`: an opaque token's slot here), made in
        /// the hold that lists it: an opaque token's key exists only there.
        func entry(for token: AnyObject, pinned: PinnedSlot?, failure: FailureRecord?) -> ProgressEntry {
            ProgressEntry(
                progress: progress,
                weight: weight,
                token: token,
                node: node,
                ancestors: ancestors,
                pinned: pinned,
                failure: failure
            )
        }
    }

    /// All of a part but its listing, which takes the tree's lock: the roll-ups that will list
    /// `progress` listen for its size, then it is read.
    private func preparePart(_ progress: Progress, weight: Int64?) -> PendingPart {
        let sizeSignal = (progress as? NetworkActivityProgress)?.sizeSignal
        var rollUps: [ProgressRollUp] = []
        var ancestors: [IndicatorTree.NodeID] = []
        var scope: NetworkIndicatorManager? = self
        while let manager = scope {
            // Listening first: a total given after the first reading is told.
            sizeSignal?.add(manager.progressRollUp)
            rollUps.append(manager.progressRollUp)
            if manager !== self { ancestors.append(manager.driver.node) }
            scope = manager.parent
        }
        return PendingPart(
            progress: progress,
            weight: weight,
            node: driver.node,
            ancestors: ancestors,
            rollUps: rollUps,
            reading: ProgressEntry.read(progress, weight: weight),
            now: driver.scheduler.now
        )
    }

    /// After `entry` was listed: the polls it may start, and a total told between its first
    /// reading and the listing (which found the entry unlisted).
    private func partListed(_ part: PendingPart, _ entry: ProgressEntry) {
        for rollUp in part.rollUps { rollUp.pollIfWanted() }
        guard entry.sizeSignal != nil, part.reading?.isDeterminate != true,
            entry.read()?.isDeterminate == true
        else { return }
        for rollUp in part.rollUps { rollUp.sizeBecameKnown() }
    }
}
