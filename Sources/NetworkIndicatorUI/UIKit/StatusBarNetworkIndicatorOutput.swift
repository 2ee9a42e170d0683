// Apple APIs used, with the availability Apple's documentation gives:
// - UIApplication.shared: iOS 2.0+, Mac Catalyst 13.1+; unavailable in app extensions
//   ("Use view controller based solutions where appropriate instead").
// - UIApplication.isNetworkActivityIndicatorVisible: iOS 2.0–13.0 (deprecated in 13.0), Mac
//   Catalyst 13.1–13.1 (deprecated on arrival); not in tvOS, visionOS or watchOS.
// Compiled for iOS only (`os(iOS)` is false on visionOS), and marked unavailable in app
// extensions and on Mac Catalyst, where the property does nothing.
#if canImport(UIKit) && os(iOS)
public import NetworkIndicator
import UIKit

/// Drives the status-bar network activity spinner
/// (`UIApplication.shared.isNetworkActivityIndicatorVisible`).
///
/// `NetworkIndicatorManager.shared` attaches no output; to bring back the status-bar spinner,
/// attach the one shared instance once, on the main actor, for example at launch:
///
/// ```swift
/// NetworkIndicatorManager.shared.addOutput(StatusBarNetworkIndicatorOutput.shared)
/// ```
///
/// The manager holds outputs weakly; ``shared`` lives as long as the app, so this one line is
/// all it takes. Apple deprecated the status-bar spinner in iOS 13 and it shows nothing on
/// devices with a notch or Dynamic Island: attach an in-app output as well, such as
/// ``NetworkActivityOverlayOutput`` or the SwiftUI `networkActivityOverlay` modifier.
///
/// There is one status bar, so there is one instance: attach it to one manager only, or two
/// managers will turn the same spinner on and off over each other. Unavailable in app
/// extensions, which have no `UIApplication.shared`, and on Mac Catalyst, which has no such
/// spinner. Called on the main actor only.
@available(iOSApplicationExtension, unavailable)
@available(macCatalyst, unavailable)
@MainActor
public final class StatusBarNetworkIndicatorOutput: NetworkIndicatorOutput {
    /// The output for the app's status bar.
    public static let shared = StatusBarNetworkIndicatorOutput()

    private init() {}

    /// Shows or hides the status-bar spinner.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        // Called through a protocol whose witness is marked deprecated: the deprecated property
        // is acknowledged in one place instead of warning in every build.
        let setter: any StatusBarSpinnerSetting = DeprecatedStatusBarSpinnerSetter()
        setter.setStatusBarSpinnerVisible(isVisible)
    }
}

@MainActor
private protocol StatusBarSpinnerSetting {
    func setStatusBarSpinnerVisible(_ isVisible: Bool)
}

@available(iOSApplicationExtension, unavailable)
@available(macCatalyst, unavailable)
@MainActor
private struct DeprecatedStatusBarSpinnerSetter: StatusBarSpinnerSetting {
    @available(iOS, deprecated: 13.0, message: "The status-bar spinner is deprecated; attach an in-app output too.")
    func setStatusBarSpinnerVisible(_ isVisible: Bool) {
        UIApplication.shared.isNetworkActivityIndicatorVisible = isVisible
    }
}
#endif
