import Foundation

/// Decides, on the main actor, when a manager's busy period has lasted `threshold` seconds:
/// fed each count its count observation is told, it waits for one deadline on the tree's one
/// timer (``OutputDelivery``) per busy period and tells `onChange` `true` when it is due and
/// `false` when the period that was reported ends. A period that ends before the deadline is
/// never reported.
///
/// The period is measured from the main-queue hop that first sees the count above zero (the
/// count observation's), so a main queue that is late delays it by as much; for a watch begun
/// during a busy period, from when the count left zero, read at the first count above zero
/// the watch is told (``beganBusy``): the first count told may be an older one, 0, that no hop
/// has brought up to date yet.
@MainActor
final class SlowActivityWatch: DeadlineTarget {
    private let threshold: TimeInterval
    private let delivery: OutputDelivery
    private let node: IndicatorTree.NodeID
    private let onChange: @MainActor (Bool) -> Void
    /// Whether the deadline of the current busy period is pending.
    private var isWaiting = false
    /// Counts the busy periods: a deadline of an earlier one, due in the same firing as the
    /// change that began this one, is not this one's.
    private var period: UInt64 = 0
    /// Whether `true` was told for the current busy period.
    private(set) var isSlow = false
    /// Whether the manager was busy as the watch began, until the first count above zero:
    /// that period is measured from when the count left zero (the scheduler's clock).
    private var beganBusy: Bool

    /// `.infinity`: never slow. A negative `threshold`, or NaN, counts as zero: slow as soon as
    /// busy.
    init(
        threshold: TimeInterval,
        delivery: OutputDelivery,
        node: IndicatorTree.NodeID,
        beganBusy: Bool = false,
        onChange: @escaping @MainActor (Bool) -> Void
    ) {
        self.threshold = threshold.isNaN ? 0 : max(threshold, 0)
        self.delivery = delivery
        self.node = node
        self.beganBusy = beganBusy
        self.onChange = onChange
    }

    /// The manager's count is now `count`.
    func countChanged(_ count: Int) {
        if count > 0 {
            let busySince = beganBusy ? delivery.busySince(node) : nil
            beganBusy = false
            guard !isWaiting, !isSlow, threshold < .infinity else { return }
            isWaiting = true
            period &+= 1
            let elapsed = busySince.flatMap { since in delivery.scheduler.map { $0.now - since } } ?? 0
            // Held weakly: a watch let go (its observation cancelled, its owner gone) stops
            // telling anything; its deadline, if still pending, leaves before it arms the timer.
            delivery.call(self, after: max(threshold - elapsed, 0), generation: period, for: node)
        } else {
            if isWaiting {
                isWaiting = false
                delivery.call(self, after: nil, for: node)
            }
            guard isSlow else { return }
            isSlow = false
            onChange(false)
        }
    }

    /// The threshold's deadline of the period numbered `generation` is due.
    func deadlineFired(generation: UInt64) {
        guard isWaiting, generation == period else { return }
        isWaiting = false
        isSlow = true
        onChange(true)
    }
}
