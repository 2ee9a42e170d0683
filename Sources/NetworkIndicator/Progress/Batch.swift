import Foundation

/// One node's determinate work that overlaps, and the parts listed for it: a pure value kept in
/// the node (``IndicatorTree/Node/batch``), folded under the tree's lock from samples of every
/// part it lists, taken in the same hold (``IndicatorTree/foldProgress(from:settling:readings:now:excludingScopes:keepingAlive:)``).
///
/// ## The rules
///
/// - A task weighs its total units (bytes where bytes are known), or the weight its caller
///   gave; it has done `fractionCompleted` of them. A task whose total is unknown takes no part.
/// - A batch is the determinate work that overlaps. It begins with the first task whose total
///   is known and ends when none of its tasks runs; then there is no fraction, whatever else
///   the scope still does, and the next determinate task begins a new batch.
/// - Inside a batch, a part that ended counts as done; a cancelled part leaves both sums; a
///   paused part (its `Progress` paused) keeps the units it had, and takes them back when its
///   progress is begun again.
/// - A part leaves as ended only on a reading taken after it was seen to end, so that a cancel
///   just before the end is never counted as done; until then it counts its last reading, and
///   keeps no batch running.
/// - A group's finish (which operation finished, the engine cannot tell) ends its complete
///   parts first, as done, then (being cancelled) its cancelled ones, and, with fewer open
///   tasks than running parts, those of unknown size (as operations without progress; not for
///   a finish that waited for a reading, which cannot tell which began first), then its oldest
///   running ones; and only on readings of this pass,
///   never on a plain `Progress`'s reading from an earlier one (the finish waits for one, but
///   not past the group's next begin with progress, whose part it cannot be the finish of). A group's part
///   that a later operation of the group outlives (``ProgressEntry/isOutlived``, with progress
///   or not) leaves as done once a reading of this pass finds it complete, and measures its
///   operation until a finish of the group takes it (complete parts first). A caller's token
///   begun twice with two progresses keeps both until its last task ends: neither rule applies.
struct Batch: Sendable {
    /// The tasks with progress not yet seen to have ended, in the order they began.
    private(set) var parts: [ProgressEntry] = [] {
        didSet { if parts.count <= 1 { keysAreUnique = true } }
    }
    /// Whether no two parts share a ``TaskKey`` (a group's operations, a token begun again): the
    /// common case, checked without hashing. Once `false`, it stays so until the list shrinks to
    /// one part.
    private(set) var keysAreUnique = true
    /// The parts that ended in this batch, with what they count (done ones all their units,
    /// paused ones what they had, cancelled ones none): for the sums, for a progress begun again
    /// (a pause, a resume), and for a reader that leaves some scopes out (``summary(of:excluding:)``).
    private var ended: [EndedPart] = []
    /// The sums of ``ended``, kept as parts end (recounted when one is begun again).
    private var endedUnits = EndedUnits()
    /// When the batch began (the scheduler's clock), `nil` while none runs.
    private(set) var startedAt: TimeInterval?
    /// Whether the last batch that ended had every unit of each part: none cancelled, failed,
    /// paused short or left unread at the end; `false` until one ends (a reader asks it only
    /// while no batch runs). An overlay whose bar last read 73 % of a download that finished
    /// between two readings shows 100 % as it fades.
    private(set) var lastEndedWasComplete = false
    /// The parts of the last batch that ended, a part left unread at its end as short: a reader
    /// that leaves some scopes out asks whether its own had every unit
    /// (``ownPartsWereComplete(excluding:)``), though another scope's cancel ended the batch.
    private var lastEnded: [EndedPart] = []
    /// Whether a part of this batch was cancelled or failed.
    private var hadCancelledPart = false
    /// The extra tasks begun under a listed part's token with the same progress (a token begun
    /// again while still open), by the part's identity: that part measures them too, while it
    /// runs, and they leave with it (a cancelled part's leave its task unmeasured).
    private var repeatedBegins: [ObjectIdentifier: Int] = [:]
    /// A group's parts that left as done before their operations finished (complete, outlived
    /// by a later operation), by ``TaskKey``: they measure that many more of its open tasks,
    /// until the group's finishes take them (the rules end complete parts first).
    private(set) var doneWhileOpen: [TaskKey: Int] = [:]
    /// A part of each token in ``doneWhileOpen``, the last listed: once none is listed any
    /// more, the fold is given its token's open tasks through it (``groupPartsToCount``).
    private(set) var groupParts: [TaskKey: ProgressEntry] = [:]
    /// Each group token's open tasks at the last fold: the finishes since are how many fewer
    /// it has now (a group's begin with parts listed, and its finish, each fold).
    private(set) var groupOpenTasks: [TaskKey: Int] = [:]
    /// Group tokens whose finishes wait for fresh readings (a plain `Progress` off the main queue):
    /// the fold that decides them takes the oldest running part, not one of unknown size.
    private var waitedTokens: Set<TaskKey> = []
    /// Each listed part's units done when this batch first saw its size, by its progress's
    /// identity (an ended part keeps its own): the pace counts only what the batch did since
    /// (``Summary/unitsBefore``).
    private var unitsBefore: [ObjectIdentifier: Double] = [:]

    /// Lists `entry`, just begun, with its first `reading`; `openTasks`, for a group's part, is
    /// the group's open operations with this one. `resumed`: listed parts of the same progress
    /// whose tasks all ended, not leaving cancelled, which this one begins again (``IndicatorTree/addPart(_:reading:now:keepingAlive:)``):
    /// they leave uncounted, and the new part counts their units live, from the same pace.
    mutating func add(
        _ entry: ProgressEntry,
        reading: ProgressReading,
        openTasks: Int?,
        resuming resumed: [ProgressEntry],
        now: TimeInterval
    ) {
        if !resumed.isEmpty {
            parts.removeAll { part in resumed.contains { $0 === part } }
            for part in resumed { repeatedBegins[ObjectIdentifier(part)] = nil }
        }
        // A group's finishes are counted from here: one since the last fold came before this
        // part, and is not matched to it, nor to a running part (see the rules), but ends a part
        // done while its operation was open (complete parts first), as a fold would have.
        if let openTasks {
            if let before = groupOpenTasks[entry.task], let done = doneWhileOpen[entry.task] {
                let left = done - max(0, before - (openTasks - 1))
                doneWhileOpen[entry.task] = left > 0 ? left : nil
            }
            groupOpenTasks[entry.task] = openTasks
        }
        // The same progress for the same task, still listed (a task resumed before its pause
        // was folded, a token begun again): it counts already, and counts once, for both tasks;
        // found ended meanwhile, it runs again. Only while its token lives: a token gone since
        // may have left its address, hence its key, to the new one (a scoped retry), whose task
        // is a new part. (Alive at that address, it is the new token, which the begin holds: its
        // load releases nothing under the lock.)
        if let listed = parts.first(where: { $0.task == entry.task && $0.progress === entry.progress }),
            listed.token != nil
        {
            listed.hasEnded = false
            listed.tasksEndedAtOnce = false
            listed.isCancelledByManager = false
            listed.failure = entry.failure
            repeatedBegins[ObjectIdentifier(listed), default: 0] += 1
            return
        }
        if parts.contains(where: { $0.task == entry.task }) { keysAreUnique = false }
        parts.append(entry)
        let identity = ObjectIdentifier(entry.progress)
        if let index = endedIndex(of: entry.progress) {
            // Begun again (a resume): its units count live from now on, not twice; a cancelled
            // part's units before are measured afresh.
            let part = ended.remove(at: index)
            endedUnits = EndedUnits(ended)
            unitsBefore[identity] = part.wasCancelled ? nil : part.unitsBefore
        } else if resumed.isEmpty {
            unitsBefore[identity] = reading.isDeterminate ? reading.completed : nil
        }
        if reading.isDeterminate, startedAt == nil { startedAt = now }
    }

    /// Folds the parts that leave into the batch, ends the batch if none of its parts runs, and
    /// sums what is left. `samples` are every listed part, in order. A part waiting for a reading
    /// after its end stays listed, unless the batch ends (it leaves then, uncounted).
    /// `unlistedOpenTasks`: the open tasks of each token of ``groupPartsToCount``' unlisted parts.
    mutating func fold(_ samples: [Sample], unlistedOpenTasks: [TaskKey: Int], now: TimeInterval) -> Summary {
        assert(samples.count == parts.count, "a fold samples every listed part")
        let (leaves, undecided) = leavingParts(samples)
        var summary = Summary()
        var measured: [Sample] = []
        var kept: [ProgressEntry] = []
        for (index, sample) in samples.enumerated() {
            if leaves[index] {
                end(sample)
                continue
            }
            kept.append(sample.entry)
            if sample.reading.isDeterminate, !sample.reading.isCancelled, unitsBefore[sample.identity] == nil {
                unitsBefore[sample.identity] = sample.reading.completed
            }
            summary.count(sample, unitsBefore: unitsBefore[sample.identity] ?? 0, measured: &measured)
        }
        if kept.count != parts.count {
            parts = kept
            forgetUnitsBefore(of: samples.indices.filter { leaves[$0] }.map { samples[$0].identity })
        }
        if !groupOpenTasks.isEmpty || samples.contains(where: \.isGroupPart) {
            countPartsDoneWhileOpen(samples, leaves: leaves, undecided: undecided, unlisted: unlistedOpenTasks)
        }
        if !repeatedBegins.isEmpty {
            let listed = Set(parts.map(ObjectIdentifier.init))
            repeatedBegins = repeatedBegins.filter { listed.contains($0.key) }
        }
        summary.measured = measuredTasks(of: measured)
        guard summary.isRunning else {
            let waitingSamples = samples.filter(\.isWaiting)
            let waiting = Set(waitingSamples.map { ObjectIdentifier($0.entry) })
            let left = waiting.isEmpty ? parts : parts.filter { !waiting.contains(ObjectIdentifier($0)) }
            let hasEnded = startedAt != nil
            let wasComplete =
                hasEnded
                ? !hadCancelledPart && !ended.contains(where: \.isShort) && waiting.isEmpty
                    && ended.contains(where: { $0.total > 0 })
                : lastEndedWasComplete
            let lastEnded = hasEnded ? ended + waitingSamples.map(EndedPart.unread) : self.lastEnded
            // The waiting parts leave now: so do their extra begins (no later part at their
            // address may inherit them).
            let repeats = repeatedBegins.isEmpty ? repeatedBegins : repeatedBegins.filter { !waiting.contains($0.key) }
            // A batch with nothing counted yet, listing the parts left (those of unknown size).
            // The groups' counts go on: a finish after this fold is still one, and a part done
            // while its operation is open still measures it, read in between or not.
            let groups = (groupOpenTasks, doneWhileOpen, groupParts, waitedTokens)
            self = Batch()
            parts = left
            if left.count > 1 { keysAreUnique = Self.repeatedKeys(of: left).isEmpty }
            repeatedBegins = repeats
            lastEndedWasComplete = wasComplete
            self.lastEnded = lastEnded
            (groupOpenTasks, doneWhileOpen, groupParts, waitedTokens) = groups
            return Summary()
        }
        if startedAt == nil { startedAt = now }
        summary.completed += endedUnits.completed
        summary.total += endedUnits.total
        summary.startedAt = startedAt
        summary.unitsBefore += endedUnits.unitsBefore
        return summary
    }

    /// The first ended part of `progress`: only the last ones of its identity can be its (an
    /// address is reused once its object died), so no other's weak reference is loaded.
    private func endedIndex(of progress: Progress) -> Int? {
        var found: Int?
        for index in ended.indices.reversed() where ended[index].identity == ObjectIdentifier(progress) {
            guard ended[index].progress === progress else { break }
            found = index
        }
        return found
    }

    /// Forgets the units before of the parts that `left` (ended parts keep theirs), unless listed.
    private mutating func forgetUnitsBefore(of left: [ObjectIdentifier]) {
        guard left.count <= 16 else {
            let listed = Set(parts.map { ObjectIdentifier($0.progress) })
            unitsBefore = unitsBefore.filter { listed.contains($0.key) }
            return
        }
        for identity in left where !parts.contains(where: { ObjectIdentifier($0.progress) == identity }) {
            unitsBefore[identity] = nil
        }
    }

    /// The batch as a reader sees it that leaves out the parts begun in `excluded` scopes or
    /// below them (child scopes whose own overlays draw them), from the `samples` of the fold just done: the
    /// parts still listed, and the ended ones, of the other nodes. No fraction while none of
    /// those runs, though the batch itself may run on.
    func summary(of samples: [Sample], excluding excluded: Set<IndicatorTree.NodeID>) -> Summary {
        guard let startedAt else { return Summary() }
        var summary = Summary()
        var measured: [Sample] = []
        let listed = Set(parts.map(ObjectIdentifier.init))
        for sample in samples where !sample.entry.scopes.contains(where: excluded.contains) {
            guard listed.contains(ObjectIdentifier(sample.entry)) else { continue }  // it left
            summary.count(sample, unitsBefore: unitsBefore[sample.identity] ?? 0, measured: &measured)
        }
        guard summary.isRunning else { return Summary() }
        for part in ended where !part.scopes.contains(where: excluded.contains) {
            summary.completed += part.completed
            summary.total += part.total
            summary.unitsBefore += part.unitsBefore
        }
        summary.measured = measuredTasks(of: measured) { !$0.scopes.contains(where: excluded.contains) }
        summary.startedAt = startedAt
        return summary
    }

    /// Whether the parts begun outside the `excluded` scopes (and below them) had every unit: a
    /// reader that leaves those scopes out sees its own batch end while the batch runs on, or
    /// when another scope's part ends the batch short. While the batch runs, none of them is
    /// listed and those that ended in it are all complete; once it has ended, those of the last
    /// batch are.
    func ownPartsWereComplete(excluding excluded: Set<IndicatorTree.NodeID>) -> Bool {
        let isOwn = { (scopes: [IndicatorTree.NodeID]) in !scopes.contains(where: excluded.contains) }
        if startedAt != nil, parts.contains(where: { isOwn($0.scopes) }) { return false }
        let own = (startedAt != nil ? ended : lastEnded).filter { isOwn($0.scopes) }
        return !own.isEmpty && !own.contains(where: \.isShort)
    }

    /// Which samples leave, by the rules above: every ended one read since, every cancelled one,
    /// and a group's by the group's rule. `undecided`: the groups whose readings were stale,
    /// which wait for a fresh one.
    private mutating func leavingParts(_ samples: [Sample]) -> (leaves: [Bool], undecided: Set<TaskKey>) {
        var leaves = samples.map { sample in
            guard !sample.hasEnded else { return sample.wasReadAfterEnd }
            return sample.reading.isCancelled || sample.entry.isOutlived && sample.isFresh && sample.reading.isComplete
        }
        guard !keysAreUnique || !groupOpenTasks.isEmpty else { return (leaves, []) }
        var byToken: [TaskKey: [Int]] = [:]
        for index in samples.indices where samples[index].entry.isGroupPart {
            byToken[samples[index].entry.task, default: []].append(index)
        }
        var undecided = Set<TaskKey>()
        for (key, indices) in byToken {
            // Not those that leave already (outlived, complete): a finish takes another part.
            let running = indices.filter { samples[$0].isRunning && !leaves[$0] }
            guard let first = running.first else { continue }
            let open = samples[first].openTasks
            // A stale reading cannot tell which part is complete or cancelled: wait for a fresh one.
            guard running.allSatisfy({ samples[$0].isFresh }) else {
                undecided.insert(key)
                if running.count > open || groupOpenTasks[key, default: open] > open { waitedTokens.insert(key) }
                continue
            }
            var surplus = running.count - open
            // A finish beside an operation without progress may be either's: a complete part's first.
            var taken = max(surplus, groupOpenTasks[key, default: open] - open)
            for index in running where taken > 0 && samples[index].reading.isComplete {
                leaves[index] = true
                taken -= 1
                surplus -= 1
            }
            // Then a part of unknown size (as an operation without progress), then the oldest.
            let unknown = waitedTokens.remove(key) != nil ? [] : running.filter { !samples[$0].reading.isDeterminate }
            for index in unknown + running where surplus > 0 && !leaves[index] {
                leaves[index] = true
                surplus -= 1
            }
        }
        if !waitedTokens.isEmpty { waitedTokens = waitedTokens.filter { byToken[$0] != nil } }
        return (leaves, undecided)
    }

    /// The open tasks that the running determinate parts `measured` measure: for each token, as
    /// many as it has parts, its repeated begins with one of their progresses, and its parts done
    /// while open, if its part `isIncluded`. A group's operation without progress stays unmeasured.
    private func measuredTasks(
        of measured: [Sample],
        isIncluded: (ProgressEntry) -> Bool = { _ in true }
    ) -> [MeasuredTasks] {
        guard !keysAreUnique || !repeatedBegins.isEmpty || !doneWhileOpen.isEmpty else {
            return measured.map { MeasuredTasks(task: $0.entry.task, cap: 1) }
        }
        var counts: [TaskKey: Int] = [:]
        for sample in measured {
            counts[sample.entry.task, default: 0] += 1 + repeatedBegins[ObjectIdentifier(sample.entry), default: 0]
        }
        for (key, done) in doneWhileOpen where groupParts[key].map(isIncluded) == true {
            counts[key, default: 0] += done
        }
        return counts.map { key, count in MeasuredTasks(task: key, cap: count) }
    }

    /// Recounts ``doneWhileOpen`` for each group token the fold lists, or whose open tasks it was
    /// given (`unlisted`): the parts that leave as done while their token is open now, less the
    /// finishes since the last fold (which take complete parts first, these among them), at most
    /// the token's open tasks beyond the running parts that stay. A token forgotten (none done
    /// while open) has its operations unmeasured; an `undecided` one's untaken finishes stay.
    private mutating func countPartsDoneWhileOpen(
        _ samples: [Sample],
        leaves: [Bool],
        undecided: Set<TaskKey>,
        unlisted: [TaskKey: Int]
    ) {
        var tokens = unlisted.mapValues { (open: $0, running: 0, leavingDone: 0) }
        for (index, sample) in samples.enumerated() where sample.isGroupPart {
            groupParts[sample.entry.task] = sample.entry
            var token = tokens[sample.entry.task, default: (0, 0, 0)]
            // The token's open tasks: a part found ended answers none (``ProgressEntry/hasEnded``).
            token.open = max(token.open, sample.openTasks)
            if !leaves[index] {
                if sample.isRunning { token.running += 1 }
            } else if !sample.hasEnded, !sample.reading.isCancelled {
                token.leavingDone += 1  // done, or taken by a finish (one of unknown size)
            }
            tokens[sample.entry.task] = token
        }
        var counts: [TaskKey: Int] = [:]
        var openTasks: [TaskKey: Int] = [:]
        for (key, token) in tokens {
            let finished = max(0, groupOpenTasks[key, default: token.open] - token.open)
            let done = doneWhileOpen[key, default: 0] + token.leavingDone
            let count = min(done - finished, token.open - token.running)
            if count > 0 { counts[key] = count }
            openTasks[key] = token.open + (undecided.contains(key) ? max(0, finished - done) : 0)
        }
        doneWhileOpen = counts
        groupOpenTasks = openTasks
        groupParts = groupParts.filter { counts[$0.key] != nil }
    }

    /// Counts a leaving part: a cancelled one not at all, a paused one with what it had, any
    /// other as done.
    private mutating func end(_ sample: Sample) {
        let reading = sample.reading
        guard reading.isDeterminate else { return }
        let completed = reading.isPaused ? reading.completed : reading.total
        if reading.isCancelled { hadCancelledPart = true }
        // Kept with the ended part; a cancelled part's leave the pace with the sums.
        let before = unitsBefore[sample.identity] ?? 0
        let counted = reading.isCancelled ? (0, 0, 0) : (completed, reading.total, before)
        endedUnits.add(completed: counted.0, total: counted.1, unitsBefore: counted.2)
        ended.append(
            EndedPart(
                identity: sample.identity,
                progress: sample.entry.progress,
                scopes: sample.entry.scopes,
                completed: counted.0,
                total: counted.1,
                unitsBefore: counted.2,
                wasCancelled: reading.isCancelled
            )
        )
    }
}
