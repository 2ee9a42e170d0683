import NetworkIndicator

/// "Still loading…": the timers and announcements that ``OverlayStillLoading`` decides.
extension NetworkActivityOverlayController {
    /// Performs what ``OverlayStillLoading`` decided.
    func performStillLoading(_ actions: [OverlayStillLoading.Action]) {
        for action in actions {
            switch action {
            case .scheduleTimer(let delay):
                stillLoadingTimer?.cancel()
                stillLoadingTimer = scheduler?.schedule(after: delay, repeating: nil, leeway: 0.05) { [weak self] in
                    guard let self else { return }
                    stillLoadingTimer = nil
                    let actions = stillLoading.timerFired(now: scheduler?.now ?? 0, isDrawn: isDrawn)
                    // The shell shows the new title before VoiceOver is told it.
                    publishPlan()
                    performStillLoading(actions)
                }
            case .cancelTimer:
                stillLoadingTimer?.cancel()
                stillLoadingTimer = nil
            case .showStillLoading:
                break  // the next plan's title says it
            case .announce:
                if model.settings.announcesActivity,
                    OverlayAnnouncement.shouldPost(
                        isSeen: accessibility.isSeen(),
                        isVoiceOverRunning: accessibility.isVoiceOverRunning()
                    )
                {
                    accessibility.post(.stillLoading, progressModel.shown)
                }
            }
        }
    }
}
