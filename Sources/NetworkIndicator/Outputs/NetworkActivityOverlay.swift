#if canImport(SwiftUI) && canImport(Observation)
public import SwiftUI

/// Covers a view with a "Loading" label and a spinner while the indicator is visible: the
/// classic activity overlay over a table, for apps whose status bar shows no spinner.
///
/// Use it through ``SwiftUI/View/networkActivityOverlay(_:label:)``.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
public struct NetworkActivityOverlay: ViewModifier {
    private let model: NetworkIndicatorModel
    private let label: String

    /// Creates the modifier for `model`, titled `label`.
    public init(model: NetworkIndicatorModel, label: String = "Loading") {
        self.model = model
        self.label = label
    }

    /// The content with the overlay on top while ``NetworkIndicatorModel/isVisible``.
    public func body(content: Content) -> some View {
        content.overlay {
            if model.isVisible {
                ProgressView(label)
                    .padding()
                    .background(.regularMaterial, in: RoundedRectangle(cornerRadius: 12))
                    .transition(.opacity)
            }
        }
        .animation(.default, value: model.isVisible)
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension View {
    /// Overlays a spinner titled `label` while `model` says the indicator is visible.
    public func networkActivityOverlay(_ model: NetworkIndicatorModel, label: String = "Loading") -> some View {
        modifier(NetworkActivityOverlay(model: model, label: label))
    }
}
#endif
