import NetworkIndicator

/// The scope a view is in, for the modifiers that need more than its manager: the overlay
/// (the scope's settings, which tasks are refreshes, which child scopes draw their own
/// overlay) and `networkActivityRefreshable`. Plain Swift, so that the rules that read it are
/// tested on Linux; the SwiftUI environment only carries it.
struct NetworkActivityScopeContext: Sendable {
    /// The scope's child manager.
    let manager: NetworkIndicatorManager
    /// The scope's refreshes, and the child scopes whose overlays cover their own tasks.
    let refreshes: ScopeOverlayExclusions
    /// How the scope's overlays present.
    let settings: NetworkActivityOverlaySettings
    /// The enclosing scope's refreshes, where an overlay of this scope says that it covers this
    /// scope's tasks, so that the enclosing scope's overlay draws no second card for them;
    /// `nil` when the scope is not directly inside another.
    var parentRefreshes: ScopeOverlayExclusions? = nil

    /// This context if `manager` is its scope's, else `nil`: a modifier uses the scope only for
    /// the scope's own manager (another may have been put in the environment since). The one
    /// rule for the overlays and `networkActivityRefreshable`.
    func scope(of manager: NetworkIndicatorManager) -> Self? {
        self.manager === manager ? self : nil
    }

    /// The settings an overlay of `manager` uses: its own (`given`), else its scope's if
    /// `manager` is this scope's, else the defaults. The one precedence for every overlay form.
    func overlaySettings(
        of manager: NetworkIndicatorManager,
        given: NetworkActivityOverlaySettings?
    ) -> NetworkActivityOverlaySettings {
        Self.overlaySettings(in: self, of: manager, given: given)
    }

    /// ``overlaySettings(of:given:)`` for a view that may be in no scope (`context` `nil`): its
    /// own settings, else the defaults.
    static func overlaySettings(
        in context: Self?,
        of manager: NetworkIndicatorManager,
        given: NetworkActivityOverlaySettings?
    ) -> NetworkActivityOverlaySettings {
        given ?? context?.scope(of: manager)?.settings ?? .default
    }

    /// Where `networkActivityRefreshable` counts a refresh of `manager` for the overlay to leave
    /// out: the scope's refreshes, if `manager` is the scope's and `platform`'s system draws a
    /// spinner for a refresh; else `nil`, and the overlay draws for the refresh as for any load.
    func refreshesToLeaveOut(
        of manager: NetworkIndicatorManager,
        on platform: RefreshSpinnerPlatform = .current
    ) -> ScopeOverlayExclusions? {
        guard platform.systemDrawsRefreshSpinner else { return nil }
        return scope(of: manager)?.refreshes
    }
}

/// Whether the system draws a spinner while a SwiftUI `refreshable` action runs: iOS, iPadOS
/// and visionOS have a refresh control (the pull-to-refresh of a list or scroll view;
/// `UIRefreshControl`, visionOS 1.0+). On macOS, tvOS and watchOS a refresh is started by a
/// button or a menu and nothing spins for it, so an overlay must draw for it; so on Mac
/// Catalyst, whose Mac idiom has no refresh control. Anywhere else it says no: a second
/// spinner is better than none.
enum RefreshSpinnerPlatform: Equatable, Sendable, CaseIterable {
    case iOS
    case macCatalyst
    case macOS
    case tvOS
    case watchOS
    case visionOS
    case other

    /// The platform this code was built for.
    static var current: Self {
        #if targetEnvironment(macCatalyst)
        .macCatalyst
        #elseif os(iOS)
        .iOS
        #elseif os(macOS)
        .macOS
        #elseif os(tvOS)
        .tvOS
        #elseif os(watchOS)
        .watchOS
        #elseif os(visionOS)
        .visionOS
        #else
        .other
        #endif
    }

    /// Whether the system draws its own spinner while a refresh runs.
    var systemDrawsRefreshSpinner: Bool { self == .iOS || self == .visionOS }
}
