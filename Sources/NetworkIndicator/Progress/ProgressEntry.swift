import Foundation

/// One task begun with a Foundation `Progress`: a part of the batch of the node that began it and
/// of each of its ancestors (``IndicatorTree/Node/batch``), listed under the tree's lock.
///
/// A task has ended when its token is gone (an opaque token released, a caller's token
/// deallocated, a group released) or when the node that began it has no open task under the
/// token's key any more (finished explicitly, ended by a sweep or a reset, or the manager is gone).
/// Both are asked under the tree's lock when a fraction is read, never when a task begins or
/// finishes, so that tasks without progress pay nothing.
///
/// `@unchecked Sendable`: its `var`s (``reading``, ``failure`` and the notes of the fold) are
/// read and written only under the lock of the tree that lists the entry (one tree: a task's
/// node and its ancestors share it). ``token`` is a weak
/// reference set once in `init`; loading it is atomic in the Swift runtime, and the object it
/// yields is only compared with `nil`. `Progress` is `Sendable`; how it may be read on Linux is in
/// ``ProgressReading``.
final class ProgressEntry: @unchecked Sendable {
    /// The caller's progress; read outside every lock (``read()``).
    let progress: Progress
    /// The units the whole task weighs instead of its progress's total, if the caller said.
    let weight: Int64?
    /// The token, as the registry of the node that began the task names it, and that node: what
    /// groups a batch's parts, since one token may run tasks in several managers of a tree, and
    /// each counts on its own.
    let task: TaskKey
    /// Whether the token is a group's: its parts leave by the group's rules (``Batch``), where a
    /// caller's token begun twice keeps both parts until its last task ends.
    let isGroupPart: Bool
    /// The node that began the task and each of its ancestors, that node first: a reader that
    /// leaves some scopes out (``Batch/summary(of:excluding:)``) leaves out every part begun in
    /// them or below, even once a node below is gone.
    let scopes: [IndicatorTree.NodeID]
    /// The object whose lifetime bounds the task; `nil` once it is gone. Under the tree's lock, a
    /// live token's key is certainly still its own in the registry. Keep what a load returns
    /// until after the lock: if another thread drops the token's last reference meanwhile, the
    /// release of this one runs its `deinit`, which must not run under the lock.
    private(set) weak var token: AnyObject?
    /// Whether the task failed (under the tree's lock only; a copy may be asked anywhere).
    var failure: Failure
    /// Whether the progress is a caller's plain `Progress`, which takes no lock on Linux: it is
    /// read on the main queue only, and elsewhere its last main-queue ``reading`` stands for it.
    let readsOnMainQueueOnly: Bool
    /// The last reading stored by a fold, under the tree's lock only: what the parts not read
    /// in a pass count with (unknown until the first).
    var reading = ProgressReading(total: -1, completed: 0)
    /// What the fold under way stored of this part (under the tree's lock, cleared as the fold
    /// ends): a reading taken in its pass (`fresh`), taken after the part was seen to have ended
    /// (`afterEnd`), or none.
    var foldReading = FoldReading.none
    enum FoldReading { case none, fresh, afterEnd }
    /// Whether a later operation of the part's group began (under the tree's lock only): the
    /// part leaves as done once a fresh reading finds it complete (``Batch``).
    var isOutlived = false
    /// Whether a fold found none of its token's tasks open (under the tree's lock only): every
    /// task it measured has ended, and a later begin of the token with another progress is
    /// another part's, so the part stays ended even if it could not be read then (a plain
    /// `Progress` off the main queue). A begin with the same progress resumes it (`Batch.add`).
    var hasEnded = false
    /// Whether a manager's cancel ended the part's tasks and told its token to stop, for a
    /// caller's cancellable token with no failure record (under the tree's lock only): every
    /// fold counts it cancelled unless it reads complete (its units will not come; a complete
    /// one's all came). A begin of the token with the same progress while the part is still
    /// listed (waiting for a reading, off the main queue) runs it again (`Batch.add`).
    var isCancelledByManager = false
    /// Whether an event ended every task of the part at once (a group's operations all finished
    /// or cancelled, a load's end, a reset; under the tree's lock only): the next fold finds it
    /// ended (``hasEnded``), though its token may have begun again since, without progress.
    var tasksEndedAtOnce = false
    /// How the progress tells the roll-ups that list it that its total became known
    /// (``SizeSignal``), so that none of them has to poll it meanwhile; `nil` for a `Progress`
    /// of Foundation's, which tells nobody (on Linux it cannot be observed).
    let sizeSignal: SizeSignal?

    init(
        progress: Progress,
        weight: Int64?,
        token: AnyObject,
        node: IndicatorTree.NodeID,
        ancestors: [IndicatorTree.NodeID] = [],
        pinned: PinnedSlot?,
        failure: FailureRecord?
    ) {
        self.scopes = [node] + ancestors
        self.progress = progress
        self.weight = weight
        self.failure = Failure(record: failure)
        self.sizeSignal = (progress as? NetworkActivityProgress)?.sizeSignal
        self.readsOnMainQueueOnly = !(progress is any SelfReadingProgress)
        // An opaque token by its pinned slot: it is not in the node's table.
        self.task = TaskKey(node: node, reference: pinned.map { .pinned($0) } ?? .key(ObjectIdentifier(token)))
        self.isGroupPart = token is ActivityKey
        self.token = token
    }

    /// Where the code that runs a task records that it failed, and what an event that ended all
    /// its tasks at once found.
    struct Failure: Sendable {
        /// The record, if the code can tell: set in `init`, and replaced by the new task's when a
        /// begin with the same progress resumes the part (``Batch/add(_:reading:openTasks:resuming:now:)``),
        /// so that a retry after a cancel is not taken for the cancelled task.
        var record: FailureRecord?
        /// Whether the part had failed when an event ended all its tasks at once (a reset, a
        /// group's operations all ended): a failure recorded later is not the part's, it comes
        /// after its end. `nil` while its tasks run, and once it resumes.
        var atEnd: Bool?

        /// What the tasks' end found, else whether the record says failed now (safe anywhere).
        var hasFailed: Bool { atEnd ?? (record?.hasFailed == true) }
    }

    /// Whether the part leaves its batch as cancelled, not done (under the tree's lock only): it
    /// failed, or a manager's cancel stopped it short of complete (a cancelled token's part
    /// whose every unit came stays done).
    var leavesCancelled: Bool { failure.hasFailed || isCancelledByManager && !reading.isComplete }

    /// The progress now, in the units the task weighs, or `nil` for a caller's plain `Progress`
    /// off the main queue. Call it without holding a lock: a `Progress` may run code of its own
    /// in its getters. A recorded failure is the fold's to apply (``Failure/hasFailed``), under the lock.
    func read() -> ProgressReading? {
        guard !readsOnMainQueueOnly || MainQueue.isCurrent else { return nil }
        return ProgressReading(of: progress, weight: weight)
    }

    /// `progress` read as a part's first reading, before its entry exists: ``read()`` without a
    /// failure recorded (none can be before the task begins).
    static func read(_ progress: Progress, weight: Int64?) -> ProgressReading? {
        guard progress is any SelfReadingProgress || MainQueue.isCurrent else { return nil }
        return ProgressReading(of: progress, weight: weight)
    }
}

/// A token's tasks in one node of the tree: a progress part's, a task told to watchers as begun.
struct TaskKey: Hashable, Sendable {
    let node: IndicatorTree.NodeID
    let reference: TaskReference
}

/// Up to `cap` open tasks of `task`, which a running part of known size measures: what is left
/// of a scope's tasks is work of unknown size (``NetworkProgressSnapshot/hasIndeterminateWork``).
struct MeasuredTasks: Equatable, Sendable {
    let task: TaskKey
    let cap: Int
}

extension Batch {
    /// What a fold found.
    struct Summary: Equatable {
        /// Units done and in all, over the batch's parts, ended ones included.
        var completed: Double = 0
        var total: Double = 0
        /// Running parts whose size is known.
        var runningDeterminate = 0
        /// The open tasks that those parts measure, by ``TaskKey`` (see ``MeasuredTasks``).
        var measured: [MeasuredTasks] = []
        var startedAt: TimeInterval?
        /// Of ``completed``, the units the parts had done when the batch first saw their size:
        /// not the batch's pace.
        var unitsBefore: Double = 0

        var isRunning: Bool { runningDeterminate > 0 }
        /// The fraction done, while the batch runs and has units: what a snapshot and a
        /// listener are told.
        var fraction: Double? { isRunning && total > 0 ? min(max(completed / total, 0), 1) : nil }

        /// Counts a listed part that stays: its own units before (`before`, whatever its
        /// reading), its units if its size is known and it is not cancelled (a waiting part
        /// counts its last reading, so the bar holds until it is read again, but keeps no batch
        /// running), and, if it runs, the part among `measured`.
        mutating func count(_ sample: Sample, unitsBefore before: Double, measured: inout [Sample]) {
            unitsBefore += before
            guard sample.reading.isDeterminate, !sample.reading.isCancelled else { return }
            completed += sample.reading.completed
            total += sample.reading.total
            guard sample.isRunning else { return }
            runningDeterminate += 1
            measured.append(sample)
        }
    }
}

/// What the tree notes on a batch's parts at an event, under its lock.
extension Batch {
    /// Every task of the parts that `ended` selects ended at once (a group's operations all
    /// finished or cancelled, a load's end, a reset): noted now, so that the token begun again
    /// without progress before the next fold does not bring its part back.
    func noteTasksEnded(_ ended: (ProgressEntry) -> Bool) {
        for part in parts where ended(part) {
            part.tasksEndedAtOnce = true
            if part.failure.atEnd == nil { part.failure.atEnd = part.failure.hasFailed }
        }
    }

    /// A later operation of the group keyed `token` began in the batch's node: each of its
    /// listed parts is outlived. Returns whether there was one.
    func outlive(_ token: ObjectIdentifier) -> Bool {
        var outlived = false
        for part in parts where part.task.reference == .key(token) {
            part.isOutlived = true
            outlived = true
        }
        return outlived
    }
}

/// What the tree reads of a batch's groups and repeated tokens before a fold.
extension Batch {
    /// The parts kept for the groups' parts done while open (`kept`: a fold may let go of them,
    /// so the tree hands them back to release after its lock), and those of them whose groups
    /// have no part listed any more (`unlisted`: the fold is given their tokens' open tasks).
    var groupPartsToCount: (kept: [ProgressEntry], unlisted: [ProgressEntry]) {
        guard !groupParts.isEmpty else { return ([], []) }
        let listed = Set(parts.map(\.task))
        let unlisted = doneWhileOpen.isEmpty ? [] : groupParts.values.filter { !listed.contains($0.task) }
        return (Array(groupParts.values), unlisted)
    }

    /// The tokens whose parts a settling fold reads all of: those with parts repeated, and those
    /// with parts done while their operations are open (a finish changes what they measure).
    var tokensToReadWhole: Set<TaskKey> {
        guard !keysAreUnique || !groupOpenTasks.isEmpty else { return [] }
        let keys = Set(groupOpenTasks.keys)
        return keysAreUnique ? keys : Self.repeatedKeys(of: parts).union(keys)
    }

    /// The task keys that more than one of `parts` share.
    static func repeatedKeys(of parts: [ProgressEntry]) -> Set<TaskKey> {
        var seen = Set<TaskKey>()
        var repeated = Set<TaskKey>()
        for part in parts where !seen.insert(part.task).inserted { repeated.insert(part.task) }
        return repeated
    }
}

/// Whether a task with progress failed or was cancelled, recorded by the code that runs it
/// before the task ends, so that its part leaves the batch instead of counting as done.
/// Safe from any thread; once recorded, it stays so. A value sharing one lock box: its copies
/// are the same record (one allocation, not an object and its box).
struct FailureRecord: Sendable {
    private let failed = LockedState(false)

    var hasFailed: Bool { failed.withLock { $0 } }

    func recordFailure() {
        failed.withLock { $0 = true }
    }
}

/// Work that ``NetworkIndicatorManager/cancelNetworkTasks()`` can cancel and whose progress a
/// cancel fails: the registry records the failure before it ends the task.
protocol FailsProgressWhenCancelled: NetworkActivityCancellable {
    /// Records that the progress of the work's running tasks failed. Called under the tree's
    /// lock, as the cancel ends those tasks: it takes no lock but its own and runs no caller code.
    func recordCancellation()
}

/// The roll-ups listing a progress of unknown size, told when its total becomes known, so
/// that a roll-up whose listed parts are all of unknown size runs no timer to find out
/// (``ProgressRollUp/sizeBecameKnown()``). Safe from any thread; the roll-ups are held weakly.
final class SizeSignal: Sendable {
    private struct Listener: Sendable {
        weak var rollUp: ProgressRollUp?
    }

    private let listeners = LockedState<[Listener]>([])

    /// Tells `rollUp` from now on, once however often it is added.
    func add(_ rollUp: ProgressRollUp) {
        listeners.withLock { listeners in
            listeners.removeAll { $0.rollUp == nil }
            if !listeners.contains(where: { $0.rollUp === rollUp }) { listeners.append(Listener(rollUp: rollUp)) }
        }
    }

    /// How many roll-ups it holds, gone ones included until the next ``add(_:)``.
    var listenerCount: Int { listeners.withLock { $0.count } }

    /// The total became known: tells every roll-up still there, outside the lock.
    func sizeBecameKnown() {
        let rollUps = listeners.withLock { $0.compactMap(\.rollUp) }
        for rollUp in rollUps { rollUp.sizeBecameKnown() }
    }
}
