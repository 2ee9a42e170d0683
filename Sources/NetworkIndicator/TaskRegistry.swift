import Foundation

/// Every open task of one manager, as a plain value kept behind the manager's lock.
///
/// Entries are keyed by the identity of the object that owns them (a caller's token, an
/// ``NetworkActivityToken``, a ``NetworkActivityGroup``, or the manager itself for push/pop
/// counting) and carry a task count, so that begin and finish are one hash lookup each and the
/// total is kept up to date instead of being recomputed.
///
/// A caller's token is identified by its `ObjectIdentifier` **and** its weak reference: once the
/// weak reference reads `nil` the entry is dead, whatever object now lives at that address.
struct TaskRegistry {
    enum Kind: UInt8, Sendable {
        /// A caller's object, held weakly; ends when it dies.
        case token
        /// A caller's object that can also report that its work is over (an `Operation`, a
        /// `URLSessionTask`, a ``NetworkActivityCompletionReporting`` type).
        case completionReportingToken
        /// A ``NetworkActivityToken`` of this manager: its `deinit` ends it.
        case opaqueToken
        /// A ``NetworkActivityGroup``: its `deinit` ends it.
        case group
        /// Push/pop counting on the manager.
        case counter

        /// Whether the entry holds a weak reference that the sweep must check.
        var isSwept: Bool { self == .token || self == .completionReportingToken }
    }

    enum Label {
        case text(String)
        case type(any AnyObject.Type)

        var text: String {
            switch self {
            case .text(let text): text
            case .type(let type): String(describing: type)
            }
        }
    }

    struct Entry {
        weak var object: AnyObject?
        var count: Int
        let kind: Kind
        let label: Label
        let startedAt: TimeInterval
        var isStaleReported = false

        /// A swept entry whose object is gone (or is running its `deinit`).
        var isDead: Bool { kind.isSwept && object == nil }
    }

    enum FinishOutcome: Equatable {
        case finished
        /// There was no open task for the key.
        case unknown
        /// The key's entry belonged to an object that is already dead; its tasks ended.
        case tokenDead
    }

    /// What a sweep found; the strong references keep objects alive until the caller has
    /// released the lock, so that no `deinit` runs while it is held.
    struct SweepResult {
        var keptAlive: [AnyObject] = []
        var completionCandidates: [(key: ObjectIdentifier, object: any NetworkActivityCompletionReporting)] = []
        var staleTasks: [(label: String, age: TimeInterval)] = []
        var endedTaskCount = 0
    }

    private(set) var entries: [ObjectIdentifier: Entry] = [:]
    private(set) var activeTaskCount = 0
    /// Entries that hold a weak reference (the sweep runs only while this is not zero).
    private(set) var sweptEntryCount = 0

    /// Begins one task for `key`, creating its entry if needed. A dead entry at the same key
    /// belongs to an earlier object whose memory was reused: its tasks end and a new entry
    /// replaces it.
    mutating func begin(
        _ key: ObjectIdentifier,
        object: AnyObject?,
        kind: Kind,
        label: @autoclosure () -> Label,
        now: @autoclosure () -> TimeInterval
    ) {
        activeTaskCount += 1
        if let index = entries.index(forKey: key) {
            if !entries.values[index].isDead {
                entries.values[index].count += 1
                return
            }
            remove(at: index)
        }
        if kind.isSwept { sweptEntryCount += 1 }
        entries[key] = Entry(object: object, count: 1, kind: kind, label: label(), startedAt: now())
    }

    /// Ends one task of `key`.
    mutating func finishOne(_ key: ObjectIdentifier) -> FinishOutcome {
        guard let index = entries.index(forKey: key) else { return .unknown }
        if entries.values[index].isDead {
            remove(at: index)
            return .tokenDead
        }
        activeTaskCount -= 1
        entries.values[index].count -= 1
        if entries.values[index].count == 0 {
            if entries.values[index].kind.isSwept { sweptEntryCount -= 1 }
            entries.remove(at: index)
        }
        return .finished
    }

    /// Ends every task of `key`; returns how many ended.
    @discardableResult
    mutating func finishAll(_ key: ObjectIdentifier) -> Int {
        guard let index = entries.index(forKey: key) else { return 0 }
        return remove(at: index)
    }

    /// Ends every task of `key` if its entry still belongs to `object`.
    mutating func finishAll(_ key: ObjectIdentifier, ifStillOwnedBy object: AnyObject) {
        guard let index = entries.index(forKey: key), entries.values[index].object === object else {
            return
        }
        remove(at: index)
    }

    /// Ends every task.
    mutating func removeAll() {
        entries.removeAll()
        activeTaskCount = 0
        sweptEntryCount = 0
    }

    /// The number of open tasks of `key`.
    func count(for key: ObjectIdentifier) -> Int {
        entries[key]?.count ?? 0
    }

    /// Removes the entries whose objects died, and collects the live objects that can report
    /// completion and the tasks older than `staleThreshold` that were not reported yet.
    mutating func sweep(now: TimeInterval, staleThreshold: TimeInterval?) -> SweepResult {
        var result = SweepResult()
        var deadKeys: [ObjectIdentifier] = []
        if sweptEntryCount > 0 {
            result.keptAlive.reserveCapacity(sweptEntryCount)
        }
        var index = entries.startIndex
        while index != entries.endIndex {
            defer { entries.formIndex(after: &index) }
            let kind = entries.values[index].kind
            if kind.isSwept {
                guard let object = entries.values[index].object else {
                    deadKeys.append(entries.keys[index])
                    continue
                }
                if kind == .completionReportingToken,
                    let reporting = object as? any NetworkActivityCompletionReporting
                {
                    result.completionCandidates.append((entries.keys[index], reporting))
                } else {
                    result.keptAlive.append(object)
                }
            }
            if let staleThreshold, !entries.values[index].isStaleReported {
                let age = now - entries.values[index].startedAt
                if age >= staleThreshold {
                    entries.values[index].isStaleReported = true
                    result.staleTasks.append((entries.values[index].label.text, age))
                }
            }
        }
        for key in deadKeys {
            result.endedTaskCount += finishAll(key)
        }
        return result
    }

    @discardableResult
    private mutating func remove(at index: Dictionary<ObjectIdentifier, Entry>.Index) -> Int {
        let entry = entries.remove(at: index).value
        activeTaskCount -= entry.count
        if entry.kind.isSwept { sweptEntryCount -= 1 }
        return entry.count
    }
}
