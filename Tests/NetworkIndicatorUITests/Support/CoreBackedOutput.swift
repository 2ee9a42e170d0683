import NetworkIndicator
import NetworkIndicatorTesting

@testable import NetworkIndicatorUI

/// An overlay output as the UIKit and AppKit outputs are, without their views: it forwards to
/// ``OverlayOutputCore`` line for line, and records what a shell would draw (each change of
/// drawn, and each progress shown), with a show delay of 0.5 s and a minimum time of 1 s.
@MainActor
final class CoreBackedOutput: ManagerAwareOutput {
    var drawn: [Bool] = []
    var shown: [OverlayProgress] = []
    /// What VoiceOver was told, when `voiceOver` runs.
    var announced: [OverlayAnnouncement.Kind] = []
    var core: OverlayOutputCore!

    init(scheduler: ManualNetworkIndicatorScheduler, voiceOver: Bool = false) {
        core = OverlayOutputCore(
            settings: .init(showDelay: 0.5, minimumVisibleDuration: 1),
            scheduler: scheduler,
            accessibility: .init(
                isSeen: { true },
                isVoiceOverRunning: { voiceOver },
                post: { [unowned self] kind, _ in announced.append(kind) }
            ),
            planChanged: planWatcher(
                drawn: { [unowned self] isDrawn, _ in drawn.append(isDrawn) },
                shown: { [unowned self] in shown.append($0) }
            )
        )
    }

    var receivesActiveTaskCount: Bool { true }
    var receivesFractionCompleted: Bool { core.receivesFractionCompleted }
    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
    func networkIndicatorActiveTaskCountDidChange(_ count: Int) { core.activeTaskCountChanged(count) }
    func networkIndicatorFractionCompletedDidChange(_ fraction: Double?) { core.fractionCompletedChanged(fraction) }
    func outputAdded(to manager: NetworkIndicatorManager) { core.added(to: manager)?.removeOutput(self) }
    func outputRemoved(from manager: NetworkIndicatorManager) { core.removed(from: manager) }
    var followedManager: NetworkIndicatorManager? { core.followedManager }
    func managerEnabledChanged(_ isEnabled: Bool) { core.enabledChanged() }
}
