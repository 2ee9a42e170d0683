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
import Foundation
import NetworkIndicator
import SwiftUI

/// Whether the screen under an overlay shows content: set by
/// `networkActivityOverlay(_:hasContent:label:bundle:settings:)` for the overlay's shell, which
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

/// The light indicator (``OverlayContentStyle/lightIndicator``): a spinner and the title in a small
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
