import Foundation

/// Decides, on the main actor, when a manager's busy period has lasted `threshold` seconds:
/// fed each count its count observation is told, it waits for one deadline on the tree's one
/// timer (``OutputDelivery``) per busy period and tells `onChange` `true` when it is due and
/// `false` when the period that was reported ends. A period that ends before the deadline is
/// never reported.
///
/// The period is measured from the main-queue hop that first sees the count above zero (the
/// count observation's), so a main queue that is late delays it by as much.
@MainActor
final class SlowActivityWatch: DeadlineTarget {
    private let threshold: TimeInterval
    private let delivery: OutputDelivery
    private let node: IndicatorTree.NodeID
    private let onChange: @MainActor (Bool) -> Void
    /// Whether the deadline of the current busy period is pending.
    private var isWaiting = false
    /// Whether `true` was told for the current busy period.
    private(set) var isSlow = false

    /// A negative or non-finite `threshold` counts as zero: slow as soon as busy.
    init(
        threshold: TimeInterval,
        delivery: OutputDelivery,
        node: IndicatorTree.NodeID,
        onChange: @escaping @MainActor (Bool) -> Void
    ) {
        self.threshold = threshold.isFinite ? max(threshold, 0) : 0
        self.delivery = delivery
        self.node = node
        self.onChange = onChange
    }

    /// The manager's count is now `count`.
    func countChanged(_ count: Int) {
        if count > 0 {
            guard !isWaiting, !isSlow else { return }
            isWaiting = true
            // Held weakly: a watch let go (its observation cancelled, its owner gone) stops
            // telling anything; its deadline, if still pending, then fires into nothing.
            delivery.call(self, kind: .slowActivity, after: threshold, for: node)
        } else {
            if isWaiting {
                isWaiting = false
                delivery.call(self, kind: .slowActivity, after: nil, for: node)
            }
            guard isSlow else { return }
            isSlow = false
            onChange(false)
        }
    }

    /// The threshold's deadline is due.
    func deadlineFired() {
        guard isWaiting else { return }
        isWaiting = false
        isSlow = true
        onChange(true)
    }
}
