public import Foundation

/// What a download screen needs to draw: how far the current batch has come, in units and as a
/// fraction, whether other work of unknown size runs beside it, and an estimate of the time
/// left. Returned by ``NetworkIndicatorManager/progressSnapshot()``.
///
/// ```swift
/// let progress = downloads.progressSnapshot()
/// if let fraction = progress.fractionCompleted, !progress.hasIndeterminateWork {
///     bar.progress = Float(fraction)          // everything running is measured
/// } else {
///     spinner.startAnimating()                // some work has no known size
/// }
/// ```
///
/// A batch is the determinate work that overlaps (see "Showing progress" in the
/// documentation): it begins with the first task whose total is known and ends when none of its
/// tasks runs. Units are bytes where bytes are known, or the weight a task was begun with. A
/// plain value: `Sendable`, safe to pass to any thread.
public struct NetworkProgressSnapshot: Sendable, Equatable {
    /// How far the batch has come, in 0...1, or `nil` when no determinate task runs (the scope
    /// is idle, or all it runs has an unknown size): draw a spinner then, never a full bar.
    public var fractionCompleted: Double?
    /// The whole units done in the batch, its ended parts included, rounded down as the
    /// percentage is: it reaches ``totalUnitCount`` only when the batch reads 100 %, so "3 of 3
    /// files" means done. 0 when no batch runs.
    public var completedUnitCount: Int64
    /// The units of the whole batch; 0 when no batch runs.
    public var totalUnitCount: Int64
    /// Whether some running task of the scope has no known size: a task begun without a
    /// `Progress`, or with one whose total is not known yet; or a task whose `Progress` was
    /// cancelled while the task itself still runs (its units left the batch). A bar then
    /// measures only part of what runs.
    public var hasIndeterminateWork: Bool
    /// Seconds until the batch is done at the pace it has kept since it began, or `nil` before
    /// any unit is done (or when no batch runs). The pace counts only units done since: those a
    /// part had done when the batch first saw its size (a download resumed, a file half sent)
    /// are not. An estimate: it assumes the pace holds and that no new part joins.
    public var estimatedTimeRemaining: TimeInterval?

    /// An idle scope's snapshot: no fraction, nothing counted, nothing running.
    init(
        fractionCompleted: Double? = nil,
        completedUnitCount: Int64 = 0,
        totalUnitCount: Int64 = 0,
        hasIndeterminateWork: Bool = false,
        estimatedTimeRemaining: TimeInterval? = nil
    ) {
        self.fractionCompleted = fractionCompleted
        self.completedUnitCount = completedUnitCount
        self.totalUnitCount = totalUnitCount
        self.hasIndeterminateWork = hasIndeterminateWork
        self.estimatedTimeRemaining = estimatedTimeRemaining
    }
}

extension NetworkProgressSnapshot {
    /// The snapshot of a batch `summary` in a scope where some task is not measured
    /// (`hasIndeterminateWork`), at `now`.
    init(summary: Batch.Summary, hasIndeterminateWork: Bool, now: TimeInterval) {
        self.init(hasIndeterminateWork: hasIndeterminateWork)
        guard let fraction = summary.fraction else { return }
        fractionCompleted = fraction
        totalUnitCount = Int64(saturating: summary.total)
        // Rounded down, past a relative 10⁻¹² that absorbs the rounding of a fraction times a
        // total (0.29 × 100 is 28.999999999999996): within it, the percentage reads 100 too.
        completedUnitCount = min(Int64(saturating: (summary.completed * (1 + 1e-12)).rounded(.down)), totalUnitCount)
        // The pace: the units done since the batch began, not those its parts brought.
        let done = summary.completed - summary.unitsBefore
        if let startedAt = summary.startedAt, done > 0, now > startedAt {
            estimatedTimeRemaining = (now - startedAt) * (summary.total - summary.completed) / done
        }
    }
}

extension Int64 {
    /// `value` rounded to the nearest unit and brought into `0...Int64.max`: the sums of the
    /// units that tasks report (a `Content-Length`, a caller's total) may pass `Int64.max`, and a
    /// plain conversion would trap. Not a number reads as 0.
    init(saturating value: Double) {
        // 2⁶³, the first `Double` past `Int64.max` (which a `Double` cannot hold exactly).
        if value >= 0x1p63 {
            self = .max
        } else if value > 0 {
            self = Int64(value.rounded())
        } else {
            self = 0
        }
    }
}
