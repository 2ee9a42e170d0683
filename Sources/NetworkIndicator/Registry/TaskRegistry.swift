import Foundation

/// Every open task of one manager, as a plain value kept behind the manager's lock: entries,
/// counts and the sweep, nothing else.
///
/// Entries live in the slots of a contiguous array, found through an ``IdentityTable`` keyed by
/// the identity of the object that owns them (a caller's token, a ``NetworkActivityToken``, a
/// ``NetworkActivityGroup``'s key). A begin that opens an entry looks its key up and inserts
/// it; a begin on an open entry looks it up and counts up in place; a finish looks it up and
/// counts down in place, or, at its last task, removes the key. A finished entry frees its
/// slot (count 0) for the next new entry; entries move only when a sweep finds most slots free
/// and packs them (`TaskRegistry+Sweep.swift`), never a slot pinned to an opaque token. Push/pop counting is a plain counter beside the entries.
///
/// A caller's token is identified by its `ObjectIdentifier` **and** its ``WeakWrapper``: once
/// the weak reference reads `nil` the entry is dead, whatever object now lives at that address.
///
/// An opaque ``NetworkActivityToken`` of this manager is not in the table: ``pin(label:now:)``
/// issues it a slot and the slot's generation (a ``PinnedSlot``), and the slot stays **pinned**
/// until the token is released (``finishAllPinned(at:generation:unpinning:)``), whatever happens
/// to its tasks in between (finished early, ended by a reset): nothing else takes a pinned slot
/// and no compaction moves it, so the token always finds its entry at its index, with no hash
/// lookup. Each slot keeps its generation; a release bumps it. Every pinned-slot call compares
/// the generation, so a stale pair (a released token's) is "no open task", never a change to
/// the slot's next owner. A pinned entry's ``Entry/key`` means nothing; its label is kept by
/// slot (``pinnedLabels``).
///
/// The methods on a begin's or a finish's path (and the ``IdentityTable`` methods they call) are
/// `@inline(__always)`: left to itself, the optimizer kept a dozen of them out of line, and
/// inlining them took ~10 % of the instructions of an explicit begin+finish (measured in
/// Benchmarks/README.md, "Fourth pass").
struct TaskRegistry {
    enum FinishOutcome: Equatable {
        case finished
        /// There was no open task for the key.
        case unknown
        /// The key's entry belonged to an object that is already dead; its tasks ended.
        case tokenDead
    }

    /// What a sweep found. Its strong references (in ``keptAlive`` and
    /// ``completionCandidates``) keep the objects alive until the caller has released the lock,
    /// so that no `deinit` (the caller's code) runs while it is held.
    struct SweepResult {
        var keptAlive: [AnyObject] = []
        /// Live tokens of kind ``TaskKind/completionReportingToken``, to ask outside the lock.
        var completionCandidates: [(key: ObjectIdentifier, object: AnyObject)] = []
        /// `key` is `nil` for the push counter and for an opaque token (a pinned slot).
        var staleTasks: [(key: ObjectIdentifier?, label: String, age: TimeInterval)] = []
    }

    /// The slots, free ones included: read only those that are not ``Entry/isFree``.
    var entries: [Entry] = []
    /// The free slot that the next new entry takes (`-1`: none; the entry is appended), the head
    /// of the list of free slots (``Entry/nextFreeSlot``).
    var firstFreeSlot: Int32 = -1
    var table = IdentityTable()
    private(set) var labels: [ObjectIdentifier: String] = [:]
    /// The labels of labelled pinned entries, by slot.
    private(set) var pinnedLabels: [Int32: String] = [:]
    /// The generation of a slot appended to the array: above the generation of every slot cut
    /// from it, so that a stale pair never matches a later token at a re-appended slot.
    private var appendedGeneration: UInt32 = 0
    /// The labels of the last labelled tokens whose tasks ended, for a late finish's report.
    var endedLabels = EndedLabels()
    private(set) var activeTaskCount = 0
    /// Slots in use (``Entry/isInUse``): not on the free list. Each is in the table (a caller's
    /// token or a group) or pinned to an opaque token, never both.
    var entryCount: Int { table.count + pinnedCount }
    /// Slots pinned to opaque tokens.
    private(set) var pinnedCount = 0
    /// Entries that hold a weak reference (the sweep runs only while this is not zero).
    private(set) var sweptEntryCount = 0
    private(set) var pushCount = 0
    private(set) var pushStartedAt: TimeInterval = 0
    var isPushStaleReported = false
    /// The tasks that a cancel ended, by key, while their object lives: a later finish of one
    /// is absorbed instead of reported (`TaskRegistry+Cancel.swift`). Read only when a finish
    /// finds no entry, never on a begin's or a finish's common path.
    var cancelledTasks: [ObjectIdentifier: CancelledTasks] = [:]

    // MARK: - Tokens and groups

    /// Begins one task for `key`, creating its entry (begun at `now`) if needed. A dead entry at
    /// the same key belongs to an earlier object whose memory was reused: its tasks end and a
    /// new entry replaces it.
    @inline(__always)
    mutating func begin(
        _ key: ObjectIdentifier,
        object: AnyObject?,
        kind: TaskKind,
        label: String?,
        now: @autoclosure () -> TimeInterval
    ) {
        activeTaskCount += 1
        // The slot a new entry takes; the table's lookup stores it for `key` if it is new.
        var slot = firstFreeSlot >= 0 ? firstFreeSlot : Int32(entries.count)
        if let found = table.value(for: key, insertingIfAbsent: slot) {
            let index = Int(found)
            if !isDead(at: index) {
                entries[index].count += 1  // in place, through the array's modify accessor
                return
            }
            remove(at: index)
            slot = Int32(index)  // the slot just freed, now at the head of the free list
            table.set(slot, for: key)
        }
        if Int(slot) < entries.count {
            firstFreeSlot = entries[Int(slot)].nextFreeSlot
        } else {
            entries.append(Entry.blank(generation: appendedGeneration))
        }
        entries[Int(slot)].fill(key: key, object: object, kind: kind, hasLabel: label != nil, now: now())
        if kind.isSwept { sweptEntryCount += 1 }
        if let label { labels[key] = label }
    }

    /// Ends one task of `key`.
    @inline(__always)
    mutating func finishOne(_ key: ObjectIdentifier) -> FinishOutcome {
        guard let position = table.position(of: key) else { return absorbCancelledFinish(key) ? .finished : .unknown }
        let index = Int(table.value(at: position))
        if isDead(at: index) {
            remove(at: index, tablePosition: position)
            return .tokenDead
        }
        if entries[index].count == 1 {
            remove(at: index, tablePosition: position)
        } else {
            entries[index].count -= 1
            activeTaskCount -= 1
        }
        return .finished
    }

    /// Ends every task of `key`; returns how many ended.
    @discardableResult
    mutating func finishAll(_ key: ObjectIdentifier) -> Int {
        guard let position = table.position(of: key) else { return 0 }
        return remove(at: Int(table.value(at: position)), tablePosition: position)
    }

    /// Ends every task of `key` if its entry still belongs to `object`.
    mutating func finishAll(_ key: ObjectIdentifier, ifStillOwnedBy object: AnyObject) {
        guard let found = table.value(for: key), entries[Int(found)].token.load() === object else { return }
        remove(at: Int(found))
    }

    /// The number of open tasks of the group keyed `key` (an entry of another kind found at
    /// that address, such as a dead token's, counts as none).
    func groupCount(for key: ObjectIdentifier) -> Int {
        guard let found = table.value(for: key) else { return 0 }
        let index = Int(found)
        return entries[index].kind == .group ? entries[index].count : 0
    }

    // MARK: - Opaque tokens: pinned slots

    /// Pins a free slot to a new opaque token and begins its first task (begun at `now`,
    /// labelled `label`); returns the slot and its generation, which the token carries.
    @inline(__always)
    mutating func pin(label: String?, now: @autoclosure () -> TimeInterval) -> PinnedSlot {
        let slot = takeFreeSlot()
        let index = Int(slot)
        entries[index].fillPinned(hasLabel: label != nil, now: now())
        pinnedCount += 1
        activeTaskCount += 1
        if let label { pinnedLabels[slot] = label }
        return PinnedSlot(slot: slot, generation: entries[index].generation)
    }

    /// Begins one more task of the opaque token pinned at `slot` in `generation`; the first
    /// since its tasks ended opens a new entry (begun at `now`, labelled `label`). `false` (and
    /// no change) if the slot is not pinned in that generation.
    mutating func beginPinned(
        at slot: Int32,
        generation: UInt32,
        label: String?,
        now: @autoclosure () -> TimeInterval
    ) -> Bool {
        guard isPinned(slot, in: generation) else { return false }
        let index = Int(slot)
        if entries[index].count == 0 {
            entries[index].fillPinned(hasLabel: label != nil, now: now())
            if let label { pinnedLabels[slot] = label }
        } else {
            entries[index].count += 1
        }
        activeTaskCount += 1
        return true
    }

    /// Ends one task of the opaque token pinned at `slot` in `generation`; the slot stays
    /// pinned.
    @inline(__always)
    mutating func finishOnePinned(at slot: Int32, generation: UInt32) -> FinishOutcome {
        guard isPinned(slot, in: generation), entries[Int(slot)].count > 0 else { return .unknown }
        if entries[Int(slot)].count == 1 {
            endTasks(ofPinned: Int(slot))
        } else {
            entries[Int(slot)].count -= 1
            activeTaskCount -= 1
        }
        return .finished
    }

    /// Ends every task of the opaque token pinned at `slot` in `generation` and, if `unpinning`
    /// (the token is being released), frees the slot and bumps its generation. A stale pair
    /// (another generation, or a slot out of range) changes nothing.
    @inline(__always)
    mutating func finishAllPinned(at slot: Int32, generation: UInt32, unpinning: Bool) {
        guard isPinned(slot, in: generation) else { return }
        let index = Int(slot)
        guard unpinning else { return endTasks(ofPinned: index) }
        forgetTasks(ofPinned: index)
        pinnedCount -= 1
        // One write access to the entry (one uniqueness check of the array), not three.
        entries[index].unpin(next: firstFreeSlot)
        firstFreeSlot = slot
    }

    /// Whether the opaque token pinned at `slot` in `generation` has an open task.
    func hasOpenTask(pinnedAt slot: Int32, generation: UInt32) -> Bool {
        isPinned(slot, in: generation) && entries[Int(slot)].count > 0
    }

    /// The label of the entry at `index`, if it was given one.
    func label(at index: Int) -> String? {
        guard entries[index].hasLabel else { return nil }
        return entries[index].isPinned ? pinnedLabels[Int32(index)] : labels[entries[index].key]
    }

    /// The stale-pair check: `slot` is in range, pinned, and in `generation`.
    @inline(__always)
    private func isPinned(_ slot: Int32, in generation: UInt32) -> Bool {
        let index = Int(slot)
        return index >= 0 && index < entries.count && entries[index].isPinned
            && entries[index].generation == generation
    }

    /// Ends the tasks of the pinned entry at `index`; it stays pinned, with no task. (Its
    /// `hasLabel` is read only while it has tasks, and the begin that reopens it sets it.)
    @inline(__always)
    private mutating func endTasks(ofPinned index: Int) {
        forgetTasks(ofPinned: index)
        entries[index].count = 0
    }

    /// Takes the tasks of the pinned entry at `index` out of the count and drops its label,
    /// reading the entry only: the caller writes it (``endTasks(ofPinned:)``, or
    /// ``Entry/unpin(next:)`` when the token is released), so that the entry is written once.
    @inline(__always)
    private mutating func forgetTasks(ofPinned index: Int) {
        activeTaskCount -= entries[index].count
        if entries[index].hasLabel { pinnedLabels[Int32(index)] = nil }
    }

    // MARK: - Push/pop

    mutating func push(now: @autoclosure () -> TimeInterval) {
        if pushCount == 0 {
            pushStartedAt = now()
            isPushStaleReported = false
        }
        pushCount += 1
        activeTaskCount += 1
    }

    /// Ends one pushed task; `false` (and no change) if none is open.
    mutating func pop() -> Bool {
        guard pushCount > 0 else { return false }
        pushCount -= 1
        activeTaskCount -= 1
        return true
    }

    // MARK: - Everything

    /// Ends every task. Slots pinned to opaque tokens stay pinned, with no task.
    mutating func removeAll() {
        firstFreeSlot = -1
        if pinnedCount == 0 {
            forgetGenerations(ofSlotsFrom: 0)
            entries.removeAll()
        } else {
            for index in entries.indices.reversed() {
                if entries[index].isPinned {
                    entries[index].count = 0  // its label goes with `labels` below
                } else {
                    entries[index].free(next: firstFreeSlot)
                    firstFreeSlot = Int32(index)
                }
            }
        }
        table.removeAll()
        labels.removeAll()
        pinnedLabels.removeAll()
        cancelledTasks.removeAll()
        activeTaskCount = 0
        sweptEntryCount = 0
        pushCount = 0
    }

    /// Before the slots from `start` on are cut from the array: later appended slots start
    /// above their generations.
    mutating func forgetGenerations(ofSlotsFrom start: Int) {
        for index in start..<entries.count {
            appendedGeneration = max(appendedGeneration, entries[index].generation)
        }
    }

    // MARK: - Private

    /// Takes the slot at the head of the free list, or appends one; the caller fills it.
    @inline(__always)
    private mutating func takeFreeSlot() -> Int32 {
        if firstFreeSlot >= 0 {
            let slot = firstFreeSlot
            firstFreeSlot = entries[Int(slot)].nextFreeSlot
            return slot
        }
        entries.append(Entry.blank(generation: appendedGeneration))
        return Int32(entries.count - 1)
    }

    /// A swept entry whose object is gone (or is running its `deinit`). Safe under the lock:
    /// the weak load yields `nil`, or the caller's own token, which the caller still holds.
    @inline(__always)
    private mutating func isDead(at index: Int) -> Bool {
        entries[index].kind.isSwept && entries[index].token.load() == nil
    }

    /// Ends the entry at `index` and frees its slot; returns its task count. `tablePosition` is
    /// where its key lies in the table, if the caller just looked it up.
    @discardableResult
    @inline(__always)
    mutating func remove(at index: Int, tablePosition: Int? = nil) -> Int {
        let key = entries[index].key
        let count = entries[index].count
        let isSwept = entries[index].kind.isSwept
        let hasLabel = entries[index].hasLabel
        activeTaskCount -= count
        if isSwept { sweptEntryCount -= 1 }
        if hasLabel, let label = labels.removeValue(forKey: key), isSwept {
            endedLabels.remember(label, key: key, token: entries[index].token)
        }
        if let tablePosition { table.remove(at: tablePosition) } else { table.remove(key) }
        entries[index].free(next: firstFreeSlot)
        firstFreeSlot = Int32(index)
        return count
    }
}
