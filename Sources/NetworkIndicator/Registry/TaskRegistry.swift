import Foundation

/// Every open task of one manager, as a plain value behind the tree's lock. Entries live in the
/// slots of one array, found through an ``IdentityTable`` keyed by their owner's identity (a
/// caller's token, a group's key, a helper's load) or pinned to an opaque token. A finished entry
/// frees its slot for the next; entries move only when a sweep packs a sparse array, never a
/// pinned slot. Push/pop is a plain counter. A caller's token is its `ObjectIdentifier` **and**
/// its ``WeakWrapper``: once the weak reference reads `nil` the entry is dead, whatever object now
/// lives at that address. Tasks "finish"; a slot is "freed" back to the free list.
struct TaskRegistry {
    // Changed only by the registry's own methods: `private(set)` where no extension writes it.
    /// The slots, free ones included: read only those that are not ``Entry/isIdle``.
    var slots: [Entry] = []
    /// Head of the free list (``Entry/nextFreeSlot``), `-1` when empty (a new entry is appended).
    var firstFreeSlot: Int32 = -1
    var table = IdentityTable()
    var labels = TaskLabels()  // the open tokens' labels, and the last ended ones'
    /// The generation of an appended slot: above that of every slot cut from the array, so that a
    /// stale pair never matches a later token at a re-appended slot.
    private(set) var appendedGeneration: UInt32 = 0
    /// Every open task: the entries' counts plus ``pushCount``.
    var activeTaskCount = 0
    /// Slots not on the free list: each in the table or pinned, never both.
    var entryCount: Int { table.count + pinnedCount }
    /// Slots pinned to opaque tokens; counted when asked (a sweep's compaction, a reset), so that
    /// an opaque token's pin and release keep no count. O(slots).
    var pinnedCount: Int { slots.reduce(0) { $0 + ($1.isPinned ? 1 : 0) } }
    /// Entries that hold a weak reference (the sweep runs only while this is not zero).
    private(set) var sweptEntryCount = 0
    private(set) var pushCount = 0
    private(set) var pushStartedAt: TimeInterval = 0
    /// Where the first push of the open counter was made.
    private(set) var pushSite = CallSite.none
    var isPushStaleReported = false
    /// Tasks a cancel ended, by key, while their object lives: a late finish is absorbed (`TaskRegistry+Cancel.swift`).
    var cancelledTasks: [ObjectIdentifier: EndedTasks] = [:]
    /// Tasks a sweep ended as their token reported completion, by key, while it lives (and until a
    /// sweep finds it begun again): a finish that finds no task is absorbed (`TaskRegistry+Sweep.swift`).
    var completedTasks: [ObjectIdentifier: EndedTasks] = [:]
    /// Work that counts no task but that a cancel still reaches (a group's operation that stopped
    /// counting; work a reset ended, until a finish finds no task of it): a
    /// ``NetworkActivityCancellable`` held weakly by key until a cancel takes it or it dies, and the size at which a stop looks it over for dead
    /// work: twice what was live at the last look, at least 16 (`TaskRegistry+Cancel.swift`).
    var uncountedWork: [ObjectIdentifier: WeakWrapper] = [:]
    var uncountedWorkLookAt = 16
    /// While an output listens for task events (`NetworkActivityTaskEventOutput`): where each
    /// entry that begins or ends is logged, the tree's one buffer (`TaskRegistry+Events.swift`);
    /// `nil` otherwise, so that nothing is collected.
    var eventLog: TaskEventBuffer?
    /// The node the registry is, which names its logged events (set with ``eventLog``).
    var eventNode = IndicatorTree.rootID
    /// The type name of the last unlabelled token logged (`TaskRegistry+Events.swift`).
    var loggedTypeName: (type: ObjectIdentifier, name: String)?

    // MARK: - Tokens and groups

    /// Begins one task for `key`, creating its entry (begun at `now`) if needed. A dead entry at the
    /// same key (an earlier object's reused address) ends, and a new entry replaces it.
    mutating func begin(
        _ key: ObjectIdentifier,
        object: AnyObject?,
        kind: TaskKind,
        label: String?,
        site: CallSite = .none,
        now: @autoclosure () -> TimeInterval
    ) {
        activeTaskCount += 1
        // The slot a new entry takes; the table's lookup stores it for `key` if it is new.
        var slot = firstFreeSlot >= 0 ? firstFreeSlot : Int32(slots.count)
        if let found = table.value(for: key, insertingIfAbsent: slot) {
            let index = Int(found)
            if !isDead(at: index) {
                slots[index].count += 1  // in place, through the array's modify accessor
                return
            }
            finishDeadEntry(at: index, now: now())
            slot = Int32(index)  // the slot just freed, now at the head of the free list
            table.set(slot, for: key)
        }
        if Int(slot) < slots.count {
            firstFreeSlot = slots[Int(slot)].nextFreeSlot
        } else {
            slots.append(Entry(generation: appendedGeneration))
        }
        slots[Int(slot)].fill(key: key, object: object, kind: kind, hasLabel: label != nil, site: site, now: now())
        if kind.isSwept { sweptEntryCount += 1 }
        if let label { labels.begin(.key(key), label: label) }
        if eventLog != nil { logBegan(at: Int(slot), object: object) }
    }

    /// Ends one task of the token `reference` names. Not marked for inlining: the optimizer folds
    /// the switch at the explicit pair's call site anyway (callgrind: 1 198 instructions a pair with
    /// or without `@inline(__always)`; Benchmarks/README.md, "One engine").
    mutating func finishOne(_ reference: TaskReference, time: inout EventTime) -> TaskEvent.Outcome {
        switch reference {
        case .key(let key): finishKeyed(key, time: &time)
        case .pinned(let pinned): finishPinned(pinned, time: &time)
        }
    }

    /// The open tasks of the token `reference` names.
    func openTaskCount(_ reference: TaskReference) -> Int {
        switch reference {
        case .key(let key): table.value(for: key).map { slots[Int($0)].count } ?? 0
        case .pinned(let pinned): isPinned(pinned) ? slots[Int(pinned.slot)].count : 0
        }
    }

    /// Ends one task of `key`; a late finish of a task a cancel ended is absorbed first, even if
    /// `key` was begun again since (its new task stays open until its own finish). A finish that
    /// finds no task lets go of the key's held work: if a reset ended its tasks, or it stopped
    /// counting, its work is done now, and no later cancel reaches it (a stale entry's object,
    /// dead at a reused address, had nothing left to cancel). In the finish's own hold, so that
    /// no stop of counting on another thread lands in between and is let go with it.
    mutating func finishKeyed(_ key: ObjectIdentifier, time: inout EventTime) -> TaskEvent.Outcome {
        if !cancelledTasks.isEmpty, Self.absorbLateFinish(key, in: &cancelledTasks) { return .applied }
        guard let position = table.position(of: key) else {
            return (!completedTasks.isEmpty || !uncountedWork.isEmpty) && finishFoundNoTask(key) ? .applied : .stale
        }
        let index = Int(table.value(at: position))
        if isDead(at: index) {
            // Logged while its label is still open: a watcher that missed the begin names it.
            if eventLog != nil { logEnded(at: index, .swept, time: &time) }
            labels.endDead(key)
            finishLoggedEntry(at: index, tablePosition: position)
            return .tokenDead
        }
        if slots[index].count == 1 {
            if eventLog != nil { logEnded(at: index, .finished, time: &time) }
            finishLoggedEntry(at: index, tablePosition: position)
        } else {
            slots[index].count -= 1
            activeTaskCount -= 1
        }
        return .applied
    }

    /// Ends every task of `key` as `ending`: how many.
    @discardableResult
    mutating func finishAll(
        _ key: ObjectIdentifier,
        ending: NetworkActivityTaskEvent.Ending = .finished,
        time: inout EventTime
    ) -> Int {
        guard let position = table.position(of: key) else { return 0 }
        return finishEntry(at: Int(table.value(at: position)), tablePosition: position, ending: ending, time: &time)
    }

    /// The open tasks of the group keyed `key`; an entry of another kind at that address counts as none.
    func groupCount(for key: ObjectIdentifier) -> Int {
        guard let found = table.value(for: key) else { return 0 }
        let index = Int(found)
        return slots[index].kind == .group ? slots[index].count : 0
    }

    // MARK: - Push/pop

    mutating func push(site: CallSite = .none, now: @autoclosure () -> TimeInterval) {
        if pushCount == 0 {
            pushStartedAt = now()
            pushSite = site
            isPushStaleReported = false
        }
        pushCount += 1
        activeTaskCount += 1
        if pushCount == 1, eventLog != nil { logCounter(nil, at: pushStartedAt) }
    }

    /// Ends one pushed task; `false` (and no change) if none is open.
    mutating func pop(time: inout EventTime) -> Bool {
        guard pushCount > 0 else { return false }
        if pushCount == 1, eventLog != nil { logCounter(.finished, at: time.now()) }
        pushCount -= 1
        activeTaskCount -= 1
        return true
    }

    // MARK: - Everything

    /// Ends every task, not its work (``keepCancellableWorkUncounted(keepingAlive:)``). Pinned
    /// slots stay pinned, with no task. The tokens' labels are remembered, as a finish would.
    mutating func finishEverything(time: inout EventTime, keepingAlive keptAlive: inout [AnyObject]) {
        if eventLog != nil { logEverythingEnded(.reset, at: time.now()) }
        keepCancellableWorkUncounted(keepingAlive: &keptAlive)
        endLabelsForReset()
        firstFreeSlot = -1
        if !slots.contains(where: \.isPinned) {
            forgetGenerations(ofSlotsFrom: 0)
            slots.removeAll()
        } else {
            for index in slots.indices.reversed() {
                if slots[index].isPinned {
                    slots[index].count = 0  // its label was ended above
                } else {
                    slots[index].free(next: firstFreeSlot)
                    firstFreeSlot = Int32(index)
                }
            }
        }
        table.removeAll()
        cancelledTasks.removeAll()
        completedTasks.removeAll()
        activeTaskCount = 0
        sweptEntryCount = 0
        pushCount = 0
    }

    /// Before the slots from `start` on are cut: later appended slots start above their generations.
    mutating func forgetGenerations(ofSlotsFrom start: Int) {
        for index in start..<slots.count {
            appendedGeneration = max(appendedGeneration, slots[index].generation)
        }
    }

    // MARK: - Private

    /// How the labels name the entry at `index`.
    func reference(at index: Int) -> TaskReference {
        slots[index].isPinned
            ? .pinned(PinnedSlot(slot: Int32(index), generation: slots[index].generation)) : .key(slots[index].key)
    }

    /// A swept entry whose object is gone (or in its `deinit`). Safe under the lock: the weak load
    /// yields `nil`, or the caller's own token, which the caller still holds.
    private mutating func isDead(at index: Int) -> Bool {
        slots[index].kind.isSwept && slots[index].token.load() == nil
    }

    /// Ends the entry at `index` (`ending`, at `time`, for the task events) and frees its slot;
    /// returns its task count. `tablePosition`: where its key lies in the table, if the caller
    /// just looked it up.
    @discardableResult
    mutating func finishEntry(
        at index: Int,
        tablePosition: Int? = nil,
        ending: NetworkActivityTaskEvent.Ending,
        time: inout EventTime
    ) -> Int {
        if eventLog != nil { logEnded(at: index, ending, time: &time) }
        return finishLoggedEntry(at: index, tablePosition: tablePosition)
    }

    /// ``finishEntry(at:tablePosition:ending:time:)`` once the end is logged: the explicit
    /// pair's finish calls it after its own log check, so that neither the ending nor the time
    /// crosses the call (callgrind, an explicit pair: 1 239 instructions with both passed, 1 236
    /// split, 1 230 with the time read in `logEnded`, out of line; Benchmarks/README.md).
    @discardableResult
    @inline(__always)  // pays: every explicit finish (Benchmarks/README.md, "The token passed as it is")
    mutating func finishLoggedEntry(at index: Int, tablePosition: Int?) -> Int {
        let key = slots[index].key
        let count = slots[index].count
        let isSwept = slots[index].kind.isSwept
        let hasLabel = slots[index].hasLabel
        activeTaskCount -= count
        if isSwept { sweptEntryCount -= 1 }
        // A dead token's label could never be read: it would only push a live one's out.
        if hasLabel {
            labels.end(.key(key), token: slots[index].token, remembering: isSwept && !isDead(at: index))
        } else if labels.mayRemember(.key(key)) {
            labels.forget(.key(key))
        }
        if let tablePosition { table.remove(at: tablePosition) } else { table.remove(key) }
        slots[index].free(next: firstFreeSlot)
        firstFreeSlot = Int32(index)
        return count
    }
}

extension TaskRegistry {
    /// One slot: an entry while it has tasks or is pinned (``isInUse``), otherwise free. A new
    /// slot, `Entry(generation:)`, is blank: free, no token, no task.
    struct Entry {
        /// The owner's identity; meaningless in a pinned slot or a blank one.
        var key = ObjectIdentifier(TaskRegistry.Entry.self)
        var token = WeakWrapper()
        var count = 0
        var startedAt: TimeInterval = 0
        /// Where the entry's first task began in the caller's code.
        var site = CallSite.none
        var kind = TaskKind.group
        /// The label lives in ``TaskRegistry/labels``.
        var hasLabel = false
        var isStaleReported = false
        /// Pinned to an opaque token until the token is released, even with no task.
        var isPinned = false
        /// In a free slot, the next free slot (`-1`: none), from ``TaskRegistry/firstFreeSlot``.
        var nextFreeSlot: Int32 = -1
        /// The slot's generation, whatever it holds: an opaque token carries it, and its release
        /// bumps it, so that the token's pair goes stale.
        var generation: UInt32
        /// A sweep asked its token whether it is done and has not ended it yet (a fill since is a
        /// new run). Last, in the stride's padding: beside the other flags, it moved two fields
        /// (+4 instructions an opaque pair, callgrind).
        var isAskedForCompletion = false

        /// No open task (a free slot, or a pinned one whose tasks ended).
        var isIdle: Bool { count == 0 }
        /// Holds an entry: it has tasks, or it is pinned to its opaque token.
        var isInUse: Bool { count > 0 || isPinned }
    }
}

extension TaskRegistry.Entry {
    /// Makes a free slot the entry of a first task begun at `now`.
    mutating func fill(
        key: ObjectIdentifier,
        object: AnyObject?,
        kind: TaskKind,
        hasLabel: Bool,
        site: CallSite,
        now: TimeInterval
    ) {
        self.key = key
        // A free slot's weak reference is `nil` already (see `free`).
        if let object { token.object = object }
        isAskedForCompletion = false  // only a keyed entry is asked (a pinned one never is)
        fill(kind: kind, hasLabel: hasLabel, site: site, now: now)
    }

    /// Makes a free slot (or, `isPinned`, a pinned one without a task) the entry of a first task
    /// begun at `now`, leaving its key and weak reference untouched: an opaque token's, or the
    /// rest of a keyed entry's fill.
    mutating func fill(kind: TaskKind, hasLabel: Bool, site: CallSite, now: TimeInterval, isPinned: Bool = false) {
        count = 1
        startedAt = now
        self.site = site
        self.kind = kind
        self.hasLabel = hasLabel
        isStaleReported = false
        if isPinned { self.isPinned = true }
    }

    /// Frees the slot, pushing it on the free list before `next`; lets the token go at once.
    mutating func free(next: Int32) {
        count = 0
        nextFreeSlot = next
        if kind.holdsObject { token.object = nil }
    }
}

/// Holds a caller's token without keeping it alive: once ``object`` reads `nil` the token is gone, whatever object
/// later lives at its address. Under the lock only. ``load()`` is `mutating` so that it reads the weak reference in
/// place in the registry's array, not through a copy (Benchmarks/README.md, "Unsafe and hand-written constructs").
struct WeakWrapper {
    weak var object: AnyObject?

    mutating func load() -> AnyObject? {
        object
    }
}

/// How a task was begun, which decides how it ends.
enum TaskKind: UInt8, Sendable {
    /// A caller's object, held weakly; ends when it dies.
    case token
    /// A caller's object that can report that its work is over (``NetworkActivityCompletionReporting``).
    case completionReportingToken
    /// A ``NetworkActivityToken`` of this manager: its `deinit` ends it.
    case opaqueToken
    /// A ``NetworkActivityGroup``, ended by its `deinit`; held weakly so a cancel reaches its handler.
    case group
    /// An object of the package's, held weakly: a load of the async `URLSession` helpers (ends when
    /// the call returns or throws) and a tracked sequence's iteration (when its loop ends or its
    /// iterator goes), both within a cancel's reach; a scoped body, `withNetworkActivity` or a
    /// SwiftUI refresh or task (when it returns; never cancelled: the body is the caller's code).
    case load, iteration, body

    /// Whether the entry holds a weak reference that the sweep must check (a `switch`: it inlines).
    var isSwept: Bool {
        switch self {
        case .token, .completionReportingToken: true
        case .opaqueToken, .group, .load, .iteration, .body: false
        }
    }

    /// Whether the entry holds a weak reference (cleared when its slot is freed).
    var holdsObject: Bool { self != .opaqueToken }
}

/// Decides the kind of a caller's token, caching the answer for the last token type (apps use one
/// or two, and a conformance check costs more than the rest of a begin). Under the lock.
struct TokenClassifier {
    private var lastType: ObjectIdentifier?
    private var lastTypeReportsCompletion = false

    @inline(__always)  // pays: every explicit begin, a scope's too (Benchmarks/README.md, "Checks kept inline")
    mutating func kind(of token: AnyObject) -> TaskKind {
        let type = ObjectIdentifier(Swift.type(of: token))
        if type != lastType { learn(type, from: token) }
        return lastTypeReportsCompletion ? .completionReportingToken : .token
    }

    /// The conformance check, when the token type changes, out of ``kind(of:)`` so that it inlines.
    @inline(never)
    private mutating func learn(_ type: ObjectIdentifier, from token: AnyObject) {
        lastType = type
        lastTypeReportsCompletion = token is any NetworkActivityCompletionReporting
    }
}
