import Foundation

/// When an overlay's title becomes "Still loading…", in plain Swift so that it is tested on
/// Linux: after ``NetworkActivityOverlaySettings/stillLoadingAfter`` seconds of one load without
/// a break (the overlay's own loading: the screen's tasks that are not refreshes), until that
/// load ends. The overlay announces the new title once per load, if it is drawn then.
struct OverlayStillLoading: Equatable, Sendable {
    /// One thing for the shell to do, in order.
    enum Action: Equatable, Sendable {
        /// Cancel any still-loading timer, then call ``timerFired(now:)`` after `delay` seconds.
        case scheduleTimer(after: TimeInterval)
        /// Cancel the still-loading timer, if any.
        case cancelTimer
        /// Show the title "Still loading…" (`true`) or the overlay's own title (`false`).
        case showStillLoading(Bool)
        /// Announce the title "Still loading…" (as the overlay's other announcements: only in a
        /// window, with VoiceOver running, queued).
        case announce
    }

    /// The key of "Still loading…" in this target's `Localizable.strings`.
    static let titleKey = "Still loading"

    /// "Still loading…" in the user's language, from `bundle` (this target's).
    static func title(bundle: Bundle = .module) -> String {
        bundle.localizedString(forKey: titleKey, value: "Still loading…", table: nil)
    }

    /// The threshold, or `nil` (never).
    let threshold: TimeInterval?
    /// Whether the title is "Still loading…" now.
    private(set) var isStillLoading = false
    /// When the current load reaches the threshold; `nil` when not loading (or no threshold).
    private var deadline: TimeInterval?

    /// `.infinity` is `nil` (never); a negative threshold, or NaN, counts as zero.
    init(threshold: TimeInterval?) {
        self.threshold = threshold == .infinity ? nil : threshold.map { $0.isNaN ? 0 : max($0, 0) }
    }

    /// The overlay's loading changed (`isLoading`). `isDrawn`: whether it was drawn before the
    /// change and still is, which decides whether a title changed at once (a zero threshold) is
    /// spoken; a first draw's start announcement reads the title instead.
    mutating func loadingChanged(_ isLoading: Bool, now: TimeInterval, isDrawn: Bool = false) -> [Action] {
        guard let threshold else { return [] }
        if isLoading {
            guard deadline == nil, !isStillLoading else { return [] }
            guard threshold > 0 else {
                // From the load's first moment: the first frame drawn says it (its start
                // announcement reads it), or a card still drawn from the last load speaks it.
                isStillLoading = true
                return isDrawn ? [.showStillLoading(true), .announce] : [.showStillLoading(true)]
            }
            deadline = now + threshold
            return [.scheduleTimer(after: threshold)]
        }
        let hadTimer = deadline != nil
        deadline = nil
        var actions: [Action] = hadTimer ? [.cancelTimer] : []
        if isStillLoading {
            isStillLoading = false
            actions.append(.showStillLoading(false))
        }
        return actions
    }

    /// The timer fired: the title changes if the load has lasted the threshold; `isDrawn`
    /// decides whether it is announced.
    mutating func timerFired(now: TimeInterval, isDrawn: Bool) -> [Action] {
        guard let deadline, now >= deadline else { return [] }
        self.deadline = nil
        isStillLoading = true
        return isDrawn ? [.showStillLoading(true), .announce] : [.showStillLoading(true)]
    }

    /// The view went away: back to the overlay's own title, no timer.
    mutating func reset() -> [Action] {
        loadingChanged(false, now: 0)
    }
}
