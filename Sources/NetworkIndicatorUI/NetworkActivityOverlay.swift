// Apple APIs used, with the availability Apple's documentation gives:
// - The overlay's material needs iOS 15, macOS 12, watchOS 10 (see
//   NetworkActivityOverlayContent.swift).
// - Observation (through NetworkIndicatorModel): iOS 17.0+, macOS 14.0+, tvOS 17.0+,
//   watchOS 10.0+, visionOS 1.0+; only the model-based overlay needs it.
// - ViewModifier, ViewBuilder: iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI)
public import Foundation
public import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
extension View {
    /// Overlays a spinner titled `label` while `manager` is loading, for as long as this view
    /// is on screen.
    ///
    /// ```swift
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(itemsActivity)   // the screen's child manager
    /// ```
    ///
    /// The overlay follows the manager's task count while the view is on screen, starting from
    /// the manager's state when the view appears and forgetting everything when it disappears
    /// (so it never shows a stale "Loading"). It draws after `settings.showDelay` and stays at
    /// least `settings.minimumVisibleDuration` (see ``NetworkActivityOverlaySettings``), lets
    /// touches through unless `settings.interaction` says otherwise, and announces its title to
    /// VoiceOver, queued behind current speech, unless `settings.announcesActivity` is `false`.
    /// While the manager knows how far its tasks are (its `fractionCompleted`, from tasks begun
    /// with a `Progress`), the spinner becomes a determinate `ProgressView` with a rounded-down
    /// percentage under it, which VoiceOver reads as the overlay's value ("Loading, 40
    /// percent"); `settings.showsProgress = false` keeps the spinner. Progress never changes
    /// when the overlay draws or erases. Main actor, as every view modifier.
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows.
    ///   - label: A key of `bundle`'s `Localizable.strings` (or string catalog); `nil` for
    ///     "Loading" in the package's translations (English, German, French, Spanish,
    ///     Japanese), even if your app has a "Loading" key.
    ///   - bundle: The bundle that translates `label`; `nil` for the app's main bundle.
    ///   - settings: The overlay's presentation; `nil` for the enclosing
    ///     `networkActivityScope(_:settings:)`'s when `manager` is that scope's, else the
    ///     defaults.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager,
        label: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        let title = OverlayLabel(label, bundle: bundle)
        return modifier(
            NetworkActivityOverlayShell(
                manager: manager,
                settings: settings,
                spokenTitle: title.text(),
                overlay: NetworkActivityOverlayCard(title: title.shownText),
                shownTitle: title.shownText
            )
        )
    }

    /// Overlays your own `content` while `manager` is loading, presented as
    /// `networkActivityOverlay(_:label:bundle:settings:)` presents the package's spinner.
    ///
    /// ```swift
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(itemsActivity) {
    ///         ProgressView("Syncing").padding()
    ///     }
    /// ```
    ///
    /// VoiceOver hears `spokenTitle` when the overlay draws ("Loading" in the package's
    /// translations if `nil`); give `content` its own accessibility label. Main actor.
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows.
    ///   - spokenTitle: What VoiceOver announces, already localized; `nil` for "Loading".
    ///   - settings: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    ///   - content: The overlay, centred over this view.
    @MainActor
    public func networkActivityOverlay<Content: View>(
        _ manager: NetworkIndicatorManager,
        spokenTitle: String? = nil,
        settings: NetworkActivityOverlaySettings? = nil,
        @ViewBuilder content: () -> Content
    ) -> some View {
        modifier(
            NetworkActivityOverlayShell(
                manager: manager,
                settings: settings,
                spokenTitle: spokenTitle ?? OverlayLabel(nil).text(),
                overlay: content()
            )
        )
    }
}

@available(iOS 16, macOS 13, tvOS 16, watchOS 10, *)
extension View {
    /// `networkActivityOverlay(_:label:bundle:settings:)` titled by a `LocalizedStringResource`:
    /// Xcode extracts it into a String Catalog, and it names its own table and bundle.
    ///
    /// ```swift
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(feed, title: "Loading feed")
    /// ```
    ///
    /// - Parameters:
    ///   - manager: The manager whose loading state the overlay shows.
    ///   - title: The title, shown and announced in the user's language.
    ///   - settings: As for `networkActivityOverlay(_:label:bundle:settings:)`.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        modifier(
            NetworkActivityOverlayShell(
                manager: manager,
                settings: settings,
                spokenTitle: String(localized: title),
                overlay: NetworkActivityOverlayCard(title: Text(title)),
                shownTitle: Text(title)
            )
        )
    }
}

#if canImport(Observation)
/// Covers a view with a spinner titled "Loading" while the manager a ``NetworkIndicatorModel``
/// is attached to is loading: the classic activity overlay over a list, for apps that keep a
/// model.
///
/// The overlay follows the model's manager exactly as
/// `networkActivityOverlay(_:label:bundle:settings:)` follows a manager, through the same
/// tested presentation: the show delay, the minimum time, the bar only while everything running
/// is measured, VoiceOver announcements as the settings say, their `interaction`, and nothing
/// while the manager is disabled. It does not draw from the model's `isVisible`, which follows
/// the manager's own delays (meant for app-wide chrome) and has none of that. A model attached
/// to no manager (or whose manager has gone) shows nothing; one attached later, or moved to
/// another manager (a model follows one manager at a time), is followed from then. Use it through
/// `View.networkActivityOverlay(_:label:settings:)` with a model you keep; with a manager, or
/// with the environment's manager (`networkActivityOverlay(label:)`), the overlay needs only
/// iOS 15.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public struct NetworkActivityOverlay: ViewModifier {
    private let model: NetworkIndicatorModel
    private let title: Text
    private let spokenTitle: String
    private let settings: NetworkActivityOverlaySettings?

    /// Creates the modifier for `model`, titled `label`: a key of the app's
    /// `Localizable.strings` (or string catalog), looked up in the main bundle as `Text` would,
    /// or `nil` for "Loading" in the package's translations; `settings` as for
    /// `networkActivityOverlay(_:label:bundle:settings:)` (`nil`: the scope's when the model's
    /// manager is the scope's, else the defaults).
    public init(model: NetworkIndicatorModel, label: String? = nil, settings: NetworkActivityOverlaySettings? = nil) {
        let title = OverlayLabel(label)
        self.init(model: model, title: title.shownText, spokenTitle: title.text(), settings: settings)
    }

    /// Creates the modifier for `model`, titled `title` (extracted into a String Catalog, and
    /// translated from the table and bundle it names); `settings` as above.
    public init(
        model: NetworkIndicatorModel,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil
    ) {
        self.init(model: model, title: Text(title), spokenTitle: String(localized: title), settings: settings)
    }

    /// Creates the modifier for `model`, titled `titleKey` from `tableName` of `bundle` (the
    /// main bundle's `Localizable` if `nil`), as `Text` would title it; VoiceOver hears the key
    /// translated, or "Loading" for a key with interpolated values. `settings` as above.
    public init(
        model: NetworkIndicatorModel,
        titleKey: LocalizedStringKey,
        tableName: String? = nil,
        bundle: Bundle? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) {
        self.init(
            model: model,
            title: Text(titleKey, tableName: tableName, bundle: bundle),
            spokenTitle: OverlayLabel(reflecting: titleKey, tableName: tableName, bundle: bundle).text(),
            settings: settings
        )
    }

    private init(
        model: NetworkIndicatorModel,
        title: Text,
        spokenTitle: String,
        settings: NetworkActivityOverlaySettings?
    ) {
        self.model = model
        self.title = title
        self.spokenTitle = spokenTitle
        self.settings = settings
    }

    /// The content with the overlay of the model's manager: the one it is attached to now. A
    /// model attached after the view was drawn, or moved to another manager, redraws the view,
    /// and the overlay starts again from that manager's state. Main actor, like every view body.
    @MainActor
    @ViewBuilder
    public func body(content: Content) -> some View {
        if let manager = model.attachedManager {
            content.modifier(
                NetworkActivityOverlayShell(
                    manager: manager,
                    settings: settings,
                    spokenTitle: spokenTitle,
                    overlay: NetworkActivityOverlayCard(title: title),
                    shownTitle: title
                )
            )
        } else {
            content
        }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension View {
    /// Overlays a spinner titled `label` while the manager `model` is attached to is loading,
    /// with the presentation of `networkActivityOverlay(_:label:bundle:settings:)` (see
    /// ``NetworkActivityOverlay``).
    ///
    /// You create and keep the model (in `@State`, or in your own view model) and attach it to
    /// a manager yourself. To have the view follow a manager with nothing to keep, pass the
    /// manager instead, or use `networkActivityOverlay(label:)` for the environment's manager.
    ///
    /// - Parameters:
    ///   - model: The model whose manager the overlay follows.
    ///   - label: A key of your app's `Localizable.strings`, or `nil` for "Loading" in the
    ///     package's translations.
    ///   - settings: The overlay's presentation; `nil` for the scope's or the defaults.
    @MainActor
    public func networkActivityOverlay(
        _ model: NetworkIndicatorModel,
        label: String? = nil,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        modifier(NetworkActivityOverlay(model: model, label: label, settings: settings))
    }

    /// `networkActivityOverlay(_:label:settings:)` with a model, titled by a
    /// `LocalizedStringResource`: Xcode extracts it into a String Catalog, and it names its own
    /// table and bundle.
    ///
    /// - Parameters:
    ///   - model: The model whose manager the overlay follows.
    ///   - title: The title, shown and announced in the user's language.
    ///   - settings: The overlay's presentation; `nil` for the scope's or the defaults.
    @MainActor
    public func networkActivityOverlay(
        _ model: NetworkIndicatorModel,
        title: LocalizedStringResource,
        settings: NetworkActivityOverlaySettings? = nil
    ) -> some View {
        modifier(NetworkActivityOverlay(model: model, title: title, settings: settings))
    }
}
#endif
#endif
