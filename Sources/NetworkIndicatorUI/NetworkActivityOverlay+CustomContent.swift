// Apple APIs used, with the availability Apple's documentation gives:
// - ViewBuilder, View.environment(_:_:): iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
// - LocalizedStringResource, String(localized:): iOS 16.0+, macOS 13.0+, tvOS 16.0+,
//   watchOS 9.0+.
// - The overlay's material needs iOS 15, macOS 12, watchOS 10 (NetworkActivityOverlayContent.swift).
#if canImport(SwiftUI)
public import Foundation
public import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(spokenTitle:settings:content:)` for a screen that may already
    /// show content: with `hasContent`, the package's light indicator (a capsule at the top
    /// edge titled `spokenTitle`, taking no touch) instead of your `content`. Main actor.
    ///
    /// - Parameters:
    ///   - hasContent: Whether the screen shows content now.
    ///   - spokenTitle: What VoiceOver announces, already localized; `nil` for "Loading".
    ///   - settings: As for `networkActivityOverlay(label:bundle:settings:)`.
    ///   - content: The overlay while the screen has no content, centred over this view.
    @MainActor
    public func networkActivityOverlay<Content: View>(
        hasContent: Bool,
        spokenTitle: String? = nil,
        settings: NetworkActivityOverlaySettings? = nil,
        @ViewBuilder content: () -> Content
    ) -> some View {
        networkActivityOverlay(spokenTitle: spokenTitle, settings: settings, content: content)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }

    /// `networkActivityOverlay(_:spokenTitle:settings:content:)` for a screen that may already
    /// show content: with `hasContent`, the package's light indicator instead of your
    /// `content`. Main actor.
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows.
    ///   - hasContent: Whether the screen shows content now.
    ///   - spokenTitle: What VoiceOver announces, already localized; `nil` for "Loading".
    ///   - settings: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    ///   - content: The overlay while the screen has no content, centred over this view.
    @MainActor
    public func networkActivityOverlay<Content: View>(
        _ manager: NetworkIndicatorManager,
        hasContent: Bool,
        spokenTitle: String? = nil,
        settings: NetworkActivityOverlaySettings? = nil,
        @ViewBuilder content: () -> Content
    ) -> some View {
        networkActivityOverlay(manager, spokenTitle: spokenTitle, settings: settings, content: content)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}

@available(iOS 16, macOS 13, tvOS 16, watchOS 10, *)
extension View {
    /// Your own `content` over this view while the environment's manager is loading, announced
    /// to VoiceOver as `spokenTitle`, a `LocalizedStringResource` that Xcode extracts into your
    /// String Catalog; otherwise as `networkActivityOverlay(spokenTitle:settings:content:)`.
    /// Main actor.
    ///
    /// - Parameters:
    ///   - hasContent: Whether the screen already shows content (the light indicator).
    ///   - spokenTitle: What VoiceOver announces when the overlay draws.
    ///   - settings: As for `networkActivityOverlay(label:bundle:settings:)`.
    ///   - content: The overlay, centred over this view.
    @MainActor
    public func networkActivityOverlay<Content: View>(
        hasContent: Bool = false,
        spokenTitle: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil,
        @ViewBuilder content: () -> Content
    ) -> some View {
        networkActivityOverlay(spokenTitle: String(localized: spokenTitle), settings: settings, content: content)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }

    /// Your own `content` over this view while `manager` is loading, announced as
    /// `spokenTitle`, a `LocalizedStringResource`; otherwise as
    /// `networkActivityOverlay(_:spokenTitle:settings:content:)`. Main actor.
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows.
    ///   - hasContent: Whether the screen already shows content (the light indicator).
    ///   - spokenTitle: What VoiceOver announces when the overlay draws.
    ///   - settings: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    ///   - content: The overlay, centred over this view.
    @MainActor
    public func networkActivityOverlay<Content: View>(
        _ manager: NetworkIndicatorManager,
        hasContent: Bool = false,
        spokenTitle: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil,
        @ViewBuilder content: () -> Content
    ) -> some View {
        networkActivityOverlay(
            manager,
            spokenTitle: String(localized: spokenTitle),
            settings: settings,
            content: content
        )
        .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}
#endif
