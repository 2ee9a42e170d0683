import Foundation

/// Every open task of one manager, as a plain value kept behind the manager's lock: entries,
/// counts and the sweep, nothing else.
///
/// Entries live in the slots of a contiguous array, found through an ``IdentityTable`` keyed by
/// the identity of the object that owns them (a caller's token, a ``NetworkActivityToken``, a
/// ``NetworkActivityGroup``'s key). A begin that opens an entry looks its key up and inserts
/// it; a begin on an open entry looks it up and counts up in place; a finish looks it up and
/// counts down in place, or, at its last task, removes the key. An entry never moves: a
/// finished one frees its slot (count 0) for the next new entry, because moving an entry that
/// holds a weak reference costs runtime calls that copying plain data does not. The total is
/// kept, never recomputed. Push/pop counting is a plain counter beside the entries.
///
/// A caller's token is identified by its `ObjectIdentifier` **and** its ``WeakWrapper``: once
/// the weak reference reads `nil` the entry is dead, whatever object now lives at that address.
struct TaskRegistry {
    /// One slot: an entry while ``count`` is positive, free when it is 0.
    struct Entry {
        var key: ObjectIdentifier
        var token: WeakWrapper
        var count: Int
        var startedAt: TimeInterval
        var kind: TaskKind
        /// The label lives in ``TaskRegistry/labels`` (only labelled entries pay for one).
        var hasLabel: Bool
        var isStaleReported = false
        /// In a free slot, the next free slot (`-1`: none): the free slots form a list threaded
        /// through the array, headed by ``TaskRegistry/firstFreeSlot``, so that taking and
        /// returning a slot touch no second array. Fits in the entry's padding (40 bytes either
        /// way).
        var nextFreeSlot: Int32 = -1

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
    }

    /// The slots, free ones included: read only those that are not ``Entry/isFree``.
    var entries: [Entry] = []
    /// The free slot that the next new entry takes (`-1`: none; the entry is appended), the head
    /// of the list of free slots (``Entry/nextFreeSlot``).
    var firstFreeSlot: Int32 = -1
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
            entries[Int(slot)].fill(key: key, object: object, kind: kind, hasLabel: label != nil, now: now())
        } else {
            entries.append(
                Entry(
                    key: key,
                    token: WeakWrapper(object: object),
                    count: 1,
                    startedAt: now(),
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
        guard let position = table.position(of: key) else { return .unknown }
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

    /// Ends every task.
    mutating func removeAll() {
        entries.removeAll()
        firstFreeSlot = -1
        entryCount = 0
        table.removeAll()
        labels.removeAll()
        activeTaskCount = 0
        sweptEntryCount = 0
        pushCount = 0
    }

    // MARK: - Private

    /// A swept entry whose object is gone (or is running its `deinit`). Safe under the lock:
    /// the weak load yields `nil`, or the caller's own token, which the caller still holds.
    private mutating func isDead(at index: Int) -> Bool {
        entries[index].kind.isSwept && entries[index].token.load() == nil
    }

    /// Ends the entry at `index` and frees its slot; returns its task count. `tablePosition` is
    /// where its key lies in the table, if the caller just looked it up.
    @discardableResult
    mutating func remove(at index: Int, tablePosition: Int? = nil) -> Int {
        let key = entries[index].key
        let count = entries[index].count
        let isSwept = entries[index].kind.isSwept
        let hasLabel = entries[index].hasLabel
        activeTaskCount -= count
        entryCount -= 1
        if isSwept { sweptEntryCount -= 1 }
        if hasLabel { labels[key] = nil }
        if let tablePosition { table.remove(at: tablePosition) } else { table.remove(key) }
        entries[index].free(next: firstFreeSlot)
        firstFreeSlot = Int32(index)
        return count
    }
}

extension TaskRegistry.Entry {
    /// Makes a free slot the entry of a first task begun at `now`.
    mutating func fill(key: ObjectIdentifier, object: AnyObject?, kind: TaskKind, hasLabel: Bool, now: TimeInterval) {
        self.key = key
        // A free slot's weak reference is already `nil` (`free()` clears a swept entry's; other
        // kinds never store one), so a task without an object skips the runtime's weak store.
        if let object { token.object = object }
        count = 1
        startedAt = now
        self.kind = kind
        self.hasLabel = hasLabel
        isStaleReported = false
    }

    /// Frees the slot, putting it at the head of the free list before `next`; the token is let
    /// go at once.
    mutating func free(next: Int32) {
        count = 0
        nextFreeSlot = next
        if kind.isSwept { token.object = nil }
    }
}

/// Holds a caller's token without keeping it alive: the weak wrapper of the design card.
///
/// Once ``object`` reads `nil` the token is gone, whatever object the runtime later puts at the
/// same address; this is why an entry is identified by its key *and* its wrapper.
///
/// ``load()`` is a `mutating` read, kept because it pays: it reads the weak reference where it
/// lies in the registry's array (reached through `inout`, the array's modify accessor), where a
/// plain read of `entries[index].token.object` goes through the array's getter, which copies the
/// entry's weak reference (`swift_weakCopyInit`) and destroys the copy: two atomic operations on
/// the token's side table. Nothing unsafe: it is an ordinary `mutating` method that changes
/// nothing, called only under the manager's lock. The measured gain is in Benchmarks/README.md
/// ("Unsafe and hand-written constructs").
struct WeakWrapper {
    weak var object: AnyObject?

    /// The token, strongly, or `nil` if it is gone, read in place (see above).
    @inline(__always)
    mutating func load() -> AnyObject? {
        object
    }
}

/// How a task was begun, which decides how it ends.
enum TaskKind: UInt8, Sendable {
    /// A caller's object, held weakly; ends when it dies.
    case token
    /// A caller's object that can also report that its work is over (an `Operation`, a
    /// `URLSessionTask`, a ``NetworkActivityCompletionReporting`` type).
    case completionReportingToken
    /// A ``NetworkActivityToken`` of this manager: its `deinit` ends it.
    case opaqueToken
    /// A ``NetworkActivityGroup``: its `deinit` ends it.
    case group

    /// Whether the entry holds a weak reference that the sweep must check.
    var isSwept: Bool { self == .token || self == .completionReportingToken }
}

/// Decides the kind of a caller's token, remembering the answer for the last token type: apps
/// use one or two token types, and a protocol-conformance check costs more than the rest of a
/// begin. Kept behind the manager's lock.
struct TokenClassifier {
    private var lastType: ObjectIdentifier?
    private var lastTypeReportsCompletion = false

    /// The kind of a task begun with `token`; `isOwnOpaqueToken` when it is a
    /// ``NetworkActivityToken`` of the manager that begins it (its `deinit` reports its end).
    mutating func kind(of token: AnyObject, isOwnOpaqueToken: Bool) -> TaskKind {
        if isOwnOpaqueToken { return .opaqueToken }
        let type = ObjectIdentifier(Swift.type(of: token))
        if type != lastType {
            lastType = type
            lastTypeReportsCompletion = token is any NetworkActivityCompletionReporting
        }
        return lastTypeReportsCompletion ? .completionReportingToken : .token
    }
}
