/// Which ``OverlayProgress`` an overlay shows, from the manager's fraction and whether its
/// screen is loading: the rule that keeps the bar from falling back to a spinner while the
/// overlay stays after the load.
///
/// - A known fraction shows as a bar.
/// - No fraction while the screen loads shows the spinner (indeterminate work).
/// - No fraction once the screen is idle keeps what is shown: the manager's fraction turns
///   `nil` when its scope goes idle, but the overlay may stay its minimum time or fade out, and
///   a bar that ended at 100 % should not turn into a spinner then.
/// - ``reset()`` (the view went away) forgets everything.
///
/// Progress changes nothing about when the overlay draws: ``OverlayVisibilityModel`` never
/// hears of it.
struct OverlayProgressModel: Equatable, Sendable {
    /// What the overlay shows now.
    private(set) var shown = OverlayProgress.indeterminate
    private var fraction: Double?
    private var isLoading = false

    /// The manager's fraction changed. Returns what to show if that changed.
    mutating func fractionChanged(_ fraction: Double?) -> OverlayProgress? {
        self.fraction = fraction
        return update()
    }

    /// The screen started or stopped loading. Returns what to show if that changed.
    mutating func loadingChanged(_ isLoading: Bool) -> OverlayProgress? {
        guard isLoading != self.isLoading else { return nil }
        self.isLoading = isLoading
        return update()
    }

    /// The view went away: the spinner, and no fraction. Returns it if that changed.
    mutating func reset() -> OverlayProgress? {
        fraction = nil
        isLoading = false
        guard shown != .indeterminate else { return nil }
        shown = .indeterminate
        return shown
    }

    private mutating func update() -> OverlayProgress? {
        let next: OverlayProgress
        if let fraction {
            next = OverlayProgress(fractionCompleted: fraction)
        } else if isLoading {
            next = .indeterminate
        } else {
            next = shown
        }
        guard next != shown else { return nil }
        shown = next
        return next
    }
}
