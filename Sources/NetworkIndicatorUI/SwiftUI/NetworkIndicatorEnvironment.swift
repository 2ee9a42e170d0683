// Apple APIs used, with the availability Apple's documentation gives:
// - EnvironmentKey, EnvironmentValues, Environment, View.environment(_:_:), State,
//   ViewModifier: iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI)
public import NetworkIndicator
public import SwiftUI

/// The key of ``SwiftUI/EnvironmentValues/networkIndicator``.
private struct NetworkIndicatorKey: EnvironmentKey {
    static let defaultValue = NetworkIndicatorManager.shared
}

extension EnvironmentValues {
    /// The manager of the scope a view is in: `NetworkIndicatorManager.shared` at the root,
    /// the child manager of the nearest enclosing `networkActivityScope(_:)` below one.
    ///
    /// ```swift
    /// @Environment(\.networkIndicator) private var networkIndicator
    /// ```
    ///
    /// Read it in a view *inside* a scope: the view that declares `networkActivityScope` reads
    /// its parent's manager here, not the scope's (see "Per-screen loading state").
    ///
    /// `networkActivityTask`, `networkActivityOverlay()` and `networkActivityScope(_:)` read it;
    /// set it yourself with `.environment(\.networkIndicator, manager)` to root a subtree in
    /// another manager (a preview's, with a manual scheduler). Read on the main actor, as every
    /// environment value.
    public var networkIndicator: NetworkIndicatorManager {
        get { self[NetworkIndicatorKey.self] }
        set { self[NetworkIndicatorKey.self] = newValue }
    }
}

/// The key of `EnvironmentValues.networkActivityScopeContext`.
private struct NetworkActivityScopeContextKey: EnvironmentKey {
    static let defaultValue: NetworkActivityScopeContext? = nil
}

extension EnvironmentValues {
    /// The nearest `networkActivityScope`'s context, or `nil` outside every scope. A modifier
    /// uses it only if its manager is the scope's (another manager may have been set since).
    var networkActivityScopeContext: NetworkActivityScopeContext? {
        get { self[NetworkActivityScopeContextKey.self] }
        set { self[NetworkActivityScopeContextKey.self] = newValue }
    }
}

extension View {
    /// Gives this view a loading state of its own: a child manager of the environment's
    /// manager, put in the environment of the content, for as long as SwiftUI keeps the view's
    /// state.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityTask(label: "posts") { await model.load() }
    ///     .networkActivityOverlay()
    ///     .networkActivityScope("Feed")
    /// ```
    ///
    /// The modifiers above it (`networkActivityTask`, `networkActivityRefreshable`,
    /// `networkActivityOverlay()`, a `@Environment(\.networkIndicator)` in the content's views)
    /// see the child; its tasks count in every ancestor too, so the app-wide indicator shows
    /// while the feed loads. The view that declares the scope sees the *parent* in its own
    /// `@Environment`: use those modifiers, or a view inside the scope, to reach the child.
    ///
    /// The view owns one child for as long as SwiftUI keeps its state (its `@State`, by the
    /// view's identity): while it is on screen, and also while it waits in a navigation back
    /// stack or an unselected tab, where SwiftUI keeps that state (its overlays, tasks and
    /// refreshes stop there all the same, with their views). Rebuilding the view keeps the
    /// child, and only a change of the environment's manager makes a new one. When SwiftUI
    /// discards the view's state the child is released, and its open tasks end in every ancestor at once (tasks begun
    /// with an opaque token or a group keep the child alive until they end). The label is taken
    /// when the child is made. Main actor, as every view modifier.
    ///
    /// Every `networkActivityOverlay` inside the scope that gives no settings of its own
    /// presents as `settings` say:
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityOverlay()
    ///     .networkActivityScope("Feed", settings: .init(showDelay: 0.3, interaction: .blocksCard))
    /// ```
    ///
    /// The settings are the scope overlay's presentation only; the child manager's own delays,
    /// and the app-wide indicator, are unchanged.
    ///
    /// - Parameters:
    ///   - label: The child's name in its parent's `NetworkIndicatorManager.activitySnapshot()`.
    ///   - settings: How the scope's overlays present its loading state; the defaults if omitted.
    @MainActor
    public func networkActivityScope(
        _ label: String,
        settings: NetworkActivityOverlaySettings = NetworkActivityOverlaySettings()
    ) -> some View {
        modifier(NetworkActivityScopeModifier(label: label, settings: settings))
    }
}

/// Keeps the view's scope owner in `@State` and hands the content its child manager and context.
@MainActor
private struct NetworkActivityScopeModifier: ViewModifier {
    let label: String
    let settings: NetworkActivityOverlaySettings
    @Environment(\.networkIndicator) private var parent
    @Environment(\.networkActivityScopeContext) private var parentScope
    // Evaluated on every rebuild, but only the first owner is kept; the others own nothing.
    @State private var owner = NetworkActivityScopeOwner()

    func body(content: Content) -> some View {
        let child = owner.manager(under: parent, label: label)
        let context = owner.refreshes.map {
            NetworkActivityScopeContext(
                manager: child,
                refreshes: $0,
                settings: settings,
                parentRefreshes: parentScope?.scope(of: parent)?.refreshes
            )
        }
        return
            content
            .environment(\.networkIndicator, child)
            .environment(\.networkActivityScopeContext, context)
    }
}
#endif
