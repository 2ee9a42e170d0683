// Apple APIs used, with the availability Apple's documentation gives:
// - Material (.regularMaterial): iOS 15.0+, macOS 12.0+, tvOS 15.0+, watchOS 10.0+; hence the
//   availability below.
// - View.overlay(alignment:content:), View.background(_:in:fillStyle:): iOS 15.0+, macOS 12.0+,
//   tvOS 15.0+, watchOS 8.0+.
// - ProgressView.init(label:): iOS 14.0+, macOS 11.0+, tvOS 14.0+, watchOS 7.0+.
// - View.accessibilityElement(children:), accessibilityLabel(_:) and accessibilityAddTraits(_:)
//   with .updatesFrequently: iOS 14.0+, macOS 11.0+, tvOS 14.0+, watchOS 7.0+.
// - Text.init(verbatim:), RoundedRectangle, View.transition(_:), animation(_:value:),
//   onAppear(perform:): iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI)
import SwiftUI

/// The overlay itself: a spinner and its title on a rounded material, over the content while
/// `isVisible`, fading in and out. Every overlay modifier of the package draws this one.
///
/// VoiceOver reads it as one element, its title, and announces the title when it comes on
/// screen; an overlay that never becomes visible (the manager's start delay absorbed a short
/// task) announces nothing.
@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
@MainActor
struct NetworkActivityOverlayContent: ViewModifier {
    let isVisible: Bool
    let label: OverlayLabel

    func body(content: Content) -> some View {
        content.overlay {
            if isVisible {
                let title = label.text()
                ProgressView {
                    Text(verbatim: title)
                }
                .padding()
                .background(.regularMaterial, in: RoundedRectangle(cornerRadius: 12, style: .continuous))
                .accessibilityElement(children: .ignore)
                .accessibilityLabel(Text(verbatim: title))
                .accessibilityAddTraits(.updatesFrequently)
                .onAppear { AccessibilityAnnouncement.post(title) }
                .transition(.opacity)
            }
        }
        .animation(.default, value: isVisible)
    }
}
#endif
