public import Foundation

/// What a manager is tracking at one moment, for debugging: returned by
/// ``NetworkIndicatorManager/activitySnapshot()``.
public struct NetworkActivitySnapshot: Sendable, CustomStringConvertible {
    /// How a task was begun.
    public enum Kind: String, Sendable, Equatable {
        /// ``NetworkIndicatorManager/beganNetworkTask(withToken:label:progress:weight:)``: held weakly, swept.
        case weakToken
        /// ``NetworkIndicatorManager/beganNetworkTask(label:progress:weight:)`` (or scoped activity): ends with
        /// its ``NetworkActivityToken``.
        case opaqueToken
        /// A ``NetworkActivityGroup``'s operations.
        case group
        /// ``NetworkIndicatorManager/pushNetworkActivity()`` counting.
        case counter
        /// A child manager (``NetworkIndicatorManager/init(parent:label:)``): all of its tasks and
        /// its descendants', as one record.
        case childManager
    }

    /// The open tasks of one token, group or counter.
    public struct Activity: Sendable, Equatable, CustomStringConvertible {
        /// The label given at the first begin, or the token's type name.
        public let label: String
        /// How the tasks were begun.
        public let kind: Kind
        /// How many tasks are open under this token, group or counter.
        public let taskCount: Int
        /// When the first of them began, in the scheduler's time (seconds).
        let startedAt: TimeInterval
        /// Seconds since the task began, when the snapshot was taken.
        public let age: TimeInterval
        /// For weak tokens: `false` if the token is already deallocated and waits for the sweep.
        public let isTokenAlive: Bool

        /// One line: label, kind, count and age.
        public var description: String {
            let age = (age * 10).rounded() / 10
            return "\(label) [\(kind.rawValue)] ×\(taskCount), \(age) s\(isTokenAlive ? "" : " (token deallocated)")"
        }
    }

    /// Every entry, oldest first.
    public let activities: [Activity]
    /// The manager's ``NetworkIndicatorManager/activeTaskCount`` at the same moment (its child
    /// managers' tasks included).
    public let activeTaskCount: Int
    /// When the snapshot was taken, in the scheduler's time.
    let takenAt: TimeInterval

    /// A multi-line listing, one activity per line.
    public var description: String {
        (["\(activeTaskCount) active task(s)"] + activities.map { "  \($0)" }).joined(separator: "\n")
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
        let (records, count) = driver.snapshot(keepingAlive: &keptAlive)
        keptAlive.removeAll()
        let activities = records.map { record in
            NetworkActivitySnapshot.Activity(
                label: record.label,
                kind: record.kind,
                taskCount: record.taskCount,
                startedAt: record.startedAt,
                age: max(0, now - record.startedAt),
                isTokenAlive: record.isTokenAlive
            )
        }
        return NetworkActivitySnapshot(
            activities: activities.sorted { $0.startedAt < $1.startedAt },
            activeTaskCount: count,
            takenAt: now
        )
    }
}

extension TaskRegistry {
    /// One entry as the snapshot shows it.
    struct ActivityRecord {
        let label: String
        let kind: NetworkActivitySnapshot.Kind
        let taskCount: Int
        let startedAt: TimeInterval
        let isTokenAlive: Bool
    }

    /// Every entry (and the push counter) as the snapshot shows it. The live objects whose
    /// type names the default labels are appended to `keptAlive`, to be released after the lock.
    func records(keepingAlive keptAlive: inout [AnyObject]) -> [ActivityRecord] {
        var records: [ActivityRecord] = []
        records.reserveCapacity(entryCount + 1)
        for index in slots.indices where !slots[index].isIdle {
            let object = slots[index].kind.isSwept ? slots[index].token.object : nil
            if let object { keptAlive.append(object) }
            records.append(
                ActivityRecord(
                    label: ActivityLabel.of(slots[index], label: label(at: index), object: object),
                    kind: NetworkActivitySnapshot.Kind(slots[index].kind),
                    taskCount: slots[index].count,
                    startedAt: slots[index].startedAt,
                    isTokenAlive: !slots[index].kind.isSwept || object != nil
                )
            )
        }
        if pushCount > 0 {
            records.append(
                ActivityRecord(
                    label: ActivityLabel.push,
                    kind: .counter,
                    taskCount: pushCount,
                    startedAt: pushStartedAt,
                    isTokenAlive: true
                )
            )
        }
        return records
    }
}

extension NetworkActivitySnapshot.Kind {
    init(_ kind: TaskKind) {
        switch kind {
        case .token, .completionReportingToken: self = .weakToken
        case .opaqueToken, .load: self = .opaqueToken
        case .group: self = .group
        }
    }
}
