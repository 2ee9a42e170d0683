// Apple APIs used, with the availability Apple's documentation gives:
// - EnvironmentKey, EnvironmentValues, View.environment(_:_:), Text.init(verbatim:), Capsule,
//   HStack, View.font(_:), padding(_:_:): iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
// - ProgressView.init(), ProgressView.init(value:total:), View.accessibilityElement(children:),
//   accessibilityLabel(_:), accessibilityValue(_:), accessibilityAddTraits(_:) with
//   .updatesFrequently: iOS 14.0+, macOS 11.0+, tvOS 14.0+, watchOS 7.0+.
// - Font.monospacedDigit(): iOS 15.0+, macOS 12.0+, tvOS 15.0+, watchOS 8.0+.
// - Material (.regularMaterial), View.background(_:in:fillStyle:): iOS 15.0+, macOS 12.0+,
//   tvOS 15.0+, watchOS 10.0+.
#if canImport(SwiftUI)
public import Foundation
public import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(label:bundle:settings:)` for a screen that may already show
    /// content: with `hasContent`, a light indicator (a small capsule with a spinner at the top
    /// edge, or a short bar and its percentage while everything running is measured; it takes
    /// no touch) instead of the card, so that a refresh of what is shown
    /// covers nothing.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityOverlay(hasContent: !posts.isEmpty)
    ///     .networkActivityScope("Feed")
    /// ```
    ///
    /// Everything else is as `networkActivityOverlay(label:bundle:settings:)`: the same show
    /// delay, minimum time and announcements (queued behind speech, never interrupting). When
    /// `hasContent` changes while the overlay is drawn, it switches between the card and the
    /// capsule at once, without erasing or speaking again. Main actor.
    ///
    /// - Parameters:
    ///   - hasContent: Whether the screen shows content now.
    ///   - label: As for `networkActivityOverlay(label:bundle:settings:)`.
    ///   - bundle: As for `networkActivityOverlay(label:bundle:settings:)`.
    ///   - settings: As for `networkActivityOverlay(label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        hasContent: Bool,
        label: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        networkActivityOverlay(label: label, bundle: bundle, settings: settings)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }

    /// `networkActivityOverlay(_:label:bundle:settings:)` for a screen that may already show
    /// content: with `hasContent`, the light indicator instead of the card, as
    /// `networkActivityOverlay(hasContent:label:bundle:settings:)` draws it. Main actor.
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows.
    ///   - hasContent: Whether the screen shows content now.
    ///   - label: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    ///   - bundle: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    ///   - settings: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager,
        hasContent: Bool,
        label: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        networkActivityOverlay(manager, label: label, bundle: bundle, settings: settings)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}

@available(iOS 16, macOS 13, tvOS 16, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(title:settings:)` for a screen that may already show content:
    /// with `hasContent`, the light indicator instead of the card. Main actor.
    ///
    /// - Parameters:
    ///   - hasContent: Whether the screen shows content now.
    ///   - title: The title, shown and announced in the user's language.
    ///   - settings: As for `networkActivityOverlay(label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        hasContent: Bool,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        networkActivityOverlay(title: title, settings: settings)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }

    /// `networkActivityOverlay(_:title:settings:)` for a screen that may already show content:
    /// with `hasContent`, the light indicator instead of the card. Main actor.
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows.
    ///   - hasContent: Whether the screen shows content now.
    ///   - title: The title, shown and announced in the user's language.
    ///   - settings: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager,
        hasContent: Bool,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        networkActivityOverlay(manager, title: title, settings: settings)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}

#if canImport(Observation)
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(_:label:settings:)` with a model, for a screen that may already
    /// show content: with `hasContent`, the light indicator instead of the card, through the
    /// same tested presentation. Main actor.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityOverlay(model, hasContent: !posts.isEmpty)
    /// ```
    ///
    /// - Parameters:
    ///   - model: The model whose manager the overlay follows.
    ///   - hasContent: Whether the screen shows content now.
    ///   - label: A key of your app's `Localizable.strings`, or `nil` for "Loading" in the
    ///     package's translations.
    ///   - settings: The overlay's presentation; `nil` for the scope's or the defaults.
    @MainActor
    public func networkActivityOverlay(
        _ model: NetworkIndicatorModel,
        hasContent: Bool,
        label: String? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        networkActivityOverlay(model, label: label, settings: settings)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }

    /// `networkActivityOverlay(_:title:settings:)` with a model, for a screen that may already
    /// show content: with `hasContent`, the light indicator instead of the card. Main actor.
    ///
    /// - Parameters:
    ///   - model: The model whose manager the overlay follows.
    ///   - hasContent: Whether the screen shows content now.
    ///   - title: The title, shown and announced in the user's language.
    ///   - settings: The overlay's presentation; `nil` for the scope's or the defaults.
    @MainActor
    public func networkActivityOverlay(
        _ model: NetworkIndicatorModel,
        hasContent: Bool,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        networkActivityOverlay(model, title: title, settings: settings)
            .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}
#endif

/// Whether the screen under an overlay shows content: set by
/// `networkActivityOverlay(hasContent:label:bundle:settings:)` for the overlay's shell, which
/// sets it back to `false` for the content under it (so a nested overlay starts from none).
private struct NetworkActivityOverlayHasContentKey: EnvironmentKey {
    static let defaultValue = false
}

/// Whether the overlay's title is "Still loading…" now: set by the shell for its overlay.
private struct NetworkActivityOverlayStillLoadingKey: EnvironmentKey {
    static let defaultValue = false
}

extension EnvironmentValues {
    var networkActivityOverlayHasContent: Bool {
        get { self[NetworkActivityOverlayHasContentKey.self] }
        set { self[NetworkActivityOverlayHasContentKey.self] = newValue }
    }

    var networkActivityOverlayStillLoading: Bool {
        get { self[NetworkActivityOverlayStillLoadingKey.self] }
        set { self[NetworkActivityOverlayStillLoadingKey.self] = newValue }
    }
}

/// The light indicator of ``OverlayContentStyle/bar``: a spinner and the title in a small
/// capsule at the top edge, or, when the controller's ``OverlayProgress`` is determinate (a bar
/// applies: everything running is measured), a short bar and its percentage instead of the
/// spinner. VoiceOver reads it as one element: its title, and the percentage as its value.
@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
struct NetworkActivityOverlayCapsule: View {
    let title: Text
    let progress: OverlayProgress

    var body: some View {
        HStack(spacing: 8) {
            if let fraction = progress.fractionCompleted {
                ProgressView(value: fraction).frame(width: 60)
                Text(verbatim: progress.percentageText() ?? "").font(.footnote.monospacedDigit())
            } else {
                ProgressView()
            }
            title.font(.footnote)
        }
        .padding(.horizontal, 12)
        .padding(.vertical, 6)
        .background(.regularMaterial, in: Capsule())
        .padding(.top, 8)
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(title)
        .accessibilityValue(Text(verbatim: progress.accessibilityValue() ?? ""))
        .accessibilityAddTraits(.updatesFrequently)
    }
}
#endif
