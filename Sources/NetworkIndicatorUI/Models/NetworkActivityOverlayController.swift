import NetworkIndicator

/// The working part of every overlay, without UI: it follows a manager's task count (and the
/// scope's refreshes) while the overlay's view is on screen, runs the
/// ``OverlayVisibilityModel`` on the manager's scheduler, and tells the shell when to draw,
/// erase and speak; and, unless the settings say otherwise, follows the manager's
/// `fractionCompleted` and tells the shell what to show (``OverlayProgressModel``). Plain
/// Swift, so that the wiring is tested on Linux too; the SwiftUI, UIKit and AppKit overlays
/// only draw.
///
/// Before each event it reads the manager's `isEnabled` (a disabled manager's overlay never
/// draws; the manager tells each change of it), and, while a fraction is known, its progress
/// snapshot's `hasIndeterminateWork` (a bar only when everything running is measured).
///
/// Main actor only. It holds the manager only between ``appear(manager:refreshes:)`` and
/// ``disappear()``; the manager holds it weakly (an owner-bound observation). An output's
/// controller (``appear(activeCount:scheduler:manager:)``) holds its manager weakly.
@MainActor
final class NetworkActivityOverlayController {
    private(set) var model: OverlayVisibilityModel
    private(set) var progressModel = OverlayProgressModel()
    /// The manager's fraction as last told, its covered scopes' parts included: read again for
    /// this overlay's own when what it covers changes.
    private var toldFraction: Double?
    let accessibility: Accessibility

    private var manager: NetworkIndicatorManager?
    /// The manager read for `isEnabled` and the progress snapshot: ``manager``, or an output's.
    private weak var source: NetworkIndicatorManager?
    /// Whether the overlay appeared with a manager to read: once ``source`` reads `nil`, the
    /// manager was deallocated, and its load did not complete.
    private var readsSource = false
    private(set) var scheduler: (any NetworkIndicatorScheduler)?
    private var countObservation: NetworkIndicatorObservation?
    private var progressObservation: NetworkIndicatorObservation?
    private var enabledObservation: NetworkIndicatorObservation?
    private var refreshes: (source: ScopeOverlayExclusions, listener: UInt64)?
    /// Where this overlay covers its manager's tasks (SwiftUI's: the enclosing scope; an
    /// output's: every ancestor).
    private var coveredIn: ScopeCover?
    private var timer: (any NetworkIndicatorTimer)?
    var stillLoading: OverlayStillLoading
    var stillLoadingTimer: (any NetworkIndicatorTimer)?

    /// Told the new plan each time it changes: all that a shell applies (``OverlayPlan``).
    var planChanged: @MainActor (OverlayPlan) -> Void = { _ in }

    /// What the overlay shows now, as the shell should apply it.
    private(set) var plan = OverlayPlan.hidden

    /// The overlay's own title, shown and read (unless "Still loading…" replaces it). A new
    /// title applies in place: the overlay stays drawn or waiting, and says nothing again.
    var title = "" {
        didSet { publishPlan() }
    }

    /// Whether the last change of ``isDrawn`` fades (`false`: the view went away).
    private var isAnimated = true

    /// Whether the plans keep the card (or light indicator) drawn until the main queue's next
    /// turn: its bar filled as its load ended, in the pass that erased it (see ``handle(_:)``).
    private var holdsFullBar = false

    /// Whether the screen already shows content: the overlay then draws a light bar instead of
    /// the card (``OverlayContentStyle``). Content leaving from under the drawn light indicator
    /// switches to the card at once; content arriving under a drawn card erases it.
    var hasContent = false {
        didSet {
            // Content under a drawn card: the card goes (never turns into the light indicator)
            // until the next load; content gone while the load runs brings the card back.
            if hasContent, model.isDrawn, drawnStyle == .card { cardGaveWayToContent = true }
            if !hasContent, model.isLoading { cardGaveWayToContent = false }
            _ = settleCardGivenWay()
            publishPlan()
        }
    }

    /// The style drawn last: what an erase keeps the placement of.
    private var drawnStyle = OverlayContentStyle.card

    /// Whether content arrived under the card drawn now, which then erased.
    private var cardGaveWayToContent = false

    /// The style to draw in now.
    var style: OverlayContentStyle { OverlayContentStyle(hasContent: hasContent) }

    /// Whether the title is "Still loading…" now.
    var isStillLoading: Bool { stillLoading.isStillLoading }

    /// `settings`: the overlay's presentation; `accessibility`: where the announcements go, and
    /// the conditions they need. What it decides reaches the shell as plans only (``planChanged``).
    init(settings: NetworkActivityOverlaySettings, accessibility: Accessibility) {
        self.model = OverlayVisibilityModel(settings: settings)
        self.stillLoading = OverlayStillLoading(threshold: settings.stillLoadingAfter)
        self.accessibility = accessibility
    }

    /// Whether the overlay is drawn now: the model's draw, unless content erased the card.
    var isDrawn: Bool { model.isDrawn && !cardGaveWayToContent }

    /// What the overlay shows: a bar with its percentage, or the spinner.
    var progress: OverlayProgress { progressModel.shown }

    /// The view appeared: starts from `manager`'s exact count now (and `refreshes`' count),
    /// then follows both until ``disappear()``. Appearing again first disappears.
    ///
    /// The overlay draws for `manager`'s tasks minus those of the child scopes that draw an
    /// overlay of their own (registered in `refreshes`), and registers itself in
    /// `parentRefreshes`, the enclosing scope's, so that the enclosing scope's overlay leaves
    /// `manager`'s tasks to this one.
    func appear(
        manager: NetworkIndicatorManager,
        refreshes: ScopeOverlayExclusions?,
        coveringIn parentRefreshes: ScopeOverlayExclusions? = nil
    ) {
        disappear()
        self.manager = manager
        source = manager
        readsSource = true
        scheduler = manager.scheduler
        // Told each change of `isEnabled`, whether or not the manager's own indicator shows.
        enabledObservation = manager.observeEnabled(owner: self) { controller, _ in
            controller.handle { _, _ in [] }
        }
        // Told at once with the last delivered count, which may lag; the model is still off
        // screen then and ignores it, and is seeded with the exact count below.
        countObservation = manager.observeActiveTaskCount(owner: self) { controller, count in
            let ownCount = controller.ownCount(told: count)
            controller.handle { $0.activeCountChanged(ownCount, now: $1) }
        }
        if let refreshes {
            let listener = refreshes.addListener(owner: self) { [weak self] count in
                self?.refreshCountChanged(count)
            }
            self.refreshes = (refreshes, listener)
        }
        if let parentRefreshes { cover(manager, in: [parentRefreshes]) }
        let activeCount = ownCount(told: manager.activeTaskCount)
        let refreshCount = refreshes?.count ?? 0
        handle { $0.appeared(activeCount: activeCount, refreshCount: refreshCount, now: $1) }
        if model.settings.showsProgress {
            // Told the current fraction at once, then at most ten times a second while tasks
            // with a `Progress` run; nothing at all is polled for a screen without them.
            progressObservation = manager.observeProgress(owner: self) { controller, fraction in
                controller.fractionCompleted(fraction)
            }
        }
    }

    /// For an output attached with `addOutput`, which the manager tells its count: starts from
    /// `activeCount` on `scheduler`'s clock; later counts come through ``activeCountChanged(_:)``.
    /// `manager`, held weakly, is read for `isEnabled` and the progress snapshot (`nil`: an
    /// enabled manager whose work is all measured).
    ///
    /// With a `manager`, the overlay leaves out the tasks of its descendant scopes whose outputs
    /// draw overlays of their own, and covers its manager's tasks in every ancestor's, through
    /// ``ScopeOverlayExclusions/forOutputs(of:)``: one overlay per task, the innermost's.
    func appear(activeCount: Int, scheduler: any NetworkIndicatorScheduler, manager: NetworkIndicatorManager? = nil) {
        disappear()
        self.scheduler = scheduler
        source = manager
        readsSource = manager != nil
        if let manager {
            let refreshes = ScopeOverlayExclusions.forOutputs(of: manager)
            let listener = refreshes.addListener(owner: self) { [weak self] count in self?.refreshCountChanged(count) }
            self.refreshes = (refreshes, listener)
            let ancestors = sequence(first: manager, next: \.parent).dropFirst()
            cover(manager, in: ancestors.map(ScopeOverlayExclusions.forOutputs(of:)))
        }
        let activeCount = ownCount(told: activeCount)
        handle { $0.appeared(activeCount: activeCount, refreshCount: 0, now: $1) }
    }

    /// Registers the overlay of `manager` in `scopes`, whose overlays leave its tasks to it.
    private func cover(_ manager: NetworkIndicatorManager, in scopes: [ScopeOverlayExclusions]) {
        coveredIn = ScopeCover(manager, by: self, in: scopes)
    }

    /// The manager told an output the count `count`. Ignored unless on screen.
    func activeCountChanged(_ count: Int) {
        let ownCount = ownCount(told: count)
        handle { $0.activeCountChanged(ownCount, now: $1) }
    }

    /// The manager told an output that its `isEnabled` changed: reads it again.
    func managerEnabledChanged() {
        handle { _, _ in [] }
    }

    /// The manager's `fractionCompleted` is `fraction` (for an output, which the manager tells
    /// it). Ignored off screen, and when the settings do not show progress.
    func fractionCompleted(_ fraction: Double?) {
        guard model.isOnScreen, model.settings.showsProgress else { return }
        toldFraction = fraction
        let own = ownProgress(told: fraction)
        _ = progressModel.progressChanged(own.fraction, hasIndeterminateWork: own.hasIndeterminateWork)
        publishPlan()
    }

    /// This overlay's progress: the manager's `told` fraction, with whether work of unknown size
    /// runs beside it; or, while child scopes draw their own overlays, the manager's snapshot
    /// without them (the told fraction counts their parts); `readingAgain`, the manager's
    /// snapshot now (the last fraction told may be an ended batch's, a new batch begun since).
    private func ownProgress(
        told fraction: Double?,
        readingAgain: Bool = false
    ) -> (fraction: Double?, hasIndeterminateWork: Bool) {
        let covered = refreshes.flatMap { $0.source.coversChildren ? $0.source.coveredScopes : nil }
        // Read again: what was told may be an ended batch's fraction (a new one begun since).
        if covered != nil || readingAgain, let source {
            let own = source.progressSnapshot(excluding: covered ?? [])
            return (own.fractionCompleted, own.hasIndeterminateWork)
        }
        return (fraction, fraction != nil && readsIndeterminateWork())
    }

    /// Makes the plan from the state now and tells it to the shell if it changed.
    func publishPlan() {
        // Held only while nothing loads: a new load waits for its own show delay.
        let isDrawn = isDrawn || holdsFullBar && isAnimated && !model.isLoading
        if isDrawn { drawnStyle = style }
        // A draw or an erase fades; the card takes the light indicator's place at once (no
        // cross-fade); any other change keeps the last fade, so that only a change is told.
        let fadeDuration =
            isDrawn != self.plan.isDrawn
            ? OverlayPlan.fadeDuration(animated: isAnimated)
            : self.plan.showsLightIndicator && style == .card ? 0 : self.plan.fadeDuration
        var plan = OverlayPlan(
            isDrawn: isDrawn,
            style: style,
            interaction: model.settings.interaction,
            title: title,
            isStillLoading: stillLoading.isStillLoading,
            progress: progressModel.shown,
            fadeDuration: fadeDuration,
            // A refresh's requests never draw (the refresh control spins for them): they block
            // nothing either, unless the card is drawn for a load that runs on.
            isLoading: model.isOnScreen && model.isLoading
                && (model.refreshCount == 0 || isDrawn && model.isDrawnForALoad),
            placement: drawnStyle
        )
        plan.serial = self.plan.serial
        guard plan != self.plan else { return }
        plan.serial &+= 1
        self.plan = plan
        planChanged(plan)
    }

    /// The view went away: erases at once and lets go of the manager and the refreshes.
    func disappear() {
        countObservation?.cancel()
        countObservation = nil
        progressObservation?.cancel()
        progressObservation = nil
        enabledObservation?.cancel()
        enabledObservation = nil
        if let refreshes { refreshes.source.removeListener(refreshes.listener) }
        refreshes = nil
        coveredIn?.end(by: self)
        coveredIn = nil
        handle { model, _ in model.disappeared() }
        performStillLoading(stillLoading.reset())
        scheduler = nil
        manager = nil
        source = nil
        readsSource = false
        holdsFullBar = false
        _ = progressModel.reset()
        toldFraction = nil
        publishPlan()
    }

    /// A refresh began or ended. The manager's count of it arrives a main-queue hop later, so
    /// the model hears the exact count with the refresh count, in one event: otherwise a
    /// refresh's end would leave its task counted, not subtracted, until the hop, and draw for
    /// it. `RefreshActivity` begins the task before the refresh and ends it first, so that the
    /// exact count read here always includes every counted refresh.
    private func refreshCountChanged(_ count: Int) {
        guard let activeCount = source?.activeTaskCount else {
            handle { $0.refreshCountChanged(count, now: $1) }
            return
        }
        let ownCount = ownCount(told: activeCount)
        // Some of the manager's tasks run under child scopes' overlays: the model tells whether
        // this change handed the load over.
        let handedOff = activeCount > ownCount
        handle { $0.countsChanged(activeCount: ownCount, refreshCount: count, handedOff: handedOff, now: $1) }
    }

    /// The manager's tasks that are this overlay's: `count` (as told), or, while a child scope
    /// draws an overlay of its own, the manager's exact count minus that child's, both read now
    /// (a told count may lag the child's exact one).
    private func ownCount(told count: Int) -> Int {
        guard let refreshes = refreshes?.source, refreshes.coversChildren, let manager = source else { return count }
        return max(0, manager.activeTaskCount - refreshes.coveredTaskCount)
    }

    private func handle(_ event: (inout OverlayVisibilityModel, _ now: Double) -> [OverlayVisibilityModel.Action]) {
        let now = scheduler?.now ?? 0
        let wasDrawn = isDrawn
        let shownBefore = progressModel.shown
        let gaveWay = cardGaveWayToContent
        var actions = model.enabledChanged(source?.settings.isEnabled ?? true, now: now) + event(&model, now)
        // A card that gave way to content was erased then, and a deallocated manager's load did
        // not complete: neither end is announced.
        if gaveWay || readsSource && source == nil { actions.removeAll { $0 == .announce(.finished) } }
        if settleCardGivenWay() { actions.removeAll { if case .scheduleTimer = $0 { true } else { false } } }
        if model.isOnScreen, model.isLoading, let fraction = progressModel.fraction ?? toldFraction {
            // Work of unknown size began or ended beside the measured work, or a covered scope's
            // overlay came or went; the fraction may not have changed, so no new fraction would
            // tell. (Its own fraction is `nil` while all that is measured is covered.) Once the
            // load ends, what it shows is `loadingChanged`'s to decide: a covered scope's work
            // may run on, and is not this overlay's.
            let own = ownProgress(told: fraction, readingAgain: true)
            _ = progressModel.progressChanged(own.fraction, hasIndeterminateWork: own.hasIndeterminateWork)
        }
        _ = progressModel.loadingChanged(model.isLoading) { ownBatchEndedComplete() }
        // Its title goes into the plan below; what it announces waits for that plan.
        let speaks = wasDrawn && isDrawn && model.isDrawnForALoad
        let stillLoadingActions =
            model.isOnScreen ? stillLoading.loadingChanged(model.isLoading, now: now, isDrawn: speaks) : []
        // The shell applies the new plan before anything is announced: VoiceOver reads what it
        // shows (its title, its bar).
        for action in actions {
            if case .erase(let animated) = action { isAnimated = animated }
            if case .draw = action {
                isAnimated = true
                cardGaveWayToContent = false
            }
        }
        if wasDrawn, !isDrawn, isAnimated, progressModel.shown != shownBefore,
            progressModel.shown == OverlayProgress(fractionCompleted: 1)
        {
            // The bar filled as its load ended, erased in the same pass: drawn full first, and
            // erased in the next turn of the main queue, so that every shell fades the full bar
            // (SwiftUI fades the view as it last rendered it).
            holdsFullBar = true
            scheduler?.enqueue { [weak self] in
                self?.holdsFullBar = false
                self?.publishPlan()
            }
        }
        publishPlan()
        performStillLoading(stillLoadingActions)
        for action in actions {
            switch action {
            case .draw, .erase:
                break  // the plan published above says it
            case .scheduleTimer(let delay):
                timer?.cancel()
                timer = scheduler?.schedule(after: delay, repeating: nil, leeway: 0.02) { [weak self] in
                    self?.timerFired()
                }
            case .cancelTimer:
                timer?.cancel()
                timer = nil
            case .announce(let kind):
                if OverlayAnnouncement.shouldPost(
                    kind,
                    isSeen: accessibility.isSeen(),
                    isVoiceOverRunning: accessibility.isVoiceOverRunning(),
                    cursorIsOnCard: accessibility.focusesBlockingCard && plan.hidesHostFromAccessibility
                ) {
                    accessibility.post(kind, progressModel.shown)
                }
            }
        }
        publishPlan()
    }

    /// A card that gave way to content while its load ran: once the load ends, nothing drawn is
    /// kept its minimum time, so the model is idle at once and the next load draws as any does.
    /// Whether the model was made idle (its timer is cancelled; schedule none for it).
    private func settleCardGivenWay() -> Bool {
        guard cardGaveWayToContent else { return false }
        let erased = !model.isLoading && model.erasedUnseen()
        if erased {
            timer?.cancel()
            timer = nil
        }
        if !model.isDrawn { cardGaveWayToContent = false }
        return erased
    }

    /// Whether the load this overlay drew for had every unit of each part, its covered scopes'
    /// parts left out; `false` without a manager.
    private func ownBatchEndedComplete() -> Bool {
        source?.lastProgressBatchEndedComplete(excluding: refreshes?.source.coveredScopes ?? []) ?? false
    }

    /// Whether the manager runs work of unknown size now; `false` without a manager.
    private func readsIndeterminateWork() -> Bool {
        source?.progressSnapshot().hasIndeterminateWork ?? false
    }

    private func timerFired() {
        timer = nil
        handle { $0.timerFired(now: $1) }
    }
}
