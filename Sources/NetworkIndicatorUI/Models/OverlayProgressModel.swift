/// Which ``OverlayProgress`` an overlay shows, from the manager's progress and whether its
/// screen is loading: a bar only when it measures everything that runs, never "100 %" while
/// loading continues, and no fall back to a spinner while the overlay stays after the load.
///
/// - While the screen loads, a known fraction shows as a bar only if no task of unknown size
///   runs beside it (the progress snapshot's `hasIndeterminateWork`): a bar over part of the
///   work would read "100 %" while the rest still loads. Otherwise the spinner.
/// - While the screen loads, the bar stops at 99 %: a batch whose units have all arrived is
///   still loading until its last task ends, and VoiceOver must not say "100 percent" then.
/// - Once the screen is idle, what is shown stays (the overlay may stay its minimum time or
///   fade out, and a bar should not turn into a spinner then); a bar whose batch ended with
///   every unit of each part (held at 99 %, or last read at 73 % of a download that finished
///   between two readings) becomes 100 %, since that load is done now. A load that failed or
///   was cancelled keeps where it was.
/// - ``reset()`` (the view went away) forgets everything.
///
/// Progress changes nothing about when the overlay draws: ``OverlayVisibilityModel`` never
/// hears of it.
struct OverlayProgressModel: Equatable, Sendable {
    /// The most a bar shows while its screen still loads.
    static let maximumWhileLoading = 0.99

    /// What the overlay shows now.
    private(set) var shown = OverlayProgress.indeterminate
    /// The manager's fraction, as last told.
    private(set) var fraction: Double?
    private var hasIndeterminateWork = false
    private var isLoading = false

    /// The manager's fraction changed, with whether it runs tasks of unknown size beside the
    /// measured ones. Returns what to show if that changed.
    mutating func progressChanged(_ fraction: Double?, hasIndeterminateWork: Bool) -> OverlayProgress? {
        self.fraction = fraction
        self.hasIndeterminateWork = hasIndeterminateWork
        return update()
    }

    /// The screen started or stopped loading; `completed()`, asked only when a load that shows
    /// a bar ends, says whether its batch had every unit (a download that finished between two
    /// readings). Returns what to show if that changed.
    mutating func loadingChanged(_ isLoading: Bool, completed: () -> Bool = { false }) -> OverlayProgress? {
        guard isLoading != self.isLoading else { return nil }
        self.isLoading = isLoading
        guard isLoading || !shown.isDeterminate || !completed() else {
            shown = OverlayProgress(fractionCompleted: 1)
            return shown
        }
        return update()
    }

    /// The view went away: the spinner, and no fraction. Returns it if that changed.
    mutating func reset() -> OverlayProgress? {
        fraction = nil
        hasIndeterminateWork = false
        isLoading = false
        guard shown != .indeterminate else { return nil }
        shown = .indeterminate
        return shown
    }

    private mutating func update() -> OverlayProgress? {
        let next: OverlayProgress
        if isLoading {
            if let fraction, !hasIndeterminateWork {
                next = OverlayProgress(fractionCompleted: min(fraction, Self.maximumWhileLoading))
            } else {
                next = .indeterminate
            }
        } else if shown.fractionCompleted == Self.maximumWhileLoading, (fraction ?? 0) >= 1 {
            next = OverlayProgress(fractionCompleted: 1)
        } else {
            next = shown
        }
        guard next != shown else { return nil }
        shown = next
        return next
    }
}
