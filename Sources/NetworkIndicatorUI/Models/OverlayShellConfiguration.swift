import NetworkIndicator

/// What a SwiftUI overlay's controller is made for: its manager, its settings and its scope's
/// refreshes. The shell starts a new controller (from the manager's state then) whenever this
/// changes, so that new settings apply at once; an equal value keeps the running controller.
/// The title is not part of it: a new title changes in place, without restarting the show
/// delay or speaking again. Plain Swift, so that the rule is tested on Linux.
struct OverlayShellConfiguration: Equatable {
    let manager: ObjectIdentifier
    let settings: NetworkActivityOverlaySettings
    let refreshes: ObjectIdentifier?
    let parentRefreshes: ObjectIdentifier?

    @MainActor
    init(
        manager: NetworkIndicatorManager,
        settings: NetworkActivityOverlaySettings,
        refreshes: ScopeOverlayExclusions?,
        parentRefreshes: ScopeOverlayExclusions?
    ) {
        self.manager = ObjectIdentifier(manager)
        self.settings = settings
        self.refreshes = refreshes.map(ObjectIdentifier.init)
        self.parentRefreshes = parentRefreshes.map(ObjectIdentifier.init)
    }
}
