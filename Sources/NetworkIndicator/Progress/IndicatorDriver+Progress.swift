import Foundation

/// The two questions the progress roll-up asks the engine, kept in this one file so that the
/// roll-up depends on nothing else of the engine. Both go through the driver's own reading
/// methods (``IndicatorDriver/withRegistry(_:)``, ``IndicatorDriver/activity``); neither changes
/// anything.
extension IndicatorDriver {
    /// Whether `key` has an open task in this manager. A child manager that is gone has emptied
    /// its registry; a root manager that is gone has taken its roll-up (the only one that lists
    /// its entries) with it.
    func hasOpenTask(_ key: ObjectIdentifier) -> Bool {
        withRegistry { $0.table.value(for: key) != nil }
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
