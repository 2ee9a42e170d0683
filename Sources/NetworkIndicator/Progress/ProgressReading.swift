public import Foundation

/// One task's progress as the roll-up reads it at one moment, in the units the task weighs.
///
/// A caller's `Progress` is read as Foundation advises: `fractionCompleted × totalUnitCount`,
/// so that the partial work of its children (explicit or implicit) counts, where its own
/// `completedUnitCount` moves only when a child finishes. The package's own progress objects
/// (``SelfReadingProgress``) answer from counts kept under a lock instead.
struct ProgressReading: Equatable, Sendable {
    /// The units the task weighs; not positive while unknown.
    var total: Double
    /// The units done, in `0...total`.
    var completed: Double
    var isCancelled: Bool
    var isPaused: Bool

    /// Whether the task's size is known, so that it takes part in a batch.
    var isDeterminate: Bool { total > 0 }
    /// Whether all of its units are done.
    var isComplete: Bool { isDeterminate && completed >= total }

    /// Reads `progress`, weighing it `weight` units instead of its own total when given.
    ///
    /// On Linux, swift-corelibs-foundation's `Progress` takes no lock: a caller's progress must
    /// be changed on the thread that reads it (the main queue; see `ShowingProgress.md`).
    init(of progress: Progress, weight: Int64?) {
        if let own = progress as? any SelfReadingProgress {
            self = own.reading
        } else {
            let total = progress.totalUnitCount
            let fraction = total > 0 ? min(max(progress.fractionCompleted, 0), 1) : 0
            self.init(
                total: Double(total),
                completed: fraction * Double(max(total, 0)),
                isCancelled: progress.isCancelled,
                isPaused: progress.isPaused
            )
        }
        if let weight, isDeterminate {
            let fraction = completed / total
            total = Double(max(weight, 0))
            completed = fraction * total
        }
    }

    init(total: Double, completed: Double, isCancelled: Bool = false, isPaused: Bool = false) {
        self.total = total
        self.completed = total > 0 ? min(max(completed, 0), total) : 0
        self.isCancelled = isCancelled
        self.isPaused = isPaused
    }
}

/// A `Progress` of the package's own whose counts live under a lock, so that any thread may
/// read it while another updates it (swift-corelibs-foundation's `Progress` has no lock). Its
/// ``reading`` is what the roll-up uses; nothing else of the `Progress` is read.
protocol SelfReadingProgress: Progress {
    /// The counts now, safe from any thread.
    var reading: ProgressReading { get }
}

/// A discrete `Progress` counted under a lock, for the progress the package makes itself (a
/// tracked sequence's elements): safe to update on one thread while the roll-up reads on
/// another, on Linux too. Its Foundation counts follow, for anyone who reads them on the
/// updating thread.
///
/// `@unchecked Sendable`, restated from `Progress`: the counts it adds sit in a `LockedState`.
@usableFromInline
final class LockedProgress: Progress, SelfReadingProgress, @unchecked Sendable {
    private let counts: LockedState<(total: Int64, completed: Int64)>

    init(totalUnitCount: Int64) {
        counts = LockedState((totalUnitCount, 0))
        super.init(parent: nil, userInfo: nil)
        super.totalUnitCount = totalUnitCount
    }

    /// Adds `units` completed units; from any thread.
    @usableFromInline
    func complete(_ units: Int64) {
        let completed = counts.withLock { counts in
            counts.completed += units
            return counts.completed
        }
        super.completedUnitCount = completed
    }

    var reading: ProgressReading {
        let (total, completed) = counts.withLock { $0 }
        return ProgressReading(total: Double(total), completed: Double(completed))
    }
}
