// Apple APIs used, with the availability Apple's documentation gives:
// - Environment, ViewModifier, ViewBuilder, Text.init(verbatim:): iOS 13.0+, macOS 10.15+,
//   tvOS 13.0+, watchOS 6.0+.
// - LocalizedStringResource, String(localized:), Text.init(_: LocalizedStringResource):
//   iOS 16.0+, macOS 13.0+, tvOS 16.0+, watchOS 9.0+.
// - The overlay's material needs iOS 15, macOS 12, watchOS 10 (NetworkActivityOverlayContent.swift).
#if canImport(SwiftUI)
public import Foundation
import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
extension View {
    /// Overlays a spinner titled `label` while the environment's manager
    /// (``SwiftUI/EnvironmentValues/networkIndicator``: the nearest `networkActivityScope`, or
    /// ``NetworkIndicatorManager/shared``) is loading.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityOverlay()
    ///     .networkActivityScope("Feed")
    /// ```
    ///
    /// Presented as `networkActivityOverlay(_:label:bundle:settings:)` with that manager: drawn
    /// after a show delay, kept a minimum time, started from the manager's state when the view
    /// appears and reset when it disappears, a bar with a percentage instead of the spinner
    /// while the manager knows how far its tasks are. On iOS and iPadOS it begins to draw for
    /// nothing while one of the scope's pull-to-refreshes (`networkActivityRefreshable`) runs:
    /// the system's refresh control shows it, and the requests its action makes. It leaves out
    /// the tasks of a child scope whose own overlay is on screen. Main actor.
    ///
    /// - Parameters:
    ///   - label: A key of `bundle`'s `Localizable.strings` (or string catalog); `nil` for
    ///     "Loading" in the package's translations.
    ///   - bundle: The bundle that translates `label`; `nil` for the app's main bundle.
    ///   - settings: The overlay's presentation; `nil` for the scope's
    ///     (`networkActivityScope(_:settings:)`), or the defaults outside a scope.
    @MainActor
    public func networkActivityOverlay(
        label: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        let title = OverlayLabel(label, bundle: bundle)
        return modifier(
            EnvironmentNetworkActivityOverlay(
                settings: settings,
                spokenTitle: title.text(),
                overlay: NetworkActivityOverlayCard(title: title.shownText),
                shownTitle: title.shownText
            )
        )
    }

    /// Overlays your own `content` while the environment's manager is loading, presented as
    /// `networkActivityOverlay(label:bundle:settings:)` presents the package's spinner.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityOverlay {
    ///         Label("Syncing", systemImage: "arrow.triangle.2.circlepath")
    ///             .padding()
    ///             .background(.thinMaterial, in: Capsule())
    ///     }
    ///     .networkActivityScope("Feed")
    /// ```
    ///
    /// - Parameters:
    ///   - spokenTitle: What VoiceOver announces when the overlay draws, already localized;
    ///     `nil` for "Loading" in the package's translations.
    ///   - settings: As for `networkActivityOverlay(label:bundle:settings:)`.
    ///   - content: The overlay, centred over this view.
    @MainActor
    public func networkActivityOverlay<Content: View>(
        spokenTitle: String? = nil,
        settings: NetworkActivityOverlaySettings? = nil,
        @ViewBuilder content: () -> Content
    ) -> some View {
        modifier(
            EnvironmentNetworkActivityOverlay(
                settings: settings,
                spokenTitle: spokenTitle ?? OverlayLabel(nil).text(),
                overlay: content()
            )
        )
    }
}

@available(iOS 16, macOS 13, tvOS 16, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(label:bundle:settings:)` titled by a `LocalizedStringResource`,
    /// which names its own table and bundle.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityOverlay(title: LocalizedStringResource("Loading posts", bundle: .atURL(feedBundleURL)))
    /// ```
    ///
    /// - Parameters:
    ///   - title: The title, shown and announced in the user's language.
    ///   - settings: As for `networkActivityOverlay(label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        modifier(
            EnvironmentNetworkActivityOverlay(
                settings: settings,
                spokenTitle: String(localized: title),
                overlay: NetworkActivityOverlayCard(title: Text(title)),
                shownTitle: Text(title)
            )
        )
    }
}

/// The overlay of the environment's manager.
@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
@MainActor
struct EnvironmentNetworkActivityOverlay<Overlay: View>: ViewModifier {
    let settings: NetworkActivityOverlaySettings?
    let spokenTitle: String
    let overlay: Overlay
    /// The light indicator's title; `nil` for `spokenTitle` as it is.
    var shownTitle: Text? = nil
    @Environment(\.networkIndicator) private var manager

    func body(content: Content) -> some View {
        content.modifier(
            NetworkActivityOverlayShell(
                manager: manager,
                settings: settings,
                spokenTitle: spokenTitle,
                overlay: overlay,
                shownTitle: shownTitle
            )
        )
    }
}
#endif
