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
    /// ``track(_:label:)``, so call it where the task is made and resume the task right away.
    ///
    /// The task's bytes roll up into ``fractionCompleted`` as with ``track(_:label:)``, with one
    /// progress for all its runs: a suspended task reads paused, so its batch keeps its bytes,
    /// and each resume begins it again with the same progress, whose bytes then count once.
    func countWhileRunning(_ task: URLSessionTask) {
        #if canImport(ObjectiveC)
        let label = ActivityLabel.request(of: task)
        let progress = URLSessionTaskProgress(task: task)
        URLSessionTaskStateObservation.observe(task, TaskStateWatch(.whileRunning)) { [weak self] task, actions in
            guard let self else { return }
            if actions.stopObserving {
                URLSessionTaskStateObservation.recordEnd(of: task, in: progress)
            }
            if actions.finish {
                self.driver.finishAll(ObjectIdentifier(task))
            }
            if actions.begin {
                // No read here: Foundation may hold the task's lock while it notifies, and
                // remembering a progress folds the parts listed, which reads tasks (this one's
                // state among them). The task counts now; its progress joins from a global
                // queue, where a part it already has is not added twice.
                self.beganNetworkTask(withToken: task, label: label)
                DispatchQueue.global().async { [weak self] in
                    self?.trackProgress(progress, token: task)
                }
            }
        }
        #else
        track(task)
        #endif
    }
}
