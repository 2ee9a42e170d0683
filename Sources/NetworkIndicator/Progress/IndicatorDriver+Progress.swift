import Foundation

/// The two questions the progress roll-up asks the engine, kept in this one file so that the
/// roll-up depends on nothing else of the engine. Both take the driver's lock through
/// ``IndicatorDriver/withState(_:)``; neither changes anything.
extension IndicatorDriver {
    /// Whether `key` has an open task in this manager (and the manager is not gone).
    func hasOpenTask(_ key: ObjectIdentifier) -> Bool {
        withState { !$0.isShutDown && $0.registry.table.value(for: key) != nil }
    }

    /// The open tasks of the manager and its descendants, and when that count last left zero:
    /// a change of ``ProgressActivity/since`` tells the roll-up that the scope was idle in
    /// between, even if no fraction was read while it was.
    var progressActivity: ProgressActivity {
        let (count, since) = activity
        return ProgressActivity(count: count, since: since)
    }
}

/// A manager's count and the start of its current busy period, as the roll-up sees them.
struct ProgressActivity: Equatable {
    var count: Int
    var since: TimeInterval
}
