import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkIndicatorManager {
    /// Counts `task` while it runs, for the session-wide forms (``NetworkActivityTrackingSession``,
    /// and `NetworkActivitySessionDelegate` on Apple platforms).
    ///
    /// Where key-value observing exists (Apple platforms), the task counts from each `resume()`
    /// to its completion or suspension, and a task cancelled before it ever ran never counts.
    /// Elsewhere (Linux) nothing reports a resume: the task counts from this call, as with
    /// ``track(_:)``, so call it where the task is made and resume the task right away.
    ///
    /// The task's bytes roll up into ``fractionCompleted`` as with ``track(_:)``. A task resumed
    /// again after a suspension counts on without them: its first progress entry already counts
    /// its bytes, and a second would count them twice.
    func countWhileRunning(_ task: URLSessionTask) {
        #if canImport(ObjectiveC)
        let label = ActivityLabel.request(of: task)
        let isCounted = LockedState(false)
        let progress = LockedState<URLSessionTaskProgress?>(URLSessionTaskProgress(task: task))
        URLSessionTaskStateObservation.observe(task) { [weak self] task, state in
            guard let self else { return }
            // Under the task's own lock: a resume and a completion reported on two threads must
            // not cross (a finish before its begin would leave the task to the sweep).
            isCounted.withLock { isCounted in
                switch state {
                case .running where !isCounted:
                    isCounted = true
                    // Taken on the first resume only (see above).
                    let firstProgress = progress.withLock { progress in
                        defer { progress = nil }
                        return progress
                    }
                    self.beganNetworkTask(withToken: task, label: label, progress: firstProgress)
                case .suspended where isCounted, .completed where isCounted:
                    isCounted = false
                    self.driver.finishAll(ObjectIdentifier(task))
                default:
                    break
                }
            }
        }
        #else
        track(task)
        #endif
    }
}
