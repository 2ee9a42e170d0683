import Foundation

/// The two questions the progress roll-up (`Progress/`) asks the engine, kept in this one file
/// so that the roll-up depends on nothing else of it. Both are reads under the driver's lock;
/// the engine never calls the roll-up, and its begin and finish paths do nothing for it beyond
/// counting busy periods (``State/busyPeriod``, one increment where the count leaves zero).
extension IndicatorDriver {
    /// Whether `key` has an open task in this manager (and the manager is not gone).
    func hasOpenTask(_ key: ObjectIdentifier) -> Bool {
        withState { !$0.isShutDown && $0.registry.table.value(for: key) != nil }
    }

    /// The open tasks of the manager and its descendants, and how many times that count has
    /// left zero: a new busy period tells the roll-up that the scope was idle in between, even
    /// if nobody read it while it was.
    var progressActivity: ProgressActivity {
        withState { ProgressActivity(count: $0.activeTaskCount, busyPeriod: $0.busyPeriod) }
    }
}

/// A manager's count and its current busy period, as the progress roll-up sees them.
struct ProgressActivity: Equatable {
    var count: Int
    var busyPeriod: UInt64
}
