import NetworkIndicator

/// What the UIKit and AppKit overlay outputs share, without UI: the output's side of
/// `NetworkIndicatorOutput` (counts, visibility, fractions) turned into calls on a
/// ``NetworkActivityOverlayController``, which it makes at the first count the manager tells
/// (the count of the moment the output is added) and starts from that count. Plain Swift, so
/// that it is tested on Linux; each output keeps only its view code.
///
/// It knows its manager (weakly) from ``added(to:)``, to read `isEnabled` and the progress
/// snapshot. ``removed(from:)`` takes the overlay down at once and forgets the presentation, so
/// that `removeOutput` is the supported way to take an overlay down while keeping its output,
/// and adding it again starts from the manager's count then. It follows one manager at a time:
/// added to another, it leaves the first (``added(to:)``). A manager that is deallocated
/// tells its count outputs `0`, so the overlay of a manager gone mid-load erases.
///
/// Main actor only, like the outputs that own it.
@MainActor
final class OverlayOutputCore {
    private let settings: NetworkActivityOverlaySettings
    private let scheduler: any NetworkIndicatorScheduler
    private let accessibility: NetworkActivityOverlayController.Accessibility
    private let planChanged: @MainActor (OverlayPlan) -> Void
    private let hostIsGone: @MainActor () -> Bool
    /// Made at the first count; `nil` until then, and again once removed from the manager.
    private(set) var controller: NetworkActivityOverlayController?
    /// The manager the output was last added to.
    private weak var manager: NetworkIndicatorManager?

    /// Whether the host shows content (the output's `hasContent`), handed to the controller.
    var hasContent = false {
        didSet { controller?.hasContent = hasContent }
    }

    /// The overlay's own title, handed to the controller (see its ``NetworkActivityOverlayController/title``).
    var title = "" {
        didSet { controller?.title = title }
    }

    /// What the overlay shows now: the controller's plan, or ``OverlayPlan/hidden`` without one.
    var plan: OverlayPlan { controller?.plan ?? .hidden }

    /// - Parameters:
    ///   - settings: The overlay's presentation.
    ///   - scheduler: The clock of the show delay and the minimum time.
    ///   - accessibility: Where the announcements go, and the conditions they need.
    ///   - hostIsGone: Whether the output's host view is gone: from then on no plan is told,
    ///     since the views' constraints point at the host (issue 63, item 4). The output does
    ///     nothing, as its documentation promises.
    ///   - planChanged: Told each new plan, all that the output's views apply; and
    ///     ``OverlayPlan/hidden`` when the overlay is taken down.
    init(
        settings: NetworkActivityOverlaySettings,
        scheduler: any NetworkIndicatorScheduler,
        accessibility: NetworkActivityOverlayController.Accessibility,
        hostIsGone: @escaping @MainActor () -> Bool = { false },
        planChanged: @escaping @MainActor (OverlayPlan) -> Void = { _ in }
    ) {
        self.settings = settings
        self.scheduler = scheduler
        self.accessibility = accessibility
        self.planChanged = planChanged
        self.hostIsGone = hostIsGone
    }

    /// Whether the output wants the manager's `fractionCompleted`: the settings' `showsProgress`.
    var receivesFractionCompleted: Bool { settings.showsProgress }

    /// The manager told the count `count`: the first one starts the presentation from it, the
    /// others move it.
    func activeTaskCountChanged(_ count: Int) {
        guard let controller else {
            let controller = NetworkActivityOverlayController(settings: settings, accessibility: accessibility)
            // Connected first, so that the output hears the plan with its title and style at once.
            controller.planChanged = { [weak self] plan in self?.tell(plan) }
            controller.title = title
            controller.hasContent = hasContent
            self.controller = controller
            controller.appear(activeCount: count, scheduler: scheduler, manager: manager)
            return
        }
        controller.activeCountChanged(count)
    }

    /// The manager's `isEnabled` changed (``ManagerAwareOutput/managerEnabledChanged(_:)``): the
    /// controller reads it again. The overlay follows the count and `isEnabled`, not the
    /// manager's visibility.
    func enabledChanged() {
        controller?.managerEnabledChanged()
    }

    /// `manager` is about to attach the output (from `addOutput`). An overlay output follows one
    /// manager: one added to a second manager while the first still holds it moves, as a view
    /// added to a new superview leaves its old one: the overlay erases at once, starts again from
    /// the new manager's count, and this returns the manager to detach the output from (the
    /// output calls its `removeOutput`), so that the two managers' counts never mix. `nil` when
    /// there is none: a first add, the same manager again, or a previous manager that is gone.
    func added(to manager: NetworkIndicatorManager) -> NetworkIndicatorManager? {
        let previous = self.manager
        self.manager = manager
        guard previous !== manager else { return nil }
        controller?.disappear()
        controller = nil
        return previous
    }

    /// The manager the output was last added to, while it lives and holds the output
    /// (``ManagerAwareOutput/followedManager``).
    var followedManager: NetworkIndicatorManager? { manager }

    /// `manager` detached the output (from `removeOutput`): erases at once and forgets the
    /// presentation. Ignored for a manager the output is not attached to.
    func removed(from manager: NetworkIndicatorManager) {
        guard manager === self.manager else { return }
        controller?.disappear()
        controller = nil
        self.manager = nil
    }

    /// Tells the output `plan`, unless its host is gone.
    private func tell(_ plan: OverlayPlan) {
        guard !hostIsGone() else { return }
        planChanged(plan)
    }

    /// The manager told its `fractionCompleted`; ignored before the first count.
    func fractionCompletedChanged(_ fractionCompleted: Double?) {
        controller?.fractionCompleted(fractionCompleted)
    }
}
