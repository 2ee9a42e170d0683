// Apple APIs used, with the availability Apple's documentation gives:
// - The overlay's material needs iOS 15, macOS 12, watchOS 10 (see
//   NetworkActivityOverlayContent.swift).
// - Environment, ViewModifier, ViewBuilder, View.environment(_:_:): iOS 13.0+, macOS 10.15+,
//   tvOS 13.0+, watchOS 6.0+.
// - LocalizedStringResource, String(localized:), Text.init(_: LocalizedStringResource):
//   iOS 16.0+, macOS 13.0+, tvOS 16.0+, watchOS 9.0+.
#if canImport(SwiftUI)
public import Foundation
public import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
extension View {
    /// Overlays a spinner titled `label` while the manager is loading, for as long as this view
    /// is on screen.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityOverlay()  // the enclosing networkActivityScope's manager
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(itemsActivity, hasContent: !items.isEmpty, label: "Loading items")
    /// ```
    ///
    /// The overlay follows the manager's task count while the view is on screen, starting from
    /// the manager's state when the view appears and forgetting everything when it disappears
    /// (so it never shows a stale "Loading"). It draws after `settings.showDelay` and stays at
    /// least `settings.minimumVisibleDuration` (see ``NetworkActivityOverlaySettings``), lets
    /// touches through unless `settings.interaction` says otherwise, and announces its title to
    /// VoiceOver, queued behind current speech, unless `settings.announcesActivity` is `false`.
    /// While the manager knows how far its tasks are (its `progressSnapshot()`, from tasks begun
    /// with a `Progress`), the spinner becomes a determinate `ProgressView` with a rounded-down
    /// percentage under it, which VoiceOver reads as the overlay's value ("Loading, 40
    /// percent"); `settings.showsProgress = false` keeps the spinner. Progress never changes
    /// when the overlay draws or erases. What it leaves out (a scope's pull-to-refresh, a child
    /// scope's own overlay) is in the catalog's "How overlays decide". Main actor, as every view
    /// modifier.
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows; `nil` (the default) for
    ///     the environment's, `\.networkIndicator`: the enclosing `networkActivityScope(_:)`'s,
    ///     or `NetworkIndicatorManager.shared` outside any scope. That last
    ///     case is reported once, in debug builds, as the diagnostic `overlayFollowsShared`
    ///     (an overlay written below its `networkActivityScope` lands there); pass `.shared` to
    ///     mean it.
    ///   - hasContent: Whether the view already shows content (stale-while-refreshing): `true`
    ///     draws a small capsule at the top edge instead of a card over the content, and never
    ///     blocks it. `false` (the default) covers an empty screen. Turning `true` under a drawn
    ///     card erases the card at once, and nothing is drawn for the rest of that load.
    ///   - label: A key of `bundle`'s `Localizable.strings` (or string catalog); `nil` for
    ///     "Loading" in the package's translations (English, German, French, Spanish,
    ///     Japanese), even if your app has a "Loading" key. Xcode does not extract a key passed
    ///     here into your String Catalog: add it yourself, or, from iOS 16 and macOS 13, use the
    ///     `title:` form with a `LocalizedStringResource`, which it extracts.
    ///   - bundle: The bundle that translates `label`; `nil` for the app's main bundle.
    ///   - settings: The overlay's presentation; `nil` for the enclosing
    ///     `networkActivityScope(_:settings:)`'s when the manager is that scope's, else the
    ///     defaults.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager? = nil,
        hasContent: Bool = false,
        label: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        let title = OverlayLabel(label, bundle: bundle)
        return modifier(
            NetworkActivityOverlayHost(
                manager: manager,
                settings: settings,
                spokenTitle: title.text(),
                overlay: NetworkActivityOverlayCard(title: title.shownText),
                shownTitle: title.shownText
            )
        )
        .environment(\.networkActivityOverlayHasContent, hasContent)
    }

    /// Overlays your own `content` while the manager is loading, presented as
    /// `networkActivityOverlay(_:hasContent:label:bundle:settings:)` presents the package's
    /// spinner.
    ///
    /// ```swift
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(spokenTitle: String(localized: "Syncing")) {
    ///         ProgressView("Syncing").padding()
    ///     }
    /// ```
    ///
    /// VoiceOver hears `spokenTitle` when the overlay draws ("Loading" in the package's
    /// translations if `nil`); give `content` its own accessibility label. Main actor.
    ///
    /// - Parameters:
    ///   - manager: As for `networkActivityOverlay(_:hasContent:label:bundle:settings:)`:
    ///     `nil` for the environment's.
    ///   - hasContent: As there; with `true`, the package's light indicator (a capsule titled
    ///     `spokenTitle`) is drawn at the top edge instead of `content`.
    ///   - spokenTitle: What VoiceOver announces, already localized; `nil` for "Loading".
    ///   - settings: As there.
    ///   - content: The overlay while the view has no content, centred over it.
    @MainActor
    public func networkActivityOverlay<Content: View>(
        _ manager: NetworkIndicatorManager? = nil,
        hasContent: Bool = false,
        spokenTitle: String? = nil,
        settings: NetworkActivityOverlaySettings? = nil,
        @ViewBuilder content: () -> Content
    ) -> some View {
        modifier(
            NetworkActivityOverlayHost(
                manager: manager,
                settings: settings,
                spokenTitle: spokenTitle ?? OverlayLabel(nil).text(),
                overlay: content()
            )
        )
        .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}

@available(iOS 16, macOS 13, tvOS 16, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(_:hasContent:label:bundle:settings:)` titled by a
    /// `LocalizedStringResource`: Xcode extracts it into a String Catalog, and it names its own
    /// table and bundle.
    ///
    /// ```swift
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(title: "Loading feed")
    /// ```
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows; `nil` for the
    ///     environment's.
    ///   - hasContent: Whether the view already shows content (see the other form).
    ///   - title: The title, shown and announced in the user's language.
    ///   - settings: As for `networkActivityOverlay(_:hasContent:label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager? = nil,
        hasContent: Bool = false,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        modifier(
            NetworkActivityOverlayHost(
                manager: manager,
                settings: settings,
                spokenTitle: String(localized: title),
                overlay: NetworkActivityOverlayCard(title: Text(title)),
                shownTitle: Text(title)
            )
        )
        .environment(\.networkActivityOverlayHasContent, hasContent)
    }
}

/// The overlay of the manager passed, or of the environment's when none was.
@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
@MainActor
struct NetworkActivityOverlayHost<Overlay: View>: ViewModifier {
    let manager: NetworkIndicatorManager?
    let settings: NetworkActivityOverlaySettings?
    let spokenTitle: String
    let overlay: Overlay
    var shownTitle: Text? = nil
    @Environment(\.networkIndicator) private var environmentManager

    func body(content: Content) -> some View {
        content.modifier(
            NetworkActivityOverlayShell(
                manager: manager ?? environmentManager,
                settings: settings,
                spokenTitle: spokenTitle,
                overlay: overlay,
                shownTitle: shownTitle
            )
        )
        .onAppear {
            // Debug builds: say once if an overlay given no manager found only `.shared`.
            OverlayBindingWarning.checkInDebugBuilds(
                given: manager,
                resolved: manager ?? environmentManager,
                title: spokenTitle
            )
        }
    }
}
#endif
