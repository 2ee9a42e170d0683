// Apple APIs used, with the availability Apple's documentation gives:
// - View, ViewBuilder: iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI)
import NetworkIndicator
public import SwiftUI

/// A loading state of its own for `content`: `networkActivityScope(_:settings:)` as a
/// container, so that everything written inside it is inside the scope.
///
/// ```swift
/// NetworkActivityScope("Feed") {
///     List(posts) { PostRow(post: $0) }
///         .networkActivityTask(label: "posts") { await model.load() }
///         .networkActivityRefreshable(label: "refresh") { await model.reload() }
///         .networkActivityOverlay()
/// }
/// ```
///
/// The modifier form asks you to write the scope *below* the modifiers that use it, and the
/// view that declares it still sees the parent in its own `@Environment`; with the container,
/// the modifiers and views in `content` all see the scope's child manager, and nothing outside
/// does. Main actor, as every view.
public struct NetworkActivityScope<Content: View>: View {
    private let label: String
    private let settings: NetworkActivityOverlaySettings
    private let content: Content

    /// A scope labelled `label` around `content`, whose overlays present with `settings`.
    ///
    /// - Parameters:
    ///   - label: The child's name in its parent's ``NetworkIndicatorManager/activitySnapshot()``.
    ///   - settings: How the scope's overlays present its loading state.
    ///   - content: The views of the scope.
    public init(
        _ label: String,
        settings: NetworkActivityOverlaySettings = .default,
        @ViewBuilder content: () -> Content
    ) {
        self.label = label
        self.settings = settings
        self.content = content()
    }

    /// The content, in the scope.
    @MainActor
    public var body: some View {
        content.networkActivityScope(label, settings: settings)
    }
}
#endif
