import Foundation

extension IndicatorDriver {
    /// Ends the tasks of tokens that died or report completion, reports stale tasks, then brings
    /// the machine up to date. O(live tokens). Runs on the sweep timer.
    @MainActor
    func sweep() {
        let now = scheduler.now
        guard var found = sweepRegistry(now: now) else { return }
        // Asked without the lock: a completion check is the caller's code.
        let finished = found.completionCandidates.filter {
            ($0.object as? any NetworkActivityCompletionReporting)?.isNetworkActivityFinished == true
        }
        let handler = finishSweep(completed: finished, now: now)
        // Objects that lost their last other owner during the sweep die here, lock released.
        found.keptAlive.removeAll()
        found.completionCandidates.removeAll()
        // A token that reported completion in this very sweep is not stale.
        let finishedKeys = Set(finished.map(\.key))
        for stale in found.staleTasks where stale.key.map({ !finishedKeys.contains($0) }) ?? true {
            handler(NetworkIndicatorDiagnostic(kind: .staleTask(age: stale.age), label: stale.label))
        }
    }
}
