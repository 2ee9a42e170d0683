// Apple APIs used, with the availability Apple's documentation gives (the package needs iOS 13,
// tvOS 13 and macOS 10.15, so none needs an `#available` check):
// - UIView.window, isDescendant(of:), isUserInteractionEnabled, accessibilityElementsHidden;
//   UIWindow.rootViewController; UIViewController.presentedViewController, isBeingDismissed,
//   viewIfLoaded (iOS 9.0+): iOS 2.0+, tvOS 9.0+.
// - UIWindow.windowScene, UIScene.activationState: iOS 13.0+, tvOS 13.0+.
// - NSView.window; NSWindow.isVisible, attachedSheet (macOS 10.0+), occlusionState
//   (macOS 10.9+).
// - UIViewRepresentable (iOS 13.0+, tvOS 13.0+), NSViewRepresentable (macOS 10.15+).
// Nothing is probed on watchOS, which has no view to ask: an overlay there counts as seen.
#if canImport(SwiftUI)
import SwiftUI
#if canImport(UIKit) && !os(watchOS)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

#if canImport(UIKit) && !os(watchOS)
extension OverlaySight {
    /// What `view` tells now: in a window, under a presentation of that window (a sheet, a
    /// full-screen cover, a popover, an alert) or not, and its window scene's phase.
    @MainActor
    static func of(_ view: UIView?) -> OverlaySight {
        guard let view, let window = view.window else { return OverlaySight(isInWindow: false) }
        let isCovered =
            window.rootViewController.map { root in
                OverlaySight.isCovered(
                    root: root,
                    presented: { $0.presentedViewController },
                    isBeingDismissed: { $0.isBeingDismissed },
                    holdsOverlay: { $0.viewIfLoaded.map(view.isDescendant(of:)) ?? false }
                )
            } ?? false
        // No scene (an app without scenes): active, as the foreground-active raw value says.
        let scenePhase = ScenePhase(sceneActivationState: window.windowScene?.activationState.rawValue ?? 0)
        return OverlaySight(isInWindow: true, isCovered: isCovered, scenePhase: scenePhase)
    }
}
#elseif canImport(AppKit)
extension OverlaySight {
    /// What `view` tells now: in a window that is shown and not fully hidden by other windows,
    /// with a sheet attached to it or not.
    @MainActor
    static func of(_ view: NSView?) -> OverlaySight {
        guard let window = view?.window else { return OverlaySight(isInWindow: false) }
        return OverlaySight(
            isInWindow: window.isVisible && window.occlusionState.contains(.visible),
            isCovered: window.attachedSheet != nil
        )
    }
}
#endif

/// Where a SwiftUI overlay is drawn, as far as UIKit or AppKit knows: a view placed behind the
/// overlay's content, read at the moment of an announcement (``OverlaySight/of(_:)``). Main
/// actor only.
@MainActor
final class OverlayViewProbe {
    #if canImport(UIKit) && !os(watchOS)
    fileprivate weak var view: UIView?
    #elseif canImport(AppKit)
    fileprivate weak var view: NSView?
    #endif

    nonisolated init() {}

    /// Whether the probed view is in a window and under a presentation; in a window and
    /// uncovered where there is no view to probe (watchOS).
    var sight: OverlaySight {
        #if (canImport(UIKit) && !os(watchOS)) || canImport(AppKit)
        OverlaySight.of(view)
        #else
        OverlaySight(isInWindow: true)
        #endif
    }
}

#if canImport(UIKit) && !os(watchOS)
/// The probed view: empty, takes no touch, hidden from VoiceOver.
@MainActor
struct OverlayViewProbeView: UIViewRepresentable {
    let probe: OverlayViewProbe

    func makeUIView(context: Context) -> UIView {
        let view = UIView()
        view.isUserInteractionEnabled = false
        view.accessibilityElementsHidden = true
        probe.view = view
        return view
    }

    func updateUIView(_ view: UIView, context: Context) {
        probe.view = view
    }
}
#elseif canImport(AppKit)
/// The probed view: empty, takes no click, hidden from VoiceOver.
@MainActor
struct OverlayViewProbeView: NSViewRepresentable {
    /// Lets every click through to what is behind it.
    final class ProbedView: NSView {
        override func hitTest(_ point: NSPoint) -> NSView? { nil }
    }

    let probe: OverlayViewProbe

    func makeNSView(context: Context) -> NSView {
        let view = ProbedView()
        view.setAccessibilityElement(false)
        probe.view = view
        return view
    }

    func updateNSView(_ view: NSView, context: Context) {
        probe.view = view
    }
}
#else
/// Nothing to probe.
struct OverlayViewProbeView: View {
    let probe: OverlayViewProbe

    var body: some View { EmptyView() }
}
#endif
#endif
