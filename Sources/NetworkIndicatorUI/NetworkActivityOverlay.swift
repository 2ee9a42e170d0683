// Apple APIs used, with the availability Apple's documentation gives:
// - Observation (through NetworkIndicatorModel), View.onChange(of:initial:_:): iOS 17.0+,
//   macOS 14.0+, tvOS 17.0+, watchOS 10.0+, visionOS 1.0+; hence the availability below.
// - Material (.regularMaterial): iOS 15.0+, macOS 12.0+, tvOS 15.0+, watchOS 10.0+.
// - View.overlay(alignment:content:), View.background(_:in:fillStyle:): iOS 15.0+, macOS 12.0+,
//   tvOS 15.0+, watchOS 8.0+.
// - ProgressView.init(label:): iOS 14.0+, macOS 11.0+, tvOS 14.0+, watchOS 7.0+.
// - Text.init(_:tableName:bundle:comment:), LocalizedStringKey (Equatable), State, ViewModifier,
//   RoundedRectangle, View.transition(_:), animation(_:value:), onAppear(perform:),
//   onDisappear(perform:): iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI) && canImport(Observation)
import Foundation
public import NetworkIndicator
public import SwiftUI

/// Covers a view with a spinner titled "Loading" while a ``NetworkIndicatorModel`` says the
/// indicator is visible: the classic activity overlay over a list, for apps whose status bar
/// shows no spinner.
///
/// Use it through `View.networkActivityOverlay(_:label:)`, with a model or with a manager.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public struct NetworkActivityOverlay: ViewModifier {
    private let model: NetworkIndicatorModel
    private let label: LocalizedStringKey

    /// Creates the modifier for `model`, titled `label`. The default title, "Loading", comes in
    /// the app's language from this package's translations; any other key is looked up in the
    /// app's main bundle, like any `Text`.
    public init(model: NetworkIndicatorModel, label: LocalizedStringKey = "Loading") {
        self.model = model
        self.label = label
    }

    /// The content with the overlay on top while the model's `isVisible` is `true`.
    public func body(content: Content) -> some View {
        content.overlay {
            if model.isVisible {
                ProgressView {
                    Text(label, bundle: labelBundle)
                }
                .padding()
                .background(.regularMaterial, in: RoundedRectangle(cornerRadius: 12, style: .continuous))
                .transition(.opacity)
            }
        }
        .animation(.default, value: model.isVisible)
    }

    /// This package's translations for the default title, the app's main bundle for its keys.
    private var labelBundle: Bundle? {
        label == LocalizedStringKey(OverlayLabel.defaultKey) ? Bundle.module : nil
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension View {
    /// Overlays a spinner titled `label` while `model` says the indicator is visible.
    ///
    /// You create and keep the model (in `@State`, or in your own view model) and attach it to
    /// a manager yourself. To have the view do both, pass the manager instead.
    @MainActor
    public func networkActivityOverlay(
        _ model: NetworkIndicatorModel,
        label: LocalizedStringKey = "Loading"
    ) -> some View {
        modifier(NetworkActivityOverlay(model: model, label: label))
    }

    /// Overlays a spinner titled `label` while `manager` shows its indicator, for as long as
    /// this view is on screen.
    ///
    /// ```swift
    /// List(items) { ItemRow(item: $0) }
    ///     .networkActivityOverlay(.shared)
    /// ```
    ///
    /// The view owns a ``NetworkIndicatorModel`` for its whole life, in `@State`: it attaches
    /// the model to `manager` when it appears (and to the new manager if you pass another one)
    /// and removes it when it disappears. Rebuilding the view creates no new model, and since a
    /// manager holds its outputs weakly, a model whose view is gone is freed, never leaked.
    @MainActor
    public func networkActivityOverlay(
        _ manager: NetworkIndicatorManager,
        label: LocalizedStringKey = "Loading"
    ) -> some View {
        modifier(ManagerNetworkActivityOverlay(manager: manager, label: label))
    }
}

/// The overlay for a manager: owns its model and keeps it attached while the view is shown.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
private struct ManagerNetworkActivityOverlay: ViewModifier {
    let manager: NetworkIndicatorManager
    let label: LocalizedStringKey
    // The initial value is evaluated on every rebuild, but only the first model is kept; the
    // others are never attached and are freed at once.
    @State private var model = NetworkIndicatorModel()
    @State private var attachedManager: NetworkIndicatorManager?

    func body(content: Content) -> some View {
        content
            .modifier(NetworkActivityOverlay(model: model, label: label))
            .onAppear { attach() }
            .onChange(of: ObjectIdentifier(manager)) { attach() }
            .onDisappear { detach() }
    }

    private func attach() {
        guard attachedManager !== manager else { return }
        attachedManager?.removeOutput(model)
        manager.addOutput(model)  // tells the model the current visibility at once
        attachedManager = manager
    }

    private func detach() {
        attachedManager?.removeOutput(model)
        attachedManager = nil
    }
}
#endif
