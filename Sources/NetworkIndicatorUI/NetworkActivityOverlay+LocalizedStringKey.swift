// Apple APIs used, with the availability Apple's documentation gives:
// - LocalizedStringKey, Text.init(_:tableName:bundle:comment:), View.environment(_:_:):
//   iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
// - The overlay's material needs iOS 15, macOS 12, watchOS 10 (NetworkActivityOverlayContent.swift);
//   the model-based form needs Observation: iOS 17.0+, macOS 14.0+, tvOS 17.0+, watchOS 10.0+.
#if canImport(SwiftUI)
public import Foundation
public import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(_:label:bundle:settings:)` titled by a `LocalizedStringKey`, as
    /// `Text` is: Xcode extracts the literal into your String Catalog, and `\.locale` applies.
    /// Works from iOS 15 and macOS 12; from iOS 16 and macOS 13 the `LocalizedStringResource`
    /// form (`title:`) does the same and is heard with its interpolated values too.
    ///
    /// ```swift
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(feed, titleKey: "Loading feed")
    /// ```
    ///
    /// VoiceOver hears the key translated from `tableName` of `bundle`, as `Text` shows it; a
    /// key with interpolated values (`"Loading \(name)"`) is shown with them but heard as
    /// "Loading" in the package's translations. Main actor.
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows.
    ///   - hasContent: Whether the screen already shows content: a light indicator at the top
    ///     edge instead of the card (as `networkActivityOverlay(hasContent:label:bundle:settings:)`).
    ///   - titleKey: The title's key, shown and announced in the user's language.
    ///   - tableName: The strings table of `titleKey`; `nil` for `Localizable`.
    ///   - bundle: The bundle of `tableName`; `nil` for the app's main bundle.
    ///   - settings: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager,
        hasContent: Bool = false,
        titleKey: LocalizedStringKey,
        tableName: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        modifier(
            NetworkActivityOverlayShell(
                manager: manager,
                settings: settings,
                spokenTitle: OverlayLabel(reflecting: titleKey, tableName: tableName, bundle: bundle).text(),
                overlay: NetworkActivityOverlayCard(title: Text(titleKey, tableName: tableName, bundle: bundle)),
                shownTitle: Text(titleKey, tableName: tableName, bundle: bundle)
            )
        )
        .environment(\.networkActivityOverlayHasContent, hasContent)
    }

    /// `networkActivityOverlay(label:bundle:settings:)` (the environment's manager) titled by a
    /// `LocalizedStringKey`, as `networkActivityOverlay(_:hasContent:titleKey:tableName:bundle:settings:)`
    /// is.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityOverlay(hasContent: !posts.isEmpty, titleKey: "Loading posts")
    ///     .networkActivityScope("Feed")
    /// ```
    ///
    /// - Parameters:
    ///   - hasContent: Whether the screen already shows content (the light indicator).
    ///   - titleKey: The title's key, shown and announced in the user's language.
    ///   - tableName: The strings table of `titleKey`; `nil` for `Localizable`.
    ///   - bundle: The bundle of `tableName`; `nil` for the app's main bundle.
    ///   - settings: As for `networkActivityOverlay(label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        hasContent: Bool = false,
        titleKey: LocalizedStringKey,
        tableName: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        modifier(
            EnvironmentNetworkActivityOverlay(
                settings: settings,
                spokenTitle: OverlayLabel(reflecting: titleKey, tableName: tableName, bundle: bundle).text(),
                overlay: NetworkActivityOverlayCard(title: Text(titleKey, tableName: tableName, bundle: bundle)),
                shownTitle: Text(titleKey, tableName: tableName, bundle: bundle)
            )
        )
        .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}

#if canImport(Observation)
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(_:label:settings:)` with a model, titled by a
    /// `LocalizedStringKey` (see `networkActivityOverlay(_:hasContent:titleKey:tableName:bundle:settings:)`).
    ///
    /// - Parameters:
    ///   - model: The model whose manager the overlay follows.
    ///   - hasContent: Whether the screen already shows content (the light indicator).
    ///   - titleKey: The title's key, shown and announced in the user's language.
    ///   - tableName: The strings table of `titleKey`; `nil` for `Localizable`.
    ///   - bundle: The bundle of `tableName`; `nil` for the app's main bundle.
    ///   - settings: The overlay's presentation; `nil` for the scope's or the defaults.
    @MainActor
    public func networkActivityOverlay(
        _ model: NetworkIndicatorModel,
        hasContent: Bool = false,
        titleKey: LocalizedStringKey,
        tableName: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        modifier(
            NetworkActivityOverlay(
                model: model,
                titleKey: titleKey,
                tableName: tableName,
                bundle: bundle,
                settings: settings
            )
        )
        .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}
#endif
#endif
