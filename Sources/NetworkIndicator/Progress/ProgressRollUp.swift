import Foundation

/// One manager's determinate progress: the entries of the tasks begun with a `Progress` in the
/// manager or any of its descendants, rolled up when read (``fractionCompleted()``), and the
/// listeners polled while such tasks exist (`ProgressRollUp+Polling.swift`).
///
/// A side structure beside the engine, with a lock of its own: the engine never calls it, so a
/// task without progress pays nothing, and a progress update costs nothing until someone reads.
/// The lock is never held while another is taken (the drivers are asked, and each `Progress`
/// read, before or after it), and nobody's code runs under it: listeners are told outside.
///
/// ## The rules
///
/// - Units weigh as bytes: the fraction is the sum of completed units over the sum of total
///   units (each task's completed count clamped to its total).
/// - A task whose total is unknown (`totalUnitCount <= 0`) neither adds nor dilutes.
/// - A task that ended counts as complete (its last total) until the scope is idle again.
/// - An idle scope, or one without a determinate task (running or ended), has no fraction.
final class ProgressRollUp: Sendable {
    /// The manager's driver: its count and busy period.
    let driver: IndicatorDriver
    let state = LockedState(State())
    /// The closures and outputs told on the main actor.
    let delivery = ProgressDelivery()

    init(driver: IndicatorDriver) {
        self.driver = driver
    }

    deinit {
        let (timer, streams) = state.withLock { state in
            defer { state.streams.removeAll() }
            return (state.timer, state.streams.values.map(\.continuation))
        }
        timer?.cancel()
        for stream in streams { stream.finish() }
    }

    struct State: Sendable {
        /// The tracked entries, each tagged with the busy period it was added in.
        var entries: [Tagged] = []
        /// The roll-up's own period: bumped whenever the scope is seen idle, or seen in a new
        /// busy period of the driver's.
        var period: UInt64 = 0
        var lastBusyPeriod: UInt64 = 0
        /// The totals of the entries that ended in this period: complete until it ends.
        var finishedUnits: Double = 0
        /// Entries are compacted (ended ones folded) when their number reaches this, so that a
        /// scope that is never idle and never read keeps a bounded list.
        var compactionThreshold = ProgressRollUp.minimumCompactionThreshold
        // Polling (see ProgressRollUp+Polling.swift).
        var isPolling = false
        var timer: (any NetworkIndicatorCancellable)?
        var hasMainActorListeners = false
        var streams: [UInt64: ProgressStream] = [:]
        var nextStreamID: UInt64 = 0

        /// Starts a new period if the scope is idle, or was idle since it was last seen (its busy
        /// period moved on): what ended before no longer counts. A reading older than the last
        /// one seen (taken on another thread before a later begin) is ignored.
        mutating func observe(_ activity: ProgressActivity) {
            let isNewBusyPeriod = activity.busyPeriod > lastBusyPeriod
            let isIdleNow = activity.count == 0 && activity.busyPeriod == lastBusyPeriod
            guard isNewBusyPeriod || isIdleNow else { return }
            period &+= 1
            finishedUnits = 0
            lastBusyPeriod = activity.busyPeriod
        }
    }

    struct Tagged: Sendable {
        let entry: ProgressEntry
        let period: UInt64
    }

    static let minimumCompactionThreshold = 64

    /// Adds an entry begun in this manager or a descendant, just after the begin.
    func add(_ entry: ProgressEntry) {
        let activity = driver.progressActivity
        let (startsPolling, compacts) = state.withLock { state in
            state.observe(activity)
            state.entries.append(Tagged(entry: entry, period: state.period))
            let startsPolling = state.wantsPolling && !state.isPolling
            if startsPolling { state.isPolling = true }
            return (startsPolling, state.entries.count >= state.compactionThreshold)
        }
        if compacts { _ = fractionCompleted() }
        if startsPolling { startPolling() }
    }

    /// The rolled-up fraction now, in 0...1, or `nil`; folds ended entries as it goes.
    func fractionCompleted() -> Double? {
        let activity = driver.progressActivity
        let entries = state.withLock { state in
            state.observe(activity)
            return state.entries
        }
        // Outside the lock: a `Progress` subclass may run code of its own in its getters.
        let samples = entries.map(Sample.init)
        return state.withLock { state in
            state.fold(samples)
            guard activity.count > 0 else { return nil }
            return state.fraction(live: samples)
        }
    }

    /// One entry as read outside the lock.
    struct Sample {
        let id: ObjectIdentifier
        let period: UInt64
        let hasEnded: Bool
        let total: Int64
        let completed: Int64

        init(_ tagged: Tagged) {
            id = ObjectIdentifier(tagged.entry)
            period = tagged.period
            // Whether it ended first: a live reading after it is at least as recent.
            hasEnded = tagged.entry.hasEnded
            total = tagged.entry.progress.totalUnitCount
            completed = tagged.entry.progress.completedUnitCount
        }

        var isDeterminate: Bool { total > 0 }
        /// Completed units, clamped to 0...total, so that one task cannot make up for another.
        var clampedCompleted: Int64 { min(max(completed, 0), total) }
    }
}

extension ProgressRollUp.State {
    /// Removes the entries that `samples` found ended, and those of an earlier period; the ended
    /// ones of the current period count as complete from now on.
    fileprivate mutating func fold(_ samples: [ProgressRollUp.Sample]) {
        // An entry of an earlier period ended when the scope was idle, even if its token has an
        // open task again (a group or a caller's token reused): that task is not its own.
        let ended = samples.filter { $0.hasEnded || $0.period != period }
        // Before the early return: with nothing ended, the next pass must still wait until the
        // list doubles, or every begin past the threshold would read every entry (O(n) a begin).
        defer { compactionThreshold = max(ProgressRollUp.minimumCompactionThreshold, entries.count * 2) }
        guard !ended.isEmpty else { return }
        let endedIDs = Set(ended.map(\.id))
        var removed = Set<ObjectIdentifier>()
        entries.removeAll { tagged in
            let id = ObjectIdentifier(tagged.entry)
            guard endedIDs.contains(id) else { return false }
            removed.insert(id)
            return true
        }
        // Only what this call removed: another reader may have folded the same entry already.
        for sample in ended where removed.contains(sample.id) && sample.period == period && sample.isDeterminate {
            finishedUnits += Double(sample.total)
        }
    }

    /// Bytes-weighted: finished totals plus the live determinate entries of this period still
    /// listed (one that another reader folded meanwhile is already in ``finishedUnits``).
    fileprivate func fraction(live samples: [ProgressRollUp.Sample]) -> Double? {
        let listed = Set(entries.map { ObjectIdentifier($0.entry) })
        var completed = finishedUnits
        var total = finishedUnits
        for sample in samples
        where !sample.hasEnded && sample.period == period && sample.isDeterminate && listed.contains(sample.id) {
            completed += Double(sample.clampedCompleted)
            total += Double(sample.total)
        }
        guard total > 0 else { return nil }
        return min(max(completed / total, 0), 1)
    }
}
