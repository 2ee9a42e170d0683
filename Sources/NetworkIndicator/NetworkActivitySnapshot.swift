public import Foundation

/// What a manager is tracking at one moment, for debugging: returned by
/// ``NetworkIndicatorManager/activitySnapshot()``. It lists the manager's own tasks and, nested
/// under each scope (child manager) with tasks, that scope's, so that the app's manager answers
/// "what keeps my spinner on?" for every screen:
///
/// ```
/// 5 active task(s)
///   weak token FeedLoader ×1, 6.0 s, began at FeedViewModel.swift:31
///   opaque token SyncService.swift:42 ×1, 6.0 s
///   group uploads ×1, 6.0 s, began at UploadQueue.swift:18
///   push ×1, 6.0 s, began at AppDelegate.swift:22
///   scope Feed ×1, 6.0 s
///     opaque token feed page 2 ×1, 6.0 s, began at FeedViewModel.swift:48
/// ```
public struct NetworkActivitySnapshot: Sendable, CustomStringConvertible {
    /// How a task was begun.
    public enum Kind: String, Sendable, Equatable {
        /// ``NetworkIndicatorManager/beganNetworkTask(withToken:label:progress:weight:file:line:)-(Object,_,_,_,_,_)``: held weakly, swept.
        case weakToken
        /// ``NetworkIndicatorManager/beganNetworkTask(label:progress:weight:file:line:)``: ends
        /// with its ``NetworkActivityToken``. Also the tasks the package holds the object of:
        /// a `withNetworkActivity` body, a load of the async `URLSession` helpers, an iteration
        /// of a tracked sequence (each ends when its call returns or its loop ends; a stale
        /// report says which it is).
        case opaqueToken
        /// A ``NetworkActivityGroup``'s operations.
        case group
        /// ``NetworkIndicatorManager/pushNetworkActivity(file:line:)`` counting.
        case counter
        /// A child manager (``NetworkIndicatorManager/init(parent:label:)``): all of its tasks and
        /// its descendants', as one record, with theirs in ``Activity/activities``.
        case childManager

        /// The kind in words, as ``NetworkActivitySnapshot/description`` prints it.
        var words: String {
            switch self {
            case .weakToken: "weak token"
            case .opaqueToken: "opaque token"
            case .group: "group"
            case .counter: "push"
            case .childManager: "scope"
            }
        }
    }

    /// The open tasks of one token, group or counter.
    public struct Activity: Sendable, Equatable, CustomStringConvertible {
        /// The label given at the first begin since it last had no open task (as ``age`` counts;
        /// a later begin's label is not shown). Without one: a weak token's type name
        /// (`FeedLoader`; "deallocated token" once it is deallocated and waits for the sweep,
        /// which ``callSite`` still places), where an opaque token, a `withNetworkActivity` body
        /// or a tracked sequence began (``callSite``), "NetworkActivityGroup" for a group.
        public let label: String
        /// How the tasks were begun.
        public let kind: Kind
        /// How many tasks are open under this token, group or counter.
        public let taskCount: Int
        /// When the first of them began, in the scheduler's time (seconds).
        let startedAt: TimeInterval
        /// Seconds since the task began, when the snapshot was taken. For a token begun several
        /// times, a group, the push counter or a scope: since it last had no open task (its tasks
        /// have been open without a break since then, though the first of them may have ended),
        /// which is also where ``NetworkActivitySnapshot/activities`` places it.
        public let age: TimeInterval
        /// For weak tokens: `false` if the token is already deallocated and waits for the sweep.
        public let isTokenAlive: Bool
        /// Where the task began in your code, `File.swift:42`: the call that began it (for a
        /// token begun several times, a group or the push counter, the call that began its first
        /// task since it last had no open task, as ``age`` counts, even if that task has ended);
        /// `nil` for a scope. An opaque token, a `withNetworkActivity` body or a tracked sequence
        /// begun without a label is named by it (see ``label``).
        public let callSite: String?
        /// For a scope (``Kind/childManager``): its own tasks and its scopes', oldest first, nested
        /// the same way; empty for every other kind.
        public let activities: [Activity]

        /// One line: kind and label in words ("opaque token sync", "push"), count, age and
        /// where the task began (unless that is its name); a scope's tasks follow on lines of
        /// their own, indented under it.
        public var description: String {
            lines(indent: "").joined(separator: "\n")
        }

        func lines(indent: String) -> [String] {
            let age = (age * 10).rounded() / 10
            let name = kind == .counter ? kind.words : "\(kind.words) \(label)"
            let site = callSite.map { $0 == label ? "" : ", began at \($0)" } ?? ""
            let line = "\(indent)\(name) ×\(taskCount), \(age) s\(site)\(isTokenAlive ? "" : " (token deallocated)")"
            return [line] + activities.flatMap { $0.lines(indent: indent + "  ") }
        }
    }

    /// Every entry, oldest first (by ``Activity/age``). Entries begun at the same instant (on
    /// ``MainQueueScheduler``, within one tick of the system's coarse clock, a few milliseconds)
    /// are in no particular order.
    public let activities: [Activity]
    /// The manager's ``NetworkIndicatorManager/activeTaskCount`` at the same moment (its child
    /// managers' tasks included).
    public let activeTaskCount: Int
    /// When the snapshot was taken, in the scheduler's time.
    let takenAt: TimeInterval

    /// A multi-line listing, one activity per line.
    public var description: String {
        (["\(activeTaskCount) active task(s)"] + activities.flatMap { $0.lines(indent: "  ") }).joined(separator: "\n")
    }
}

extension NetworkIndicatorManager {
    /// Everything the manager tracks now, oldest first. O(tracked tokens); takes the lock once
    /// and calls nothing of yours, so it is safe to call from a debugger or any thread.
    public func activitySnapshot() -> NetworkActivitySnapshot {
        let now = driver.scheduler.now
        // Live tokens name the default labels; they are released after the lock, here.
        var keptAlive: [AnyObject] = []
        // The manager's entries, its children's records and its count, in one hold of the lock.
        let (records, count) = driver.withTree { $0.snapshot(of: driver.node, keepingAlive: &keptAlive) }
        keptAlive.removeAll()
        return NetworkActivitySnapshot(
            activities: NetworkActivitySnapshot.Activity.nested(records, now: now),
            activeTaskCount: count,
            takenAt: now
        )
    }
}

extension NetworkActivitySnapshot.Activity {
    /// The activities of `records`, oldest first, each scope's nested the same way.
    static func nested(_ records: [TaskRegistry.ActivityRecord], now: TimeInterval) -> [Self] {
        records.map { Self($0, now: now) }.sorted { $0.startedAt < $1.startedAt }
    }

    /// The activity of `record`, its scopes' nested, at `now`.
    init(_ record: TaskRegistry.ActivityRecord, now: TimeInterval) {
        self.init(
            label: record.label,
            kind: record.kind,
            taskCount: record.taskCount,
            startedAt: record.startedAt,
            age: max(0, now - record.startedAt),
            isTokenAlive: record.isTokenAlive,
            callSite: record.site.name,
            activities: Self.nested(record.children, now: now)
        )
    }
}

extension TaskRegistry {
    /// One entry as the snapshot shows it.
    struct ActivityRecord {
        var label: String
        let kind: NetworkActivitySnapshot.Kind
        let taskCount: Int
        let startedAt: TimeInterval
        var isTokenAlive: Bool
        var site = CallSite.none
        /// A scope's own records and its scopes'; none for any other kind.
        var children: [ActivityRecord] = []
    }

    /// Every entry (and the push counter) as the snapshot shows it. The live objects whose
    /// type names the default labels are appended to `keptAlive`, to be released after the lock.
    func records(keepingAlive keptAlive: inout [AnyObject]) -> [ActivityRecord] {
        var records: [ActivityRecord] = []
        records.reserveCapacity(entryCount + 1)
        for index in slots.indices where !slots[index].isIdle {
            let object = slots[index].kind.isSwept ? slots[index].token.object : nil
            if let object { keptAlive.append(object) }
            records.append(record(at: index, object: object))
        }
        if pushCount > 0 { records.append(pushRecord) }
        return records
    }

    /// The entry at `index` (in use) as the snapshot shows it; `object` is its live token, if any.
    func record(at index: Int, object: AnyObject?) -> ActivityRecord {
        ActivityRecord(
            label: ActivityLabel.of(slots[index], label: label(at: index), object: object),
            kind: NetworkActivitySnapshot.Kind(slots[index].kind),
            taskCount: slots[index].count,
            startedAt: slots[index].startedAt,
            isTokenAlive: !slots[index].kind.isSwept || object != nil,
            site: slots[index].site
        )
    }

    /// The push counter (with pushes open) as the snapshot shows it.
    var pushRecord: ActivityRecord {
        ActivityRecord(
            label: ActivityLabel.push,
            kind: .counter,
            taskCount: pushCount,
            startedAt: pushStartedAt,
            isTokenAlive: true,
            site: pushSite
        )
    }

}

extension NetworkActivitySnapshot.Kind {
    init(_ kind: TaskKind) {
        switch kind {
        case .token, .completionReportingToken: self = .weakToken
        case .opaqueToken, .load, .iteration, .body: self = .opaqueToken
        case .group: self = .group
        }
    }
}
