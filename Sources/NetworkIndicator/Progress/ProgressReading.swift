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
    let isPaused: Bool

    /// Whether the task's size is known, so that it takes part in a batch.
    var isDeterminate: Bool { total > 0 }
    /// Whether all of its units are done.
    var isComplete: Bool { isDeterminate && completed >= total }

    /// Reads `progress`, weighing it `weight` units instead of its own total when given.
    ///
    /// On Linux, swift-corelibs-foundation's `Progress` takes no lock: a caller's plain
    /// progress is read on the main queue only (``ProgressEntry/read()``).
    init(of progress: Progress, weight: Int64?) {
        if let own = progress as? any SelfReadingProgress {
            self = own.reading
        } else {
            let total = progress.totalUnitCount
            self.init(
                total: Double(total),
                completed: progress.fractionCompleted * Double(total),
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

    /// A reading of `completed` of `total` units, whatever their source says: a total that is
    /// not a positive finite number is unknown, and `completed` is brought into `0...total`
    /// (not a number reads as nothing done), so that no value from outside reaches the bar as
    /// NaN, a negative or more than all.
    init(total: Double, completed: Double, isCancelled: Bool = false, isPaused: Bool = false) {
        let isKnown = total > 0 && total.isFinite
        self.total = isKnown ? total : -1
        self.completed = isKnown && completed > 0 ? min(completed, total) : 0
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

/// A `Progress` whose unit counts are kept under a lock, so that one thread may update it while
/// the manager reads it on another, on Linux too.
///
/// ```swift
/// let pages = NetworkActivityProgress(totalUnitCount: 5)
/// let activity = feed.beganNetworkTask(label: "Pages", progress: pages, weight: 40_000)
/// for try await page in stream {   // any thread
///     pages.completedUnitCount += 1
/// }
/// ```
///
/// swift-corelibs-foundation's `Progress` takes no lock, so the manager reads a plain `Progress`
/// on the main queue only, and it must be updated there. This one may be updated, cancelled,
/// paused and resumed anywhere, and ``NetworkIndicatorManager/progressSnapshot()`` read on any
/// thread sees it as it is: the manager reads its counts and those states from the lock, and
/// nothing else of it. Each count is read and
/// written atomically, but `+=` is a read and a write: update it from one thread at a time. It is
/// always discrete (never an implicit child of `Progress.current()`). The package's own progress
/// (tracked sequences, the openapi middleware) is of this kind.
///
/// `@unchecked Sendable`, restated from `Progress`: the counts it adds sit behind a lock.
public final class NetworkActivityProgress: Progress, SelfReadingProgress, @unchecked Sendable {
    private struct Counts {
        var total: Int64
        var completed: Int64
        var isCancelled = false
        var isPaused = false
    }

    private let counts: LockedState<Counts>

    /// A progress of `totalUnitCount` units (not positive while unknown), none completed.
    public init(totalUnitCount: Int64) {
        counts = LockedState(Counts(total: totalUnitCount, completed: 0))
        super.init(parent: nil, userInfo: nil)
        super.totalUnitCount = totalUnitCount
    }

    /// Told when the total becomes known, so that no manager polls this progress meanwhile.
    let sizeSignal = SizeSignal()

    /// The units in all, not positive while unknown; read and written under the lock. Giving
    /// an unknown total a value tells the managers listing the progress at once (they run no
    /// timer to find out).
    override public var totalUnitCount: Int64 {
        get { counts.withLock { $0.total } }
        set {
            let wasKnown = counts.withLock { counts in
                defer { counts.total = newValue }
                return counts.total > 0
            }
            super.totalUnitCount = newValue
            if !wasKnown && newValue > 0 { sizeSignal.sizeBecameKnown() }
        }
    }

    /// The units done; read and written under the lock.
    override public var completedUnitCount: Int64 {
        get { counts.withLock { $0.completed } }
        set {
            counts.withLock { $0.completed = newValue }
            super.completedUnitCount = newValue
        }
    }

    /// Cancels the progress; the manager reads that from the lock too.
    override public func cancel() {
        counts.withLock { $0.isCancelled = true }
        super.cancel()
    }

    /// Pauses the progress; the manager reads that from the lock too.
    override public func pause() {
        counts.withLock { $0.isPaused = true }
        super.pause()
    }

    /// Resumes the progress; the manager reads that from the lock too.
    override public func resume() {
        counts.withLock { $0.isPaused = false }
        super.resume()
    }

    var reading: ProgressReading {
        let counts = counts.withLock { $0 }
        return ProgressReading(
            total: Double(counts.total),
            completed: Double(counts.completed),
            isCancelled: counts.isCancelled,
            isPaused: counts.isPaused
        )
    }
}

// MARK: - The whole percentage

/// The whole percentage every output shows for a fraction: clamped to 0...100 and rounded down,
/// so that 100 means done. A tolerance of 1e-9 keeps fractions such as 0.29, whose product
/// with 100 lands just below 29 in binary floating point, at their written value. `nil` for
/// `nil` or not a number. Shared by the terminal spinner and the UI product's overlays.
package func wholePercent(of fraction: Double?) -> Int? {
    guard let fraction, !fraction.isNaN else { return nil }
    return Int((min(max(fraction, 0), 1) * 100 + 1e-9).rounded(.down))
}
