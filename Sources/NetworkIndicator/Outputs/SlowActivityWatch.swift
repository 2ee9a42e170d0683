import Foundation

/// Decides, on the main actor, when a manager's busy period has lasted `threshold` seconds:
/// fed each count its count observation is told, it runs one timer on the manager's scheduler
/// per busy period and tells `onChange` `true` when the timer fires and `false` when the period
/// that was reported ends. A period that ends before the timer fires is never reported.
///
/// The period is measured from the main-queue hop that first sees the count above zero (the
/// count observation's), so a main queue that is late delays it by as much.
@MainActor
final class SlowActivityWatch {
    private let threshold: TimeInterval
    private let scheduler: any NetworkIndicatorScheduler
    private let onChange: @MainActor (Bool) -> Void
    /// The timer of the current busy period, until it fires or the period ends.
    private var timer: (any NetworkIndicatorTimer)?
    /// Whether `true` was told for the current busy period.
    private(set) var isSlow = false

    /// A negative or non-finite `threshold` counts as zero: slow as soon as busy.
    init(
        threshold: TimeInterval,
        scheduler: any NetworkIndicatorScheduler,
        onChange: @escaping @MainActor (Bool) -> Void
    ) {
        self.threshold = threshold.isFinite ? max(threshold, 0) : 0
        self.scheduler = scheduler
        self.onChange = onChange
    }

    /// The manager's count is now `count`.
    func countChanged(_ count: Int) {
        if count > 0 {
            guard timer == nil, !isSlow else { return }
            // Weak: a watch let go (its observation cancelled, its owner gone) stops telling
            // anything; its timer, if still running, then fires into nothing.
            timer = scheduler.schedule(after: threshold, repeating: nil, leeway: 0) { [weak self] in
                self?.timerFired()
            }
        } else {
            timer?.cancel()
            timer = nil
            guard isSlow else { return }
            isSlow = false
            onChange(false)
        }
    }

    private func timerFired() {
        guard timer != nil else { return }
        timer = nil
        isSlow = true
        onChange(true)
    }
}
