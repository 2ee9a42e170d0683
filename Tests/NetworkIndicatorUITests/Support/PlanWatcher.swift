@testable import NetworkIndicatorUI

/// What a shell sees of the plans, as a `planChanged` callback: `drawn` at each change of
/// ``OverlayPlan/isDrawn`` (with whether it fades), `shown` at each change of the progress,
/// `stillLoading` at each change of "Still loading…", and `plans` with every plan. The shells
/// hear nothing else, so the tests read what they would show.
@MainActor
func planWatcher(
    drawn: @escaping @MainActor (_ isDrawn: Bool, _ animated: Bool) -> Void = { _, _ in },
    shown: @escaping @MainActor (OverlayProgress) -> Void = { _ in },
    stillLoading: @escaping @MainActor (Bool) -> Void = { _ in },
    plans: @escaping @MainActor (OverlayPlan) -> Void = { _ in }
) -> @MainActor (OverlayPlan) -> Void {
    var last = OverlayPlan.hidden
    return { plan in
        if plan.isDrawn != last.isDrawn { drawn(plan.isDrawn, plan.fadeDuration > 0) }
        if plan.progress != last.progress { shown(plan.progress) }
        if plan.isStillLoading != last.isStillLoading { stillLoading(plan.isStillLoading) }
        last = plan
        plans(plan)
    }
}
