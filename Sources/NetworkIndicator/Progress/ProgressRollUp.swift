import Foundation

/// One manager's determinate progress: the tasks begun with a `Progress` in the manager or any
/// of its descendants, rolled up into a batch when read (``snapshot()``), and the listeners
/// polled while such tasks exist (`ProgressRollUp+Polling.swift`).
///
/// A side structure beside the engine, with a lock of its own: the engine never calls it, so a
/// task without progress pays nothing, and a progress update costs nothing until someone reads.
/// The lock is never held while another is taken (the drivers are asked, and each `Progress`
/// read, before or after it), and nobody's code runs under it: listeners are told outside.
///
/// ## The rules (``Batch``)
///
/// - A task weighs its total units (bytes where bytes are known), or the weight its caller
///   gave; it has done `fractionCompleted` of them. A task whose total is unknown takes no part.
/// - A batch is the determinate work that overlaps. It begins with the first task whose total
///   is known and ends when none of its tasks runs; then there is no fraction, whatever else
///   the scope still does, and the next determinate task begins a new batch.
/// - Inside a batch, a part that ended counts as done; a cancelled part leaves both sums; a
///   paused part (its `Progress` paused) keeps the units it had, and takes them back when its
///   progress is begun again.
final class ProgressRollUp: Sendable {
    /// The manager's driver: its count and its scheduler's clock.
    let driver: IndicatorDriver
    let state = LockedState(State())

    init(driver: IndicatorDriver) {
        self.driver = driver
    }

    struct State: Sendable {
        var batch = Batch()
        // Polling (see ProgressRollUp+Polling.swift).
        /// The interval of the poll the delivery was last asked for, `nil` for none.
        var pollInterval: TimeInterval?
        var hasListeners = false
    }

    /// How many tasks with progress the roll-up still lists (running, or ended and not yet
    /// seen to be).
    var partCount: Int { state.withLock { $0.batch.parts.count } }

    /// Folds the parts that ended before a task with progress begins, so that whether a batch
    /// is over, and whether a token begun again had ended, never depends on whether anyone read.
    ///
    /// Cheaper than a reading: every part is asked whether it ended (a lock each), but only the
    /// ended parts, the parts of a token listed more than once, and the running parts up to the
    /// first determinate one are read (a `Progress` read costs several times a lock).
    func settle() {
        let (parts, keysAreUnique) = state.withLock { ($0.batch.parts, $0.batch.keysAreUnique) }
        guard !parts.isEmpty else { return }
        let repeatedKeys = keysAreUnique ? [] : Batch.repeatedKeys(of: parts)
        var foundRunning = false
        let onMainQueue = MainQueue.isCurrent
        var deferred: [ProgressEntry] = []
        let samples = parts.compactMap { part -> Batch.Sample? in
            let openTasks = part.openTaskCount
            let hasEnded = openTasks == 0
            // An ended plain `Progress` is folded from a main-queue reading only: elsewhere its
            // reading is the main queue's last, which may predate its end (a cancel, say).
            if hasEnded && !onMainQueue && part.readsOnMainQueueOnly {
                deferred.append(part)
                return nil
            }
            let isRepeated = repeatedKeys.contains(part.task)
            let reading = hasEnded || !foundRunning || isRepeated ? part.read() : nil
            // Only a part of a token listed once keeps the batch running for sure: a repeated
            // one may leave in the fold (superseded, or surplus), and the parts left unread
            // would then look as if none ran.
            if !hasEnded, !isRepeated, let reading, reading.isDeterminate, !reading.isCancelled { foundRunning = true }
            return Batch.Sample(entry: part, openTasks: openTasks, reading: reading)
        }
        // Nothing to fold while the batch runs and no part leaves: the common case.
        let leaves = samples.contains { $0.hasEnded || $0.reading?.isCancelled == true }
        guard leaves || !foundRunning || !keysAreUnique else { return }
        let now = driver.scheduler.now
        state.withLock { _ = $0.batch.fold(samples, deferring: deferred, now: now) }
    }

    /// Before a cancel of this manager's subtree (``NetworkIndicatorManager/cancelNetworkTasks()``):
    /// tells each tracked URLSession task still open that its cancel is coming, so that no reading
    /// between its end and its `cancel()` counts it as done. A task that a finish ends between
    /// this and the cancel reads failed until it completes.
    func cancelIsComing() {
        let parts = state.withLock { $0.batch.parts }
        for part in parts {
            guard let progress = part.progress as? URLSessionTaskProgress, part.openTaskCount > 0 else { continue }
            progress.cancelIsComing()
        }
    }

    /// Adds an entry begun in this manager or a descendant, just after the begin.
    func add(_ entry: ProgressEntry) {
        // Listening first: a total given after the reading is told.
        entry.sizeSignal?.add(self)
        let reading = entry.read()
        let now = driver.scheduler.now
        state.withLock { $0.batch.add(entry, reading: reading, now: now) }
        pollIfWanted()
        // A total told between the reading and the listing found the entry unlisted.
        if !reading.isDeterminate, entry.sizeSignal != nil, entry.read().isDeterminate { sizeBecameKnown() }
    }

    /// The batch now: reads every listed part outside the lock, then folds under it.
    func read() -> Batch.Summary {
        let parts = state.withLock { $0.batch.parts }
        // Whether it ended first: a reading after it is at least as recent.
        let onMainQueue = MainQueue.isCurrent
        var deferred: [ProgressEntry] = []
        let samples = parts.compactMap { part -> Batch.Sample? in
            let openTasks = part.openTaskCount
            // As in `settle()`: an ended plain `Progress` waits for a main-queue reading.
            if openTasks == 0 && !onMainQueue && part.readsOnMainQueueOnly {
                deferred.append(part)
                return nil
            }
            return Batch.Sample(entry: part, openTasks: openTasks, reading: part.read())
        }
        let now = driver.scheduler.now
        return state.withLock { $0.batch.fold(samples, deferring: deferred, now: now) }
    }

    /// What ``NetworkIndicatorManager/progressSnapshot()`` returns. Whether some task is not
    /// measured is counted in one hold of the tree's lock, after the parts were read: a part that
    /// ended meanwhile measures nothing, and one that began meanwhile reads unmeasured.
    func snapshot() -> NetworkProgressSnapshot {
        let summary = read()
        let hasUnmeasuredTasks = driver.hasUnmeasuredTasks(summary.measured)
        guard hasUnmeasuredTasks || summary.isRunning else { return NetworkProgressSnapshot() }
        let now = driver.scheduler.now
        return NetworkProgressSnapshot(summary: summary, hasIndeterminateWork: hasUnmeasuredTasks, now: now)
    }
}

/// The determinate work that overlaps, and the parts listed for it.
struct Batch: Sendable {
    /// The tasks with progress not yet seen to have ended, in the order they began.
    private(set) var parts: [ProgressEntry] = [] {
        didSet { if parts.count <= 1 { keysAreUnique = true } }
    }
    /// Whether no two parts share a ``TaskKey`` (a group's operations, a token begun again), so that
    /// no part can be superseded: the common case, checked without hashing. Once `false`, it
    /// stays so until the list shrinks to one part.
    private(set) var keysAreUnique = true
    /// The units of the parts that ended in this batch: done ones count all theirs, paused ones
    /// what they had.
    private(set) var endedCompleted: Double = 0
    private(set) var endedTotal: Double = 0
    /// Ended parts whose progress may be begun again (a pause, a resume), with what they count.
    private var ended: [EndedPart] = []
    /// When the batch began (the scheduler's clock), `nil` while none runs.
    private(set) var startedAt: TimeInterval?

    /// One part as read outside the lock; a running part is left unread (`nil`) only once a
    /// running determinate part was found before it (see ``ProgressRollUp/settle()``).
    struct Sample {
        let entry: ProgressEntry
        /// The tasks open under the part's token when sampled (``ProgressEntry/openTaskCount``).
        let openTasks: Int
        let reading: ProgressReading?

        var hasEnded: Bool { openTasks == 0 }
    }
    /// The extra tasks begun under a listed part's token with the same progress (a token begun
    /// again while still open), by ``TaskKey``: that part measures them too.
    private var repeatedBegins: [TaskKey: Int] = [:]

    /// An ended part, for its progress to take its units back if it is begun again.
    private struct EndedPart: Sendable {
        weak var progress: Progress?
        let completed: Double
        let total: Double
    }

    /// What a reading found.
    struct Summary: Equatable {
        /// Units done and in all, over the batch's parts, ended ones included.
        var completed: Double = 0
        var total: Double = 0
        /// Running parts whose size is known.
        var runningDeterminate = 0
        /// The open tasks that those parts measure, by ``TaskKey`` (see ``MeasuredTasks``).
        var measured: [MeasuredTasks] = []
        var startedAt: TimeInterval?

        var isRunning: Bool { runningDeterminate > 0 }
    }

    mutating func add(_ entry: ProgressEntry, reading: ProgressReading, now: TimeInterval) {
        // The same progress for the same task, still listed (a task resumed before its pause
        // was folded, a token begun again): it counts already, and counts once, for both tasks.
        guard !parts.contains(where: { $0.task == entry.task && $0.progress === entry.progress }) else {
            repeatedBegins[entry.task, default: 0] += 1
            return
        }
        let repeats = parts.contains { $0.task == entry.task }
        parts.append(entry)
        if repeats { keysAreUnique = false }
        if let index = ended.firstIndex(where: { $0.progress === entry.progress }) {
            // Begun again (a resume): its units count live from now on, not twice.
            endedCompleted -= ended[index].completed
            endedTotal -= ended[index].total
            ended.remove(at: index)
        }
        if reading.isDeterminate, startedAt == nil { startedAt = now }
    }

    /// Folds the samples' ended parts into the batch, ends the batch if none of its parts runs,
    /// and sums what is left. The `deferred` parts ended but could not be read here (a caller's
    /// plain `Progress`, off the main queue): they stay listed for a main-queue reading, unless
    /// the batch ends, which they no longer belong to; they leave it then, uncounted.
    mutating func fold(_ samples: [Sample], deferring deferred: [ProgressEntry] = [], now: TimeInterval) -> Summary {
        // Arrays, not sets: few parts leave at a time, and hashing each part costs more.
        let leaving = leavingParts(samples).map { ObjectIdentifier($0.entry) }
        var summary = Summary()
        var listed: [ObjectIdentifier] = []
        if !leaving.isEmpty {
            parts.removeAll { entry in
                guard leaving.contains(ObjectIdentifier(entry)) else { return false }
                listed.append(ObjectIdentifier(entry))
                return true
            }
        }
        // Parts keep their order, and new ones are appended: a sample's part, if still listed,
        // stands after the previous sample's.
        var next = parts.startIndex
        var measured: [Sample] = []
        for sample in samples {
            let id = ObjectIdentifier(sample.entry)
            if leaving.contains(id) {
                // Only what this call removed: another reader may have folded it already.
                if listed.contains(id) { end(sample) }
                continue
            }
            // A part no longer listed was folded by another reader since it was sampled: it
            // counts among the ended parts, not again here.
            guard let index = parts[next...].firstIndex(where: { $0 === sample.entry }) else { continue }
            next = index + 1
            if let reading = sample.reading, reading.isDeterminate {
                summary.completed += reading.completed
                summary.total += reading.total
                summary.runningDeterminate += 1
                measured.append(sample)
            }
        }
        summary.measured = measuredTasks(of: measured)
        guard summary.isRunning else {
            // A part listed since the samples were taken may run: the batch goes on until a fold
            // that sampled every listed part (the deferred aside) finds none running.
            let isDeferred = { (part: ProgressEntry) in deferred.contains { $0 === part } }
            let isSampled = { (part: ProgressEntry) in samples.contains { $0.entry === part } }
            if parts.contains(where: { !isSampled($0) && !isDeferred($0) }) { return Summary() }
            parts.removeAll(where: isDeferred)
            self = Batch(parts: parts, repeatedBegins: repeatedBegins)
            return Summary()
        }
        if startedAt == nil { startedAt = now }
        ended.removeAll { $0.progress == nil }
        summary.completed += endedCompleted
        summary.total += endedTotal
        summary.startedAt = startedAt
        return summary
    }

    /// A batch with nothing counted yet, listing `parts` (those of unknown size left over).
    private init(parts: [ProgressEntry], repeatedBegins: [TaskKey: Int]) {
        self.parts = parts
        self.repeatedBegins = repeatedBegins
        keysAreUnique = parts.count <= 1 || Self.repeatedKeys(of: parts).isEmpty
    }

    init() {}

    /// The parts that leave the batch: every ended or cancelled one and, for a token with fewer
    /// open tasks than running parts (a group's finished operations: which one finished, the
    /// engine cannot tell), as many more as it has parts too many, its complete ones first, then
    /// its oldest running ones; and a complete part a later part of its token outlives.
    private func leavingParts(_ samples: [Sample]) -> [Sample] {
        guard !keysAreUnique else { return samples.filter { $0.hasEnded || $0.reading?.isCancelled == true } }
        var byToken: [TaskKey: [Int]] = [:]
        for index in samples.indices { byToken[samples[index].entry.task, default: []].append(index) }
        var leaves = [Bool](repeating: false, count: samples.count)
        for indices in byToken.values {
            let running = indices.filter { !samples[$0].hasEnded && samples[$0].reading?.isCancelled != true }
            for index in indices where !running.contains(index) { leaves[index] = true }
            // The newest sample's count is the latest reading of the token's open tasks.
            var surplus = running.count - (samples[indices.last!].openTasks)
            for index in running where surplus > 0 && samples[index].reading?.isComplete == true {
                leaves[index] = true
                surplus -= 1
            }
            for index in running where surplus > 0 && !leaves[index] {
                leaves[index] = true
                surplus -= 1
            }
            var laterStays = false
            for index in running.reversed() where !leaves[index] {
                if laterStays && samples[index].reading?.isComplete == true { leaves[index] = true }
                laterStays = true
            }
        }
        return samples.indices.filter { leaves[$0] }.map { samples[$0] }
    }

    static func repeatedKeys(of parts: [ProgressEntry]) -> Set<TaskKey> {
        var seen = Set<TaskKey>()
        var repeated = Set<TaskKey>()
        for part in parts where !seen.insert(part.task).inserted { repeated.insert(part.task) }
        return repeated
    }

    /// The open tasks that the running determinate parts `measured` measure: for each token, as
    /// many as it has parts, and its repeated begins with one of their progresses. A group's
    /// operation without progress, under the group's token, stays unmeasured.
    private mutating func measuredTasks(of measured: [Sample]) -> [MeasuredTasks] {
        if !repeatedBegins.isEmpty {
            let listed = Set(parts.map(\.task))
            repeatedBegins = repeatedBegins.filter { listed.contains($0.key) }
        }
        guard !keysAreUnique || !repeatedBegins.isEmpty else { return measured.map { $0.entry.measuring(1) } }
        var byKey: [TaskKey: (entry: ProgressEntry, parts: Int)] = [:]
        for sample in measured {
            byKey[sample.entry.task, default: (sample.entry, 0)].parts += 1
        }
        return byKey.map { key, token in token.entry.measuring(token.parts + repeatedBegins[key, default: 0]) }
    }

    /// Counts an ended part: a cancelled one not at all, a paused one with what it had, any
    /// other as done.
    private mutating func end(_ sample: Sample) {
        guard let reading = sample.reading, reading.isDeterminate, !reading.isCancelled else { return }
        let completed = reading.isPaused ? reading.completed : reading.total
        endedCompleted += completed
        endedTotal += reading.total
        ended.append(EndedPart(progress: sample.entry.progress, completed: completed, total: reading.total))
    }
}
