// Apple APIs used, with the availability Apple's documentation gives:
// - View.task(id:priority:_:): iOS 15.0+, macOS 12.0+, tvOS 15.0+, watchOS 8.0+; the overlay's
//   material needs watchOS 10 (see NetworkActivityOverlayContent.swift).
// - Observation (through NetworkIndicatorModel): iOS 17.0+, macOS 14.0+, tvOS 17.0+,
//   watchOS 10.0+, visionOS 1.0+; only the model-based overlay needs it.
// - State, ViewModifier: iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI)
public import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
extension View {
    /// Overlays a spinner titled `label` while `manager` shows its indicator, for as long as
    /// this view is on screen.
    ///
    /// ```swift
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(.shared)
    /// ```
    ///
    /// The view follows the manager's ``NetworkIndicatorManager/visibilityUpdates()`` in a
    /// task that runs while it is on screen (restarted if you pass another manager), so it
    /// keeps nothing attached to the manager once it is gone. VoiceOver announces the title
    /// when the overlay appears.
    ///
    /// - Parameters:
    ///   - manager: The manager whose indicator the overlay shows.
    ///   - label: A key of your app's `Localizable.strings` (or string catalog), looked up in
    ///     the main bundle as `Text` would; `nil` for "Loading" in the package's translations
    ///     (English, German, French, Spanish, Japanese), even if your app has a "Loading" key.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager,
        label: String? = nil
    ) -> some View {
        modifier(ManagerNetworkActivityOverlay(manager: manager, label: OverlayLabel(label)))
    }
}

/// The overlay for a manager: follows the manager's visibility stream while the view is shown.
@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
@MainActor
struct ManagerNetworkActivityOverlay: ViewModifier {
    let manager: NetworkIndicatorManager
    let label: OverlayLabel
    @State private var isVisible = false

    func body(content: Content) -> some View {
        let updates = VisibilityUpdatesTask(manager: manager, isVisible: $isVisible)
        return
            content
            .modifier(NetworkActivityOverlayContent(isVisible: isVisible, label: label))
            .task(id: ObjectIdentifier(manager)) { await updates.run() }
    }
}

/// Copies a manager's visibility into a binding until the task that runs it is cancelled.
@MainActor
private struct VisibilityUpdatesTask {
    let manager: NetworkIndicatorManager
    let isVisible: Binding<Bool>

    func run() async {
        for await isVisible in manager.visibilityUpdates() {
            self.isVisible.wrappedValue = isVisible
        }
    }
}

#if canImport(Observation)
/// Covers a view with a spinner titled "Loading" while a ``NetworkIndicatorModel`` says the
/// indicator is visible: the classic activity overlay over a list, for apps whose status bar
/// shows no spinner.
///
/// Use it through `View.networkActivityOverlay(_:label:)` with a model you keep; with a
/// manager, or with the environment's manager (`networkActivityOverlay(label:)`), the overlay
/// needs only iOS 15. VoiceOver announces the title when the overlay appears.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public struct NetworkActivityOverlay: ViewModifier {
    private let model: NetworkIndicatorModel
    private let label: OverlayLabel

    /// Creates the modifier for `model`, titled `label`: a key of the app's
    /// `Localizable.strings` (or string catalog), looked up in the main bundle as `Text` would,
    /// or `nil` for "Loading" in the package's translations.
    public init(model: NetworkIndicatorModel, label: String? = nil) {
        self.model = model
        self.label = OverlayLabel(label)
    }

    /// The content with the overlay on top while the model's `isVisible` is `true`. Main actor,
    /// like every view body.
    @MainActor
    public func body(content: Content) -> some View {
        content.modifier(NetworkActivityOverlayContent(isVisible: model.isVisible, label: label))
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension View {
    /// Overlays a spinner titled `label` while `model` says the indicator is visible.
    ///
    /// You create and keep the model (in `@State`, or in your own view model) and attach it to
    /// a manager yourself. To have the view follow a manager with nothing to keep, pass the
    /// manager instead, or use `networkActivityOverlay(label:)` for the environment's manager.
    ///
    /// - Parameters:
    ///   - model: The model whose `isVisible` the overlay shows.
    ///   - label: A key of your app's `Localizable.strings`, or `nil` for "Loading" in the
    ///     package's translations.
    @MainActor
    public func networkActivityOverlay(
        _ model: NetworkIndicatorModel,
        label: String? = nil
    ) -> some View {
        modifier(NetworkActivityOverlay(model: model, label: label))
    }
}
#endif
#endif
