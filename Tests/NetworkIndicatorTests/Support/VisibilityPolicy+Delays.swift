import Foundation

@testable import NetworkIndicator

extension VisibilityPolicy {
    /// ``activityChanged(isActive:now:settings:)`` with the delays named at the call, as the
    /// policy's tests read best.
    mutating func activityChanged(
        isActive: Bool,
        now: TimeInterval,
        startDelay: TimeInterval,
        completionDelay: TimeInterval,
        minimumVisibleDuration: TimeInterval = 0
    ) -> TimerAction? {
        let settings = NetworkIndicatorSettings(
            startDelay: startDelay,
            completionDelay: completionDelay,
            minimumVisibleDuration: minimumVisibleDuration
        )
        return activityChanged(isActive: isActive, now: now, settings: settings)
    }
}
