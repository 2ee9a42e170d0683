import Foundation

/// Every decision one overlay makes, in plain Swift: when to draw, how long to stay, what to
/// start from when its view appears, and when to speak. The SwiftUI, UIKit and AppKit overlays
/// feed it events and perform the actions it returns (through
/// ``NetworkActivityOverlayController``), so the rules are tested on Linux.
///
/// The overlay draws for the screen's tasks that are not refreshes: a pull-to-refresh already
/// shows the system's own spinner, so ``refreshCount`` of the ``activeCount`` are left out.
/// And while a refresh runs, the overlay does not begin to draw at all, for any task: work begun
/// inside the refresh (the requests its action makes) is under the system's spinner already,
/// and a card over it would be a second spinner. It draws, after the show delay, for what
/// still loads once the refresh ends; an overlay drawn before the refresh stays as long as its
/// load runs.
///
/// - Off screen (before ``appeared(activeCount:refreshCount:now:)``, after ``disappeared()``):
///   nothing drawn, every event ignored, so a view coming back never starts from stale state.
/// - Busy: wait ``NetworkActivityOverlaySettings/showDelay``, then draw; a load that ends
///   sooner never draws.
/// - Idle again: erase once the overlay has been drawn
///   ``NetworkActivityOverlaySettings/minimumVisibleDuration``; busy again before that, stay.
///
/// - Disabled manager (`isEnabled` `false`): never drawn. Disabling erases at once, with no
///   minimum time and no announcement; enabling again treats a running load as a new one (the
///   show delay from then), so that a disabled manager's overlay shows nothing, as its other
///   outputs do.
///
/// At most one timer is wanted at a time; ``timerFired(now:)`` acts only once its deadline has
/// come, so a late or stale firing changes nothing.
struct OverlayVisibilityModel: Equatable, Sendable {
    /// One thing for the shell to do, in order.
    enum Action: Equatable, Sendable {
        /// Draw the overlay (animated).
        case draw
        /// Erase the overlay; `animated` is `false` when the view went away.
        case erase(animated: Bool)
        /// Cancel any timer, then call ``timerFired(now:)`` once `delay` seconds have passed.
        case scheduleTimer(after: TimeInterval)
        /// Cancel the timer, if any.
        case cancelTimer
        /// Ask ``OverlayAnnouncement`` whether to speak, now, and speak if so.
        case announce(OverlayAnnouncement.Kind)
    }

    private enum Phase: Equatable, Sendable {
        case offScreen
        case idle
        case waitingToDraw(until: TimeInterval)
        case drawn(since: TimeInterval)
        case waitingToErase(drawnSince: TimeInterval, until: TimeInterval)
    }

    let settings: NetworkActivityOverlaySettings
    private var phase = Phase.offScreen
    /// The screen's tasks, as the manager last said.
    private(set) var activeCount = 0
    /// How many of them are refreshes, which the overlay does not draw for.
    private(set) var refreshCount = 0
    /// Whether the manager is enabled, as last told; a disabled manager's overlay never draws.
    private(set) var isEnabled = true
    /// Whether the load ended here by going on under a child scope's overlay: its erase
    /// announces no end.
    private var loadWasHandedOff = false

    init(settings: NetworkActivityOverlaySettings) {
        self.settings = settings
    }

    /// Whether the overlay is drawn now.
    var isDrawn: Bool {
        switch phase {
        case .drawn, .waitingToErase: true
        case .offScreen, .idle, .waitingToDraw: false
        }
    }

    /// Drawn for a load that runs now, not kept its minimum time after one ended.
    var isDrawnForALoad: Bool {
        if case .drawn = phase { return true }
        return false
    }

    /// Whether the view is on screen (between an appearance and a disappearance).
    var isOnScreen: Bool { phase != .offScreen }

    /// Whether there is something to draw for: tasks other than refreshes, in an enabled
    /// manager.
    var isLoading: Bool { isEnabled && activeCount - refreshCount > 0 }

    /// The view appeared, and the manager has `activeCount` tasks now, `refreshCount` of them
    /// refreshes. A load already running waits the show delay from now, as a new one would.
    mutating func appeared(activeCount: Int, refreshCount: Int, now: TimeInterval) -> [Action] {
        var actions = disappeared()
        phase = .idle
        self.activeCount = activeCount
        self.refreshCount = refreshCount
        actions += update(now: now)
        return actions
    }

    /// The view went away: erase at once, forget everything, cancel the timer, say nothing.
    mutating func disappeared() -> [Action] {
        let wasDrawn = isDrawn
        let hadTimer = hasTimer
        phase = .offScreen
        activeCount = 0
        refreshCount = 0
        loadWasHandedOff = false
        return (hadTimer ? [.cancelTimer] : []) + (wasDrawn ? [.erase(animated: false)] : [])
    }

    /// The manager says the screen has `count` tasks.
    mutating func activeCountChanged(_ count: Int, now: TimeInterval) -> [Action] {
        guard isOnScreen else { return [] }
        activeCount = count
        return update(now: now)
    }

    /// `count` of the screen's tasks are refreshes now.
    mutating func refreshCountChanged(_ count: Int, now: TimeInterval) -> [Action] {
        guard isOnScreen else { return [] }
        refreshCount = count
        return update(now: now)
    }

    /// `refreshCount` of the screen's tasks are refreshes now, and the manager has
    /// `activeCount` tasks: both at once, so that the model never sees one count updated without
    /// the other (a refresh's task counted, its refresh not yet uncounted, is not a load).
    /// `handedOff`: the screen's other tasks run on under child scopes' own overlays; a load
    /// that ends by this change with the refreshes unchanged (a child's overlay appeared and
    /// took it) is not announced as complete.
    mutating func countsChanged(
        activeCount: Int,
        refreshCount: Int,
        handedOff: Bool = false,
        now: TimeInterval
    ) -> [Action] {
        guard isOnScreen else { return [] }
        // A cover changed: fewer tasks of this overlay's own, the refreshes as they were (a
        // refresh's end takes its own task with it).
        let coverTookTasks = refreshCount == self.refreshCount && activeCount < self.activeCount
        self.activeCount = activeCount
        self.refreshCount = refreshCount
        if handedOff, coverTookTasks, !isLoading { loadWasHandedOff = true }
        return update(now: now)
    }

    /// The manager was enabled or disabled. Disabling erases at once (no minimum time, no
    /// announcement); enabling starts a running load's show delay from `now`. Remembered off
    /// screen too, since the manager's setting outlives the view.
    mutating func enabledChanged(_ isEnabled: Bool, now: TimeInterval) -> [Action] {
        guard isEnabled != self.isEnabled else { return [] }
        self.isEnabled = isEnabled
        guard isOnScreen else { return [] }
        if !isEnabled {
            let wasDrawn = isDrawn
            let hadTimer = hasTimer
            phase = .idle
            return (hadTimer ? [.cancelTimer] : []) + (wasDrawn ? [.erase(animated: true)] : [])
        }
        return update(now: now)
    }

    /// The timer asked for by the last ``Action/scheduleTimer(after:)`` fired.
    mutating func timerFired(now: TimeInterval) -> [Action] {
        switch phase {
        case .waitingToDraw(let until) where now >= until:
            guard refreshCount == 0 else {
                phase = .idle  // drawn, if still loading, after the refresh ends
                return []
            }
            phase = .drawn(since: now)
            return [.draw] + (settings.announcesActivity ? [.announce(.started)] : [])
        case .waitingToErase(let drawnSince, let until) where now >= until:
            return erase(drawnSince: drawnSince, now: now)
        default:
            return []
        }
    }

    private var hasTimer: Bool {
        switch phase {
        case .waitingToDraw, .waitingToErase: true
        case .offScreen, .idle, .drawn: false
        }
    }

    /// Moves the phase after a change of the counts.
    private mutating func update(now: TimeInterval) -> [Action] {
        if isLoading { loadWasHandedOff = false }
        switch (phase, isLoading) {
        case (.idle, true):
            guard refreshCount == 0 else { return [] }
            guard settings.showDelay > 0 else {
                phase = .drawn(since: now)
                return [.draw] + (settings.announcesActivity ? [.announce(.started)] : [])
            }
            phase = .waitingToDraw(until: now + settings.showDelay)
            return [.scheduleTimer(after: settings.showDelay)]
        case (.waitingToDraw, false):
            phase = .idle
            return [.cancelTimer]
        case (.drawn(let since), false):
            let until = since + settings.minimumVisibleDuration
            guard now < until else { return erase(drawnSince: since, now: now) }
            phase = .waitingToErase(drawnSince: since, until: until)
            return [.scheduleTimer(after: until - now)]
        case (.waitingToErase(let since, _), true):
            // A refresh's requests never draw: the card is kept its minimum time, then erased.
            guard refreshCount == 0 else { return [] }
            phase = .drawn(since: since)
            return [.cancelTimer]
        default:
            return []
        }
    }

    /// What was drawn went while its load ran (a card gave way to content), and the load has
    /// ended: the phase is idle at once, with no minimum time and nothing to announce, so that
    /// the next load waits its show delay and is announced. Whether a timer was cancelled.
    mutating func erasedUnseen() -> Bool {
        guard case .waitingToErase = phase else { return false }
        phase = .idle
        return true
    }

    private mutating func erase(drawnSince: TimeInterval, now: TimeInterval) -> [Action] {
        phase = .idle
        let announcesEnd =
            settings.announcesActivity && !loadWasHandedOff
            && settings.completionAnnouncementThreshold.map { now - drawnSince >= $0 } == true
        loadWasHandedOff = false
        return [.erase(animated: true)] + (announcesEnd ? [.announce(.finished)] : [])
    }
}
