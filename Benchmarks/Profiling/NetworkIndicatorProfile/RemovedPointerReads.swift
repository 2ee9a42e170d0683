// The registry as it was before issue 17 removed its unsafe reads (commit 36f8570), kept only so
// that `ratios` can time it beside the library's own `TaskRegistry` (symlinked into this tool) in
// the same run: entries read through `withUnsafeBufferPointer` and pointer arithmetic
// (`readEntry`) and the sweep through `withUnsafeMutableBufferPointer`; both load the weak
// reference in place, as the library still does (`WeakWrapper.load()`). Only the type's name
// changed (and the sweep's stale label, which needs the library's entry type, is a constant
// string; the A/B sweep sets no stale threshold, so it is never built).
//
// Not part of the library: nothing here ships.
import Foundation

struct PointerReadTaskRegistry {
    /// One slot: an entry while ``count`` is positive, free when it is 0.
    struct Entry {
        var key: ObjectIdentifier
        var token: WeakWrapper
        var count: Int
        var startedAt: TimeInterval
        var kind: TaskKind
        /// The label lives in ``PointerReadTaskRegistry/labels`` (only labelled entries pay for one).
        var hasLabel: Bool
        var isStaleReported = false

        var isFree: Bool { count == 0 }
    }

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
        /// `key` is `nil` for the push counter.
        var staleTasks: [(key: ObjectIdentifier?, label: String, age: TimeInterval)] = []
        var endedTaskCount = 0
    }

    /// The slots, free ones included: read only those that are not ``Entry/isFree``.
    var entries: [Entry] = []
    var freeSlots: [Int32] = []
    var table = IdentityTable()
    private(set) var labels: [ObjectIdentifier: String] = [:]
    private(set) var activeTaskCount = 0
    /// Entries in use (slots that are not free).
    private(set) var entryCount = 0
    /// Entries that hold a weak reference (the sweep runs only while this is not zero).
    private(set) var sweptEntryCount = 0
    private(set) var pushCount = 0
    private(set) var pushStartedAt: TimeInterval = 0
    var isPushStaleReported = false

    // MARK: - Tokens and groups

    /// Begins one task for `key`, creating its entry (begun at `now`) if needed. A dead entry at
    /// the same key belongs to an earlier object whose memory was reused: its tasks end and a
    /// new entry replaces it.
    mutating func begin(
        _ key: ObjectIdentifier,
        object: AnyObject?,
        kind: TaskKind,
        label: String?,
        now: TimeInterval
    ) {
        activeTaskCount += 1
        if let found = table.value(for: key) {
            let index = Int(found)
            if !isDead(at: index) {
                entries[index].count += 1  // in place, through the array's modify accessor
                return
            }
            remove(at: index)
        }
        if let slot = freeSlots.popLast() {
            table.set(slot, for: key)
            entries[Int(slot)].fill(key: key, object: object, kind: kind, hasLabel: label != nil, now: now)
        } else {
            table.set(Int32(entries.count), for: key)
            entries.append(
                Entry(
                    key: key,
                    token: WeakWrapper(object: object),
                    count: 1,
                    startedAt: now,
                    kind: kind,
                    hasLabel: label != nil
                )
            )
        }
        entryCount += 1
        if kind.isSwept { sweptEntryCount += 1 }
        if let label { labels[key] = label }
    }

    /// Ends one task of `key`.
    mutating func finishOne(_ key: ObjectIdentifier) -> FinishOutcome {
        guard let found = table.value(for: key) else { return .unknown }
        let index = Int(found)
        if isDead(at: index) {
            remove(at: index)
            return .tokenDead
        }
        if readEntry(at: index, { $0.pointee.count }) == 1 {
            remove(at: index)
        } else {
            entries[index].count -= 1
            activeTaskCount -= 1
        }
        return .finished
    }

    /// Ends every task of `key`; returns how many ended.
    @discardableResult
    mutating func finishAll(_ key: ObjectIdentifier) -> Int {
        guard let found = table.value(for: key) else { return 0 }
        return remove(at: Int(found))
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
        return readEntry(at: Int(found)) { $0.pointee.kind == .group ? $0.pointee.count : 0 }
    }

    // MARK: - Push/pop

    mutating func push(now: TimeInterval) {
        if pushCount == 0 {
            pushStartedAt = now
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

    /// Ends every task.
    mutating func removeAll() {
        entries.removeAll()
        freeSlots.removeAll()
        entryCount = 0
        table.removeAll()
        labels.removeAll()
        activeTaskCount = 0
        sweptEntryCount = 0
        pushCount = 0
    }

    /// Reads the entry at `index` in place. `Array`'s subscript getter copies the whole entry,
    /// and copying its weak reference costs atomic operations on the token's side table; the
    /// trivial fields read through the pointer cost nothing.
    @inline(__always)
    func readEntry<Result>(at index: Int, _ body: (UnsafePointer<Entry>) -> Result) -> Result {
        entries.withUnsafeBufferPointer { body($0.baseAddress! + index) }
    }

    // MARK: - Private

    /// A swept entry whose object is gone (or is running its `deinit`). Safe under the lock:
    /// the weak load yields `nil`, or the caller's own token, which the caller still holds.
    private mutating func isDead(at index: Int) -> Bool {
        readEntry(at: index) { $0.pointee.kind.isSwept } && entries[index].token.load() == nil
    }

    /// Ends the entry at `index` and frees its slot; returns its task count.
    @discardableResult
    mutating func remove(at index: Int) -> Int {
        let (key, count, isSwept, hasLabel) = readEntry(at: index) {
            ($0.pointee.key, $0.pointee.count, $0.pointee.kind.isSwept, $0.pointee.hasLabel)
        }
        activeTaskCount -= count
        entryCount -= 1
        if isSwept { sweptEntryCount -= 1 }
        if hasLabel { labels[key] = nil }
        table.remove(key)
        entries[index].free()
        freeSlots.append(Int32(index))
        return count
    }
}

extension PointerReadTaskRegistry.Entry {
    /// Makes a free slot the entry of a first task begun at `now`.
    mutating func fill(key: ObjectIdentifier, object: AnyObject?, kind: TaskKind, hasLabel: Bool, now: TimeInterval) {
        self.key = key
        token.object = object
        count = 1
        startedAt = now
        self.kind = kind
        self.hasLabel = hasLabel
        isStaleReported = false
    }

    /// Frees the slot; the token is let go at once.
    mutating func free() {
        count = 0
        if kind.isSwept { token.object = nil }
    }
}

extension PointerReadTaskRegistry {
    /// Removes the entries whose objects died, and collects the live objects (to release after
    /// the lock), the candidates for a completion check, and the tasks older than
    /// `staleThreshold` that were not reported yet. O(entries).
    mutating func sweep(now: TimeInterval, staleThreshold: TimeInterval?) -> SweepResult {
        var result = SweepResult()
        result.keptAlive.reserveCapacity(sweptEntryCount)
        var deadIndices: [Int] = []
        let labels = labels
        entries.withUnsafeMutableBufferPointer { entries in
            for index in entries.indices where !entries[index].isFree {
                var liveObject: AnyObject?
                if entries[index].kind.isSwept {
                    guard let object = entries[index].token.load() else {
                        deadIndices.append(index)
                        continue
                    }
                    if entries[index].kind == .completionReportingToken {
                        result.completionCandidates.append((entries[index].key, object))
                    } else {
                        result.keptAlive.append(object)
                    }
                    liveObject = object
                }
                if let staleThreshold, !entries[index].isStaleReported,
                    now - entries[index].startedAt >= staleThreshold
                {
                    entries[index].isStaleReported = true
                    let label = liveObject.map { _ in "token" } ?? labels[entries[index].key] ?? "entry"
                    result.staleTasks.append((entries[index].key, label, now - entries[index].startedAt))
                }
            }
        }
        for index in deadIndices {
            result.endedTaskCount += remove(at: index)
        }
        compactIfSparse()
        if let staleThreshold, pushCount > 0, !isPushStaleReported, now - pushStartedAt >= staleThreshold {
            isPushStaleReported = true
            result.staleTasks.append((nil, ActivityLabel.push, now - pushStartedAt))
        }
        return result
    }

    /// After a sweep: when most slots are free, packs the entries to the front, so that sweeps
    /// and snapshots stay proportional to the live entries.
    private mutating func compactIfSparse() {
        guard freeSlots.count > 64, freeSlots.count > entryCount else { return }
        var packed: [Entry] = []
        packed.reserveCapacity(entryCount)
        for index in entries.indices where !entries[index].isFree {
            table.set(Int32(packed.count), for: entries[index].key)
            packed.append(entries[index])
        }
        entries = packed
        freeSlots.removeAll()
    }
}
