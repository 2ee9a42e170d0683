import Foundation

/// A standalone `Progress` of `total` units with `completed` done: a download's progress as a
/// test sets it, never a child of a progress made current elsewhere.
func progress(_ completed: Int64, of total: Int64) -> Progress {
    let progress = Progress.discreteProgress(totalUnitCount: total)
    progress.completedUnitCount = completed
    return progress
}
