import NetworkIndicator

/// What a SwiftUI overlay's controller is made for: its manager, its settings, its title and
/// its scope's refreshes. The shell starts a new controller (from the manager's state then)
/// whenever this changes, so that new settings or a new title apply at once; an equal value
/// keeps the running controller. Plain Swift, so that the rule is tested on Linux.
struct OverlayShellConfiguration: Equatable {
    let manager: ObjectIdentifier
    let settings: NetworkActivityOverlaySettings
    let spokenTitle: String
    let refreshes: ObjectIdentifier?
    let parentRefreshes: ObjectIdentifier?

    @MainActor
    init(
        manager: NetworkIndicatorManager,
        settings: NetworkActivityOverlaySettings,
        spokenTitle: String,
        refreshes: NetworkActivityRefreshes?,
        parentRefreshes: NetworkActivityRefreshes?
    ) {
        self.manager = ObjectIdentifier(manager)
        self.settings = settings
        self.spokenTitle = spokenTitle
        self.refreshes = refreshes.map(ObjectIdentifier.init)
        self.parentRefreshes = parentRefreshes.map(ObjectIdentifier.init)
    }
}
